package api

import (
	"context"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// ExportStore is what the sheet download needs.
type ExportStore interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	GetSheet(ctx context.Context, accountID, id string) (*model.Sheet, *model.Workbook, error)
	EachRecord(ctx context.Context, accountID, sheetID string, q recordset.RecordQuery, fn func(*recordset.Record) error) error
}

// Export serves GET /v1/sheets/:sheetId/download.
type Export struct{ store ExportStore }

// NewExport returns the export handler.
func NewExport(s ExportStore) *Export { return &Export{store: s} }

// Download streams the sheet's records (all, or what filter, filterField, searchValue,
// searchField, q, ids, sortField and sortDirection select) as CSV, or as XLSX with
// format=xlsx. The header row carries the field labels.
func (h *Export) Download(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	sheet, w, err := h.store.GetSheet(ctxOf(c), p.AccountID, c.Params("sheetId"))
	if err != nil {
		return err
	}
	if err := may(c, auth.Read, place.Sheet(w, sheet.ID)); err != nil {
		return err
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
	// Check the query before the first byte goes out, so a bad one still gets a JSON error.
	if err := ingest.CheckReadable(ctxOf(c), h.store, p.AccountID, sheet.ID, q); err != nil {
		return err
	}
	if format == "xlsx" {
		c.Set(fiber.HeaderContentType, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
		c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename=%q`, sheet.Slug+".xlsx"))
		return ingest.WriteXLSX(c.Context(), h.store, p.AccountID, []*model.Sheet{sheet}, q, c.Response().BodyWriter())
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename=%q`, sheet.Slug+".csv"))
	keep, err := queryBool(c, "keepFormulas") // cells like =HYPERLINK(…) get a leading ' unless true
	if err != nil {
		return err
	}
	c.Context().SetBodyStreamWriter(ingest.CSVBody(h.store, p.AccountID, sheet, q, keep != nil && *keep))
	return nil
}
