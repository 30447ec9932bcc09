package ui

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// gridPage is how many records a grid page shows.
const gridPage = 50

// Sheet handles GET /space/:spaceId/sheet/:sheetId?filter=all|valid|error&search=&page=.
func (h *Handler) Sheet(c *fiber.Ctx) error {
	u := userOf(c)
	sp, err := h.store.GetSpace(c.Context(), u.AccountID, c.Params("spaceId"))
	if err != nil {
		return err
	}
	sheet, w, err := h.store.GetSheet(c.Context(), u.AccountID, c.Params("sheetId"))
	if err != nil || w.SpaceID != sp.ID {
		return errs.NotFoundf("sheetId", "Sheet not found")
	}
	p := views.SheetProps{SpaceID: sp.ID, SpaceName: sp.Name, SheetID: sheet.ID, Name: sheet.Name, Filter: c.Query("filter", "all"), Search: c.Query("search")}
	if p.Filter != "valid" && p.Filter != "error" {
		p.Filter = "all"
	}
	if p.Page, _ = strconv.Atoi(c.Query("page", "1")); p.Page < 1 {
		p.Page = 1
	}
	counts, err := h.store.GetRecordCounts(c.Context(), u.AccountID, sheet.ID)
	if err != nil {
		return err
	}
	p.Total, p.Valid, p.Errors = counts.Total, counts.Valid, counts.Error
	for _, f := range sheet.Config.Fields {
		p.Columns = append(p.Columns, views.GridColumn{Key: f.Key, Label: firstNonEmpty(f.Label, f.Key), Type: f.Type,
			Required: f.HasConstraint("required"), Unique: f.HasConstraint("unique"), Errors: counts.ErrorsByField[f.Key]})
	}
	q := store.RecordQuery{SearchValue: p.Search, Page: model.Page{Size: gridPage, Number: p.Page}}
	if p.Filter != "all" {
		q.Filter = p.Filter
	}
	recs, matching, err := h.store.GetRecords(c.Context(), u.AccountID, sheet.ID, q, true)
	if err != nil {
		return err
	}
	p.Matching = matching
	if p.Pages = int((matching + gridPage - 1) / gridPage); p.Pages == 0 {
		p.Pages = 1
	}
	for i, r := range recs {
		row := views.GridRow{Number: (p.Page-1)*gridPage + i + 1, Valid: r.Valid}
		byKey := map[string]store.Cell{}
		for _, cell := range r.Cells {
			byKey[cell.Key] = cell
		}
		for _, f := range sheet.Config.Fields {
			cell := byKey[f.Key]
			gc := views.GridCell{Value: ingest.CellText(cell.Value)}
			for _, m := range cell.Messages {
				if m.Type == "error" {
					gc.Error = true
				}
				if gc.Message == "" {
					gc.Message = m.Message
				}
			}
			row.Cells = append(row.Cells, gc)
		}
		p.Rows = append(p.Rows, row)
	}
	return Render(c, fiber.StatusOK, views.SheetPage(p))
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
