package extract

import (
	"archive/zip"
	"encoding/xml"
	"io"
	"os"
	"strconv"
)

// cellStyles reads the style of a worksheet's cells as the worksheet's rows are read, from
// its XML part streamed beside excelize's rows. excelize's GetCellStyle loads the whole
// worksheet into memory first: a 500,000-row workbook took 70 s and 2 GiB, for
// the styles of a few cells that say which columns hold dates. Rows are asked for in
// order; a cell not in the part has style 0.
type cellStyles struct {
	rc     io.ReadCloser
	dec    *xml.Decoder
	row    int         // the row last read
	styles map[int]int // its cells' styles by column (from 1)
	done   bool
}

// worksheetParts are a workbook's worksheet parts by sheet name, found once for all its
// sheets' cellStyles; nil when they cannot be found (a workbook laid out otherwise), and
// excelize is asked instead.
type worksheetParts struct {
	z     *zip.Reader
	parts map[string]string
}

func findWorksheetParts(fh *os.File, size int64) *worksheetParts {
	z, err := zip.NewReader(fh, size)
	if err != nil {
		return nil
	}
	list, err := sheetParts(z)
	if err != nil {
		return nil
	}
	wp := &worksheetParts{z: z, parts: map[string]string{}}
	for _, sp := range list {
		wp.parts[sp.name] = sp.part
	}
	return wp
}

// open opens the styles of worksheet sheet; nil when its part cannot be found.
func (wp *worksheetParts) open(sheet string) *cellStyles {
	if wp == nil {
		return nil
	}
	f := zipFile(wp.z, wp.parts[sheet])
	if f == nil {
		return nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil
	}
	return &cellStyles{rc: rc, dec: xml.NewDecoder(rc), styles: map[int]int{}}
}

// at returns the style of the cell at col (from 1) of row, reading on to that row.
func (c *cellStyles) at(row, col int) int {
	for !c.done && c.row < row {
		c.next()
	}
	if c.row != row {
		return 0
	}
	return c.styles[col]
}

// next reads the next <row> and its cells' styles.
func (c *cellStyles) next() {
	clear(c.styles)
	col := 0
	for {
		tok, err := c.dec.Token()
		if err != nil {
			c.done = true
			return
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch el.Name.Local {
			case "row":
				if r, err := strconv.Atoi(attr(el, "r")); err == nil && r > 0 {
					c.row = r
				} else {
					c.row++
				}
				col = 0
			case "c":
				col++
				if cc, _, ok := cellRef(attr(el, "r")); ok {
					col = cc
				}
				if s, err := strconv.Atoi(attr(el, "s")); err == nil {
					c.styles[col] = s
				}
			}
		case xml.EndElement:
			if el.Name.Local == "row" {
				return
			}
		}
	}
}

func (c *cellStyles) Close() error { return c.rc.Close() }

func attr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
