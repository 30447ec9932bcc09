package ui

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store"
)

// maxGridEdit caps the records one grid edit (a paste, an undo) may touch.
const maxGridEdit = 50000

// GridEdit handles POST …/edit, the grid's paste, undo and redo: a JSON store.GridEdit
// (cells to set on records by id, records to add, records to remove) written as one commit
// through the records store, as the signed-in user. The answer is the store's result (with
// the inverse edit, which grid.js keeps for undo) and the sheet's counts.
func (h *Handler) GridEdit(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := sc.checkWritable(c.Context()); err != nil {
		return err
	}
	var e store.GridEdit
	if err := json.Unmarshal(c.Body(), &e); err != nil {
		return errs.Invalidf("body", "The edit is not valid JSON: %v", err)
	}
	if n := len(e.Set) + len(e.Add) + len(e.Remove); n == 0 {
		return errs.Invalidf("body", "The edit changes nothing")
	} else if n > maxGridEdit {
		return errs.E(errs.TooLarge, "body", "An edit may change at most %d records; this one changes %d", maxGridEdit, n).
			WithMsg("grid.edit_too_large", map[string]any{"Max": maxGridEdit, "Count": n})
	}
	res, err := h.store.ApplyGridEdit(c.Context(), sc.sheet.ID, e, sc.writeOpts())
	if err != nil {
		return err
	}
	counts, err := h.store.GetRecordCounts(c.Context(), sc.u.AccountID, sc.sheet.ID)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": res, "counts": countsChange(sc.sheet.Config, counts)})
}
