package extract

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/sluice/sluice/limits"
)

// Limits against zip bombs: the whole unzipped workbook (checkZip). A worksheet or shared
// strings part bigger than xlsxXMLLimit is unzipped to a temporary file and streamed from
// there rather than held in memory (a 500,000-row worksheet is about 80 MB of XML).
const (
	xlsxUnzipLimit = 2 << 30
	xlsxXMLLimit   = 16 << 20
)

// openXLSX reads every worksheet as a table: numbers as written in the file, dates as ISO
// dates, formulas as their cached values.
func openXLSX(fh *os.File, caps limits.Caps) (*File, error) {
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkZip(fh, st.Size()); err != nil {
		return nil, err
	}
	if err := checkSheetSizes(fh, st.Size()); err != nil {
		return nil, err
	}
	x, err := excelize.OpenReader(fh, excelize.Options{UnzipSizeLimit: xlsxUnzipLimit, UnzipXMLSizeLimit: xlsxXMLLimit})
	if err != nil {
		return nil, fmt.Errorf("the Excel file cannot be read (is it damaged or truncated?): %w", err)
	}
	f := &File{Format: "xlsx", Encoding: &Encoding{Name: "utf-8", FirstInvalid: -1}, closers: []io.Closer{x}}
	parts := findWorksheetParts(fh, st.Size())
	for _, sheet := range x.GetSheetList() {
		t, err := xlsxTable(x, sheet, parts.open(sheet), caps)
		if errors.Is(err, ErrEmpty) {
			continue
		}
		if err != nil {
			x.Close()
			return nil, fmt.Errorf("worksheet %q: %w", sheet, err)
		}
		f.Tables = append(f.Tables, t)
	}
	if len(f.Tables) == 0 {
		x.Close()
		return nil, ErrEmpty
	}
	return f, nil
}

// xlsxTable streams a worksheet's rows; styles (nil: excelize's) tells its date columns.
func xlsxTable(x *excelize.File, sheet string, styles *cellStyles, caps limits.Caps) (*Table, error) {
	rows, err := x.Rows(sheet)
	if err != nil {
		if styles != nil {
			styles.Close()
		}
		return nil, err
	}
	rowNum := 0
	dates := map[int]bool{}
	dateStyles := map[int]bool{}
	isDate := func(col, row int) bool {
		if styles == nil {
			return isDateCell(x, sheet, col, row)
		}
		id := styles.at(row, col)
		d, ok := dateStyles[id]
		if !ok {
			d = isDateStyle(x, id)
			dateStyles[id] = d
		}
		return d
	}
	read := func() ([]string, error) {
		if !rows.Next() {
			if err := rows.Error(); err != nil {
				return nil, err
			}
			rows.Close()
			if styles != nil {
				styles.Close()
			}
			return nil, io.EOF
		}
		rowNum++
		if rowNum > limits.ExcelRows {
			return nil, fmt.Errorf("the worksheet has more than %s rows, Excel's limit: split it into several sheets or files", limits.Count(limits.ExcelRows))
		}
		cells, err := rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			return nil, err
		}
		for i, c := range cells {
			if c == "" {
				continue
			}
			date, known := dates[i]
			if known && rowNum >= 60 {
				if date {
					cells[i] = isoDate(c)
				}
				continue
			}
			// Only a number can be a date cell: text (the header, a note) leaves a column
			// undecided, so a date column whose first dates come late is still found.
			if _, err := strconv.ParseFloat(c, 64); err != nil {
				continue
			}
			if isDate(i+1, rowNum) {
				dates[i] = true
			} else if !known {
				dates[i] = false
			}
			if dates[i] {
				cells[i] = isoDate(c)
			}
		}
		return cells, nil
	}
	return newTable(sheet, read, caps)
}

// isDateCell reports whether the cell's number format shows a date (excelize loads the
// whole worksheet for it: only for workbooks whose parts cellStyles cannot find).
func isDateCell(x *excelize.File, sheet string, col, row int) bool {
	axis, err := excelize.CoordinatesToCellName(col, row)
	if err != nil {
		return false
	}
	styleID, err := x.GetCellStyle(sheet, axis)
	if err != nil {
		return false
	}
	return isDateStyle(x, styleID)
}

// isDateStyle reports whether a cell style's number format shows a date.
func isDateStyle(x *excelize.File, styleID int) bool {
	if styleID == 0 {
		return false
	}
	st, err := x.GetStyle(styleID)
	if err != nil || st == nil {
		return false
	}
	if (st.NumFmt >= 14 && st.NumFmt <= 22) || (st.NumFmt >= 45 && st.NumFmt <= 47) {
		return true
	}
	if st.CustomNumFmt != nil {
		f := strings.ToLower(*st.CustomNumFmt)
		return strings.ContainsAny(f, "dy") && !strings.Contains(f, "0.0")
	}
	return false
}

// isoDate turns an Excel serial date into YYYY-MM-DD (with the time when it has one).
func isoDate(raw string) string {
	v, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return raw
	}
	t, err := excelize.ExcelDateToTime(v, false)
	if err != nil {
		return raw
	}
	if v == math.Trunc(v) {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02T15:04:05")
}
