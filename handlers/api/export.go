package api

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/xuri/excelize/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// ExportStore is what the sheet download needs.
type ExportStore interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	GetSheet(ctx context.Context, accountID, id string) (*model.Sheet, *model.Workbook, error)
	EachRecord(ctx context.Context, accountID, sheetID string, q store.RecordQuery, fn func(*store.Record) error) error
}

// Export serves GET /v1/sheets/:sheetId/download.
type Export struct{ store ExportStore }

// NewExport returns the export handler.
func NewExport(s ExportStore) *Export { return &Export{store: s} }

// cellText is a cell's value as export text: strings unquoted, arrays joined by ", ".
func cellText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
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

// Download streams the sheet's records (all, or what filter, filterField, searchValue,
// searchField, q, ids, sortField and sortDirection select) as CSV, or as XLSX with
// format=xlsx. The header row carries the field labels.
func (h *Export) Download(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	if err := notPublishable(p); err != nil {
		return err
	}
	sheet, w, err := h.store.GetSheet(c.Context(), p.AccountID, c.Params("sheetId"))
	if err != nil {
		return err
	}
	if _, err := reachSpace(c.Context(), h.store, p, w.SpaceID); err != nil {
		return errs.NotFoundf("sheetId", "Sheet not found")
	}
	q, err := recordQuery(c)
	if err != nil {
		return err
	}
	q.Page = model.Page{}
	format := c.Query("format", "csv")
	if format != "csv" && format != "xlsx" {
		return errs.Invalidf("format", "format must be csv or xlsx")
	}
	fields := sheet.Config.Fields
	header := make([]string, len(fields))
	for i, f := range fields {
		header[i] = f.Label
		if header[i] == "" {
			header[i] = f.Key
		}
	}
	row := func(r *store.Record) []string {
		out := make([]string, len(fields))
		byKey := make(map[string]json.RawMessage, len(r.Cells))
		for _, cell := range r.Cells {
			byKey[cell.Key] = cell.Value
		}
		for i, f := range fields {
			out[i] = cellText(byKey[f.Key])
		}
		return out
	}
	// Check the query before the first byte goes out, so a bad one still gets a JSON error.
	check := q
	check.Page = model.Page{Size: 1, Number: 1}
	if err := h.store.EachRecord(c.Context(), p.AccountID, sheet.ID, check, func(*store.Record) error { return errStop }); err != nil && err != errStop {
		return err
	}
	name := sheet.Slug
	if format == "xlsx" {
		return h.xlsx(c, p.AccountID, sheet, q, header, row, name)
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename=%q`, name+".csv"))
	accountID, sheetID, ctx := p.AccountID, sheet.ID, context.Background()
	c.Context().SetBodyStreamWriter(func(bw *bufio.Writer) {
		cw := csv.NewWriter(bw)
		_ = cw.Write(header)
		_ = h.store.EachRecord(ctx, accountID, sheetID, q, func(r *store.Record) error { return cw.Write(row(r)) })
		cw.Flush()
	})
	return nil
}

var errStop = errs.E(errs.Internal, "", "stop")

func (h *Export) xlsx(c *fiber.Ctx, accountID string, sheet *model.Sheet, q store.RecordQuery, header []string, row func(*store.Record) []string, name string) error {
	x := excelize.NewFile()
	defer x.Close()
	title := sheet.Name
	if len(title) > 31 {
		title = title[:31]
	}
	x.SetSheetName("Sheet1", title)
	sw, err := x.NewStreamWriter(title)
	if err != nil {
		return errs.Wrap(err, "xlsx writer")
	}
	cells := func(vals []string) []any {
		out := make([]any, len(vals))
		for i, v := range vals {
			out[i] = v
		}
		return out
	}
	n := 1
	if err := sw.SetRow("A1", cells(header)); err != nil {
		return errs.Wrap(err, "xlsx header")
	}
	err = h.store.EachRecord(c.Context(), accountID, sheet.ID, q, func(r *store.Record) error {
		n++
		axis, _ := excelize.CoordinatesToCellName(1, n)
		return sw.SetRow(axis, cells(row(r)))
	})
	if err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return errs.Wrap(err, "xlsx flush")
	}
	c.Set(fiber.HeaderContentType, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename=%q`, name+".xlsx"))
	return x.Write(c.Response().BodyWriter())
}
