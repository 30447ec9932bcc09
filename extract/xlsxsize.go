package extract

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/sluice/sluice/limits"
)

// checkSheetSizes refuses a workbook whose worksheet is larger than Excel allows before any
// of its rows is parsed: from the sheet's <dimension> when it has one, otherwise from a
// count of its <row> elements (a byte scan, far cheaper than reading the cells).
func checkSheetSizes(r io.ReaderAt, size int64) error {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return fmt.Errorf("the Excel file is damaged or truncated: %w", err)
	}
	parts, err := sheetParts(z)
	if err != nil {
		return nil //nolint:nilerr // excelize reports a malformed workbook in its own words
	}
	for _, sp := range parts {
		f := zipFile(z, sp.part)
		if f == nil {
			continue
		}
		rows, cols, err := sheetSize(f)
		if err != nil {
			continue
		}
		if rows > limits.ExcelRows {
			return fmt.Errorf("worksheet %q has %s rows; Excel's limit is %s rows: split it into several sheets or files", sp.name, limits.Count(rows), limits.Count(limits.ExcelRows))
		}
		if cols > limits.ExcelColumns {
			return fmt.Errorf("worksheet %q has %s columns; Excel's limit is %s", sp.name, limits.Count(cols), limits.Count(limits.ExcelColumns))
		}
	}
	return nil
}

type sheetPart struct{ name, part string }

// sheetParts maps each worksheet's name to its part, through xl/workbook.xml and its
// relationships.
func sheetParts(z *zip.Reader) ([]sheetPart, error) {
	var wb struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
			RID  string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	var rels struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := decodePart(z, "xl/workbook.xml", &wb); err != nil {
		return nil, err
	}
	if err := decodePart(z, "xl/_rels/workbook.xml.rels", &rels); err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, r := range rels.Rels {
		t := r.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join("xl", t)
		}
		targets[r.ID] = t
	}
	var out []sheetPart
	for _, s := range wb.Sheets {
		if t, ok := targets[s.RID]; ok {
			out = append(out, sheetPart{s.Name, t})
		}
	}
	return out, nil
}

func zipFile(z *zip.Reader, name string) *zip.File {
	for _, f := range z.File {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func decodePart(z *zip.Reader, name string, dst any) error {
	f := zipFile(z, name)
	if f == nil {
		return fmt.Errorf("%s is missing", name)
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	return xml.NewDecoder(io.LimitReader(rc, 64<<20)).Decode(dst)
}

// sheetSize reads a worksheet's extent: the <dimension ref="A1:K2000"> near its start, or,
// without one, the number of <row elements and no column count.
func sheetSize(f *zip.File) (rows, cols int, err error) {
	rc, err := f.Open()
	if err != nil {
		return 0, 0, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	head, _ := br.Peek(4 << 10)
	if i := bytes.Index(head, []byte("<dimension ref=\"")); i >= 0 {
		ref := head[i+len("<dimension ref=\""):]
		if j := bytes.IndexByte(ref, '"'); j > 0 {
			last := string(ref[:j])
			if k := strings.LastIndexByte(last, ':'); k >= 0 {
				last = last[k+1:]
			}
			if c, r, ok := cellRef(last); ok {
				return r, c, nil
			}
		}
	}
	// No usable dimension: count rows. A tag may straddle two reads, so the last three bytes
	// of each chunk are carried into the next (too few to hold a whole tag counted twice).
	tag := []byte("<row")
	buf := make([]byte, 256<<10)
	carry := 0
	for {
		n, rerr := br.Read(buf[carry:])
		chunk := buf[:carry+n]
		rows += bytes.Count(chunk, tag)
		carry = min(len(tag)-1, len(chunk))
		copy(buf, chunk[len(chunk)-carry:])
		if rerr == io.EOF {
			return rows, 0, nil
		}
		if rerr != nil {
			return 0, 0, rerr
		}
	}
}

// cellRef reads "XFD1048576" as column 16384, row 1048576. It does not stop at Excel's
// limits, which is the point: excelize refuses such a reference outright.
func cellRef(ref string) (col, row int, ok bool) {
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' {
		if col = col*26 + int(ref[i]-'A'+1); col > 1<<30 {
			return 0, 0, false
		}
		i++
	}
	if i == 0 || i == len(ref) {
		return 0, 0, false
	}
	for _, c := range ref[i:] {
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		if row = row*10 + int(c-'0'); row > 1<<30 {
			return 0, 0, false
		}
	}
	return col, row, true
}
