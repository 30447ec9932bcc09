package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset"
)

// RecordReader walks the records a query selects.
type RecordReader interface {
	EachRecord(ctx context.Context, accountID, sheetID string, q recordset.RecordQuery, fn func(*recordset.Record) error) error
}

// CheckReadable reads the first record q selects of a sheet and stops: an export checks
// its query so before the first byte of a streamed file goes out, while an error can still
// be answered as one.
func CheckReadable(ctx context.Context, rr RecordReader, accountID, sheetID string, q recordset.RecordQuery) error {
	err := rr.EachRecord(ctx, accountID, sheetID, q, func(*recordset.Record) error { return errFirstRecord })
	if errors.Is(err, errFirstRecord) {
		return nil
	}
	return err
}

// CSVBody writes the sheet's CSV (WriteCSV) into a streamed response body, once the query
// has been checked (CheckReadable): the request's context is gone by then, and an error can
// no longer be answered, only cut the file short.
func CSVBody(rr RecordReader, accountID string, s *model.Sheet, q recordset.RecordQuery, keepFormulas bool) func(*bufio.Writer) {
	return func(bw *bufio.Writer) {
		_ = WriteCSV(context.Background(), rr, accountID, s, q, bw, keepFormulas)
		_ = bw.Flush()
	}
}

// errFirstRecord stops a read at its first record.
var errFirstRecord = errors.New("first record")

// header is the export header of a sheet: its field labels (keys where there is none).
func header(s *model.Sheet) []string {
	out := make([]string, len(s.Config.Fields))
	for i, f := range s.Config.Fields {
		out[i] = f.Label
		if out[i] == "" {
			out[i] = f.Key
		}
	}
	return out
}

// valueReader reads the stored values of every record of a sheet (store.DB.EachValues):
// an export of a whole sheet reads them rather than whole records (1,000,000 records as
// CSV: 4.3 s through EachRecord).
type valueReader interface {
	EachValues(ctx context.Context, accountID, sheetID string, fn func(keys []string, id string, row records.Row) error) error
}

// eachCells calls fn with the export text of each record q selects, in the sheet's field
// order.
func eachCells(ctx context.Context, rr RecordReader, accountID string, s *model.Sheet, q recordset.RecordQuery, fn func([]string) error) error {
	vr, ok := rr.(valueReader)
	if !ok || !q.Whole() {
		return rr.EachRecord(ctx, accountID, s.ID, q, func(r *recordset.Record) error { return fn(cells(s, r)) })
	}
	var at []int // (field i's place among the reader's keys, -1: none)
	return vr.EachValues(ctx, accountID, s.ID, func(keys []string, _ string, row records.Row) error {
		if at == nil {
			at = make([]int, len(s.Config.Fields))
			for i, f := range s.Config.Fields {
				at[i] = slices.Index(keys, f.Key)
			}
		}
		out := make([]string, len(at))
		for i, k := range at {
			if k >= 0 && k < len(row) {
				out[i] = CellText(row[k])
			}
		}
		return fn(out)
	})
}

// cells lays a record out in the sheet's field order as export text.
func cells(s *model.Sheet, r *recordset.Record) []string {
	byKey := make(map[string]json.RawMessage, len(r.Cells))
	for _, c := range r.Cells {
		byKey[c.Key] = c.Value
	}
	out := make([]string, len(s.Config.Fields))
	for i, f := range s.Config.Fields {
		out[i] = CellText(byKey[f.Key])
	}
	return out
}

// CellText is a cell's value as export text: strings unquoted, lists joined by ", ".
func CellText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	switch raw[0] {
	case '"':
		if len(raw) >= 2 && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
			return string(raw[1 : len(raw)-1]) // (no escape: the text between the quotes)
		}
	case '[', '{':
	default:
		return string(raw) // a number or a boolean
	}
	return decodedText(raw)
}

// decodedText is CellText of any JSON value, decoded.
func decodedText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []any
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, len(list))
		for i, v := range list {
			parts[i] = fmt.Sprint(v)
		}
		return strings.Join(parts, ", ")
	}
	return string(raw)
}

// WriteCSV writes a sheet's selected records as CSV with a header row. Unless keepFormulas,
// a cell a spreadsheet would take for a formula (it starts with = + - @, a tab or a carriage
// return, and is not a number) is written with a leading ' (OWASP's advice against CSV
// injection): whoever opens the export runs nothing an importer typed.
func WriteCSV(ctx context.Context, rr RecordReader, accountID string, s *model.Sheet, q recordset.RecordQuery, w io.Writer, keepFormulas bool) error {
	cw := csv.NewWriter(w)
	write := cw.Write
	if !keepFormulas {
		write = func(row []string) error {
			for i, v := range row {
				row[i] = NeutralizeFormula(v)
			}
			return cw.Write(row)
		}
	}
	if err := write(header(s)); err != nil {
		return err
	}
	err := eachCells(ctx, rr, accountID, s, q, write)
	cw.Flush()
	if err != nil {
		return err
	}
	return cw.Error()
}

// WriteXLSX writes sheets as the worksheets of one Excel workbook, streaming each.
func WriteXLSX(ctx context.Context, rr RecordReader, accountID string, sheets []*model.Sheet, q recordset.RecordQuery, w io.Writer) error {
	x := excelize.NewFile()
	defer x.Close()
	used := map[string]bool{}
	for i, s := range sheets {
		title := worksheetName(s.Name, used)
		if i == 0 {
			if err := x.SetSheetName("Sheet1", title); err != nil {
				return errs.Wrap(err, "xlsx sheet")
			}
		} else if _, err := x.NewSheet(title); err != nil {
			return errs.Wrap(err, "xlsx sheet")
		}
		sw, err := x.NewStreamWriter(title)
		if err != nil {
			return errs.Wrap(err, "xlsx writer")
		}
		n := 1
		row := func(vals []string) error {
			axis, _ := excelize.CoordinatesToCellName(1, n)
			n++
			out := make([]any, len(vals))
			for i, v := range vals {
				out[i] = v
			}
			return sw.SetRow(axis, out)
		}
		if err := row(header(s)); err != nil {
			return errs.Wrap(err, "xlsx header")
		}
		if err := eachCells(ctx, rr, accountID, s, q, row); err != nil {
			return err
		}
		if err := sw.Flush(); err != nil {
			return errs.Wrap(err, "xlsx flush")
		}
	}
	return x.Write(w)
}

// worksheetName fits a sheet name to Excel's rules: at most 31 characters, none of []:*?/\,
// unique in the workbook.
func worksheetName(name string, used map[string]bool) string {
	clean := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\`, r) {
			return '-'
		}
		return r
	}, name)
	if clean == "" {
		clean = "Sheet"
	}
	if r := []rune(clean); len(r) > 31 {
		clean = string(r[:31])
	}
	out := clean
	for i := 2; used[strings.ToLower(out)]; i++ {
		suffix := fmt.Sprintf(" (%d)", i)
		r := []rune(clean)
		if len(r)+len(suffix) > 31 {
			r = r[:31-len(suffix)]
		}
		out = string(r) + suffix
	}
	used[strings.ToLower(out)] = true
	return out
}

// NeutralizeFormula prefixes ' to text a spreadsheet would run as a formula.
func NeutralizeFormula(v string) string {
	if v == "" || !strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return v
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return v // -5, +3.2: numbers stay numbers
	}
	return "'" + v
}
