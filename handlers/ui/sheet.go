package ui

import (
	"encoding/json"
	"net/url"
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
	if err := guard(u, c.Params("spaceId")); err != nil {
		return err
	}
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
			row.Cells = append(row.Cells, gridCell(sp.ID, sheet.ID, r.ID, f.Key, byKey[f.Key]))
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

// gridCell builds a grid cell from a stored one: its text, and its first message.
func gridCell(spaceID, sheetID, recordID, key string, cell store.Cell) views.GridCell {
	gc := views.GridCell{SpaceID: spaceID, SheetID: sheetID, RecordID: recordID, Key: key, Value: ingest.CellText(cell.Value)}
	for _, m := range cell.Messages {
		if m.Type == "error" {
			gc.Error = true
		}
		if gc.Message == "" {
			gc.Message = m.Message
		}
	}
	return gc
}

// cell loads one cell of a record of a sheet of the space.
func (h *Handler) cell(c *fiber.Ctx) (views.GridCell, error) {
	u := userOf(c)
	if err := guard(u, c.Params("spaceId")); err != nil {
		return views.GridCell{}, err
	}
	sp, err := h.store.GetSpace(c.Context(), u.AccountID, c.Params("spaceId"))
	if err != nil {
		return views.GridCell{}, err
	}
	sheet, w, err := h.store.GetSheet(c.Context(), u.AccountID, c.Params("sheetId"))
	if err != nil || w.SpaceID != sp.ID {
		return views.GridCell{}, errs.NotFoundf("sheetId", "Sheet not found")
	}
	key, _ := url.PathUnescape(c.Params("fieldKey"))
	if sheet.Config.FieldByKey(key) == nil {
		return views.GridCell{}, errs.NotFoundf("fieldKey", "Sheet has no field %q", key)
	}
	recs, _, err := h.store.GetRecords(c.Context(), u.AccountID, sheet.ID, store.RecordQuery{IDs: []string{c.Params("recordId")}, Page: model.Page{Size: 1, Number: 1}}, false)
	if err != nil {
		return views.GridCell{}, err
	}
	if len(recs) == 0 {
		return views.GridCell{}, errs.NotFoundf("recordId", "Record not found")
	}
	var stored store.Cell
	for _, cl := range recs[0].Cells {
		if cl.Key == key {
			stored = cl
		}
	}
	return gridCell(sp.ID, sheet.ID, recs[0].ID, key, stored), nil
}

// Cell handles GET …/cell/:recordId/:fieldKey: the cell as shown (Escape while editing).
func (h *Handler) Cell(c *fiber.Ctx) error {
	gc, err := h.cell(c)
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.GridCellView(gc))
}

// EditCell handles GET …/cell/:recordId/:fieldKey/edit: the cell's editor.
func (h *Handler) EditCell(c *fiber.Ctx) error {
	gc, err := h.cell(c)
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.GridCellEdit(gc))
}

// SaveCell handles POST …/cell/:recordId/:fieldKey: the new value is written like any update
// (validation, commit, hooks), as the signed-in user; an empty value empties the cell.
func (h *Handler) SaveCell(c *fiber.Ctx) error {
	gc, err := h.cell(c)
	if err != nil {
		return err
	}
	u := userOf(c)
	value := json.RawMessage("null")
	if v := c.FormValue("value"); v != "" {
		value, _ = json.Marshal(v)
	}
	in := []store.RecordIn{{ID: gc.RecordID, Values: map[string]store.CellIn{gc.Key: {Value: value, HasValue: true}}}}
	if _, err := h.store.UpdateRecords(c.Context(), gc.SheetID, in, store.WriteOptions{Actor: u.UserID, AccountID: u.AccountID}); err != nil {
		return err
	}
	return h.Cell(c)
}
