package ui

import (
	"context"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// maxGridEdit caps the records one grid edit (a paste, a fill) may touch.
const maxGridEdit = 50000

// gridEdit is the body of POST …/edit: a store.GridEdit and the kind of change it is, which
// the user's undo history names it by.
type gridEdit struct {
	store.GridEdit
	What string `json:"what"` // paste (default), fill, or edit (cells cleared with Delete)
}

// GridEdit handles POST …/edit, the grid's paste and fill down: a JSON gridEdit (cells to
// set on records by id, records to add, records to remove) written as one commit through
// the records store, as the signed-in user, and noted in their undo history. The answer is
// the store's result, the sheet's counts and whether there is something to undo or redo.
func (h *Handler) GridEdit(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := sc.checkWritable(c.Context()); err != nil {
		return err
	}
	var e gridEdit
	if err := json.Unmarshal(c.Body(), &e); err != nil {
		return errs.Invalidf("body", "The edit is not valid JSON: %v", err)
	}
	switch e.What {
	case "":
		e.What = "paste"
	case "paste", "fill", "edit":
	default:
		return errs.Invalidf("what", "what is paste, fill or edit, not %q", e.What)
	}
	if n := len(e.Set) + len(e.Add) + len(e.Remove); n == 0 {
		return errs.Invalidf("body", "The edit changes nothing")
	} else if n > maxGridEdit {
		return errs.E(errs.TooLarge, "body", "An edit may change at most %d records; this one changes %d", maxGridEdit, n).
			WithMsg("grid.edit_too_large", map[string]any{"Max": maxGridEdit, "Count": n})
	}
	res, err := h.store.ApplyGridEdit(c.Context(), sc.sheet.ID, e.GridEdit, sc.writeOpts(e.What))
	if err != nil {
		return err
	}
	st, err := h.store.UndoState(c.Context(), sc.sheet.ID, sc.u.UserID)
	if err != nil {
		return err
	}
	return h.answerEdit(c, sc, res, "", st)
}

// Undo handles POST …/undo and Redo POST …/redo: the user's last change in the sheet (or
// the last one they undid) is written back as a new commit. The answer says what was done
// in the page's language, with the counts and the undo state.
func (h *Handler) Undo(c *fiber.Ctx) error { return h.replay(c, true) }

// Redo: see Undo.
func (h *Handler) Redo(c *fiber.Ctx) error { return h.replay(c, false) }

func (h *Handler) replay(c *fiber.Ctx, undo bool) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := h.toolbarAllowed(c, sc); err != nil {
		return err
	}
	do := h.store.Redo
	if undo {
		do = h.store.Undo
	}
	res, err := do(c.Context(), sc.sheet.ID, sc.writeOpts(""))
	if err != nil {
		return err
	}
	return h.answerEdit(c, sc, res, replayMessage(c.Context(), res, undo), &res.UndoState)
}

// answerEdit is the JSON answer of a grid edit, an undo or a redo: with st, what is left
// to undo and redo (an undo's result says it already).
func (h *Handler) answerEdit(c *fiber.Ctx, sc *sheetCtx, data any, message string, st *store.UndoState) error {
	counts, err := h.store.GetRecordCounts(c.Context(), sc.u.AccountID, sc.sheet.ID)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": data, "message": message, "undo": st, "counts": countsChange(sc.sheet.Config, counts)})
}

// replayMessage says what an undo or redo did: "Undone: find & replace (12 records)".
func replayMessage(ctx context.Context, res *store.UndoResult, undo bool) string {
	if res.What == "" {
		if undo {
			return views.T(ctx, "grid.nothing_to_undo")
		}
		return views.T(ctx, "grid.nothing_to_redo")
	}
	what := changeLabel(ctx, res.What) + " (" + views.Tn(ctx, "sheet.records", int64(res.Count), "") + ")"
	id := "grid.redone"
	if undo {
		id = "grid.undone"
	}
	msg := views.Tf(ctx, id, map[string]any{"What": what})
	if res.Skipped > 0 {
		msg += " " + views.Tf(ctx, "grid.undo_skipped", map[string]any{"Count": res.Skipped})
	}
	return msg
}

// changeKeys are the locale keys naming the kinds of change of the undo history.
var changeKeys = map[string]string{
	"edit": "grid.change_edit", "paste": "grid.change_paste", "fill": "grid.change_fill", "add": "grid.change_add",
	"delete": "grid.change_delete", "replace": "grid.change_replace", "clear": "grid.change_clear", "set": "grid.change_set",
	"import": "grid.change_import",
}

// changeLabel names a kind of change of the undo history.
func changeLabel(ctx context.Context, what string) string {
	if id, ok := changeKeys[what]; ok {
		return views.T(ctx, id)
	}
	return what
}

// Column widths a person may set, in pixels.
const minColumnWidth, maxColumnWidth = 40, 1200

// SaveLayout handles POST …/layout: {"widths": {fieldKey: pixels}}, the column widths the
// user dragged the grid's columns to, kept for them in this sheet (and saved with a view).
func (h *Handler) SaveLayout(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	var body struct {
		Widths store.ColumnWidths `json:"widths"`
	}
	if err := json.Unmarshal(c.Body(), &body); err != nil {
		return errs.Invalidf("body", "The layout is not valid JSON: %v", err)
	}
	for k, w := range body.Widths {
		if sc.sheet.Config.FieldByKey(k) == nil {
			return errs.Invalidf("widths", "The sheet has no field %q", k)
		}
		if w < minColumnWidth || w > maxColumnWidth {
			return errs.Invalidf("widths", "Column %s: a width is %d to %d pixels, not %d", k, minColumnWidth, maxColumnWidth, w)
		}
	}
	if err := h.store.SaveColumnWidths(c.Context(), sc.u.UserID, sc.sheet.ID, body.Widths); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
