package ui

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/views"
)

// maxGridEdit caps the records one grid edit (a paste, a fill) may touch.
const maxGridEdit = 50000

// gridEdit is the body of POST …/edit: a recordset.GridEdit and the kind of change it is, which
// the user's undo history names it by.
type gridEdit struct {
	recordset.GridEdit
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
func (h *Handler) answerEdit(c *fiber.Ctx, sc *sheetCtx, data any, message string, st *recordset.UndoState) error {
	counts, err := h.store.GetRecordCounts(c.Context(), sc.u.AccountID, sc.sheet.ID)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": data, "message": message, "undo": st, "counts": countsChange(sc.sheet.Config, counts)})
}

// replayMessage says what an undo or redo did: "Undone: find & replace (12 records)".
func replayMessage(ctx context.Context, res *recordset.UndoResult, undo bool) string {
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

// AddRow handles POST …/rows: an empty record is appended (manual entry stays possible while
// a toolbarBlocking job runs) and the grid opens on the page that shows it.
func (h *Handler) AddRow(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := sc.checkWritable(c.Context()); err != nil {
		return err
	}
	if _, err := h.store.InsertRecords(c.Context(), sc.sheet.ID, []recordset.RecordIn{{Values: map[string]recordset.CellIn{}}}, sc.writeOpts("add")); err != nil {
		return err
	}
	counts, err := h.store.GetRecordCounts(c.Context(), sc.u.AccountID, sc.sheet.ID)
	if err != nil {
		return err
	}
	last := (counts.Total + gridPage - 1) / gridPage
	return hxRedirect(c, sc.base()+"?page="+strconv.FormatInt(max(last, 1), 10)+"&notice=added:1")
}

// toolbarAllowed refuses bulk edits on a locked or read-only sheet and while a
// toolbarBlocking job of the workbook runs.
func (h *Handler) toolbarAllowed(c *fiber.Ctx, sc *sheetCtx) error {
	if err := sc.checkWritable(c.Context()); err != nil {
		return err
	}
	if b, err := h.store.BlockingJob(c.Context(), sc.wb.ID); err != nil {
		return err
	} else if b != nil {
		return errs.E(errs.Conflict, "sheetId", "The toolbar is blocked while %s runs", b.Name()).WithMsg("grid.blocked", map[string]any{"Job": jobName(c.Context(), b)})
	}
	return nil
}

// FindReplace handles POST …/find-replace (column, find, replace, and the grid's filters):
// the records the grid shows are searched, 10,000 per version.
func (h *Handler) FindReplace(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := h.toolbarAllowed(c, sc); err != nil {
		return err
	}
	key := c.FormValue("column")
	if sc.sheet.Config.FieldByKey(key) == nil {
		return errs.Invalidf("column", "Choose a column").WithMsg("grid.choose_column", nil)
	}
	find, _ := json.Marshal(c.FormValue("find"))
	var replace json.RawMessage
	replace, _ = json.Marshal(c.FormValue("replace"))
	q, err := gridScope(c, sc)
	if err != nil {
		return err
	}
	res, err := h.store.FindAndReplace(c.Context(), sc.sheet.ID, q, recordset.FindReplace{FieldKey: key, Find: find, Replace: replace, ExcludeReadOnly: true}, sc.writeOpts("replace"))
	if err != nil {
		return err
	}
	return hxRedirect(c, sc.gridBack(c, "replaced:"+strconv.Itoa(res.Count)))
}

// FindCount handles GET …/find-replace/count (column, find, the grid's scope): how many
// records Replace all would change, said before the user presses it.
func (h *Handler) FindCount(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	key := c.Query("column")
	if sc.sheet.Config.FieldByKey(key) == nil {
		return c.SendString("")
	}
	find, _ := json.Marshal(c.Query("find"))
	q, err := gridScope(c, sc)
	if err != nil {
		return err
	}
	n, more, err := h.store.CountMatches(c.Context(), sc.u.AccountID, sc.sheet.ID, q, recordset.FindReplace{FieldKey: key, Find: find, ExcludeReadOnly: true}, findCountCap)
	if err != nil {
		return err
	}
	count := views.Count(c.Context(), int64(n))
	if more {
		count += "+"
	}
	return Render(c, fiber.StatusOK, views.FindCount(views.Tn(c.Context(), "grid.find_count", int64(n), count)))
}

// ClearColumn handles POST …/clear/:fieldKey: the spec's messages for read-only columns and
// sheets come from the store, which also snapshots the sheet first.
func (h *Handler) ClearColumn(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if b, err := h.store.BlockingJob(c.Context(), sc.wb.ID); err != nil {
		return err
	} else if b != nil {
		return errs.E(errs.Conflict, "sheetId", "The toolbar is blocked while %s runs", b.Name()).WithMsg("grid.blocked", map[string]any{"Job": jobName(c.Context(), b)})
	}
	key, _ := url.PathUnescape(c.Params("fieldKey"))
	res, err := h.store.ClearColumn(c.Context(), sc.sheet.ID, key, sc.writeOpts("clear"))
	if err != nil {
		return err
	}
	return hxRedirect(c, sc.base()+"?notice=cleared:"+strconv.Itoa(res.Count))
}

// cell loads one cell of a record of a sheet of the space.
func (h *Handler) cell(c *fiber.Ctx) (*sheetCtx, views.GridCell, error) {
	sc, row, err := h.cellRow(c)
	if err != nil {
		return nil, views.GridCell{}, err
	}
	return sc, row.Cells[0], nil
}

// cellRow is the record of the route's cell as a grid row holding that one cell.
func (h *Handler) cellRow(c *fiber.Ctx) (*sheetCtx, views.GridRow, error) {
	sc, err := h.loadSheet(c)
	if err != nil {
		return nil, views.GridRow{}, err
	}
	key, _ := url.PathUnescape(c.Params("fieldKey"))
	f := sc.sheet.Config.FieldByKey(key)
	if f == nil {
		return nil, views.GridRow{}, errs.NotFoundf("fieldKey", "Sheet has no field %q", key)
	}
	recs, _, err := h.store.GetRecords(c.Context(), sc.u.AccountID, sc.sheet.ID, recordset.RecordQuery{IDs: []string{c.Params("recordId")}, Page: model.Page{Size: 1, Number: 1}}, false)
	if err != nil {
		return nil, views.GridRow{}, err
	}
	if len(recs) == 0 {
		return nil, views.GridRow{}, errs.NotFoundf("recordId", "Record not found")
	}
	return sc, gridRow(sc, []model.Field{*f}, recs[0], 0, sc.readonly(c.Context()) == ""), nil
}

// Cell handles GET …/cell/:recordId/:fieldKey: the cell as shown (Escape while editing).
func (h *Handler) Cell(c *fiber.Ctx) error {
	_, gc, err := h.cell(c)
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.GridCellView(gc))
}

// EditCell handles GET …/cell/:recordId/:fieldKey/edit: the cell's editor, by field type:
// a select for enums (in config.sortBy order) and booleans, a look-up for references, a
// text area that keeps line breaks for strings.
func (h *Handler) EditCell(c *fiber.Ctx) error {
	sc, gc, err := h.cell(c)
	if err != nil {
		return err
	}
	if gc.Readonly {
		return errs.E(errs.Forbidden, "fieldKey", "This cell is read-only").WithMsg("grid.cell_readonly", nil)
	}
	f := sc.sheet.Config.FieldByKey(gc.Key)
	ed := views.CellEditor{Cell: gc, Type: f.Type}
	switch f.Type {
	case model.FieldEnum:
		ed.Options = enumOptions(f)
	case model.FieldBoolean:
		ed.Options = []views.ImportOption{{Value: "true", Label: views.T(c.Context(), "grid.yes")}, {Value: "false", Label: views.T(c.Context(), "grid.no")}}
	case model.FieldReference:
		if ed.Options, err = h.lookup(c, sc, f, ""); err != nil {
			return err
		}
		ed.Lookup = true
	}
	return Render(c, fiber.StatusOK, views.GridCellEdit(ed))
}

// SaveCell handles POST …/cell/:recordId/:fieldKey: the new value is written like any update
// (validation, commit, hooks), as the signed-in user, as a grid edit noted for undo; an empty
// value empties the cell.
func (h *Handler) SaveCell(c *fiber.Ctx) error {
	sc, gc, err := h.cell(c)
	if err != nil {
		return err
	}
	if gc.Readonly {
		return errs.E(errs.Forbidden, "fieldKey", "This cell is read-only").WithMsg("grid.cell_readonly", nil)
	}
	value := json.RawMessage("null")
	if v := c.FormValue("value"); v != "" {
		value, _ = json.Marshal(strings.ReplaceAll(v, "\r\n", "\n"))
	}
	edit := recordset.GridEdit{Set: []recordset.GridRecord{{ID: gc.RecordID, Values: map[string]json.RawMessage{gc.Key: value}}}}
	if _, err := h.store.ApplyGridEdit(c.Context(), sc.sheet.ID, edit, sc.writeOpts("edit")); err != nil {
		return err
	}
	// The saved cell; what the save changed around it (the record's state, the tab counts,
	// every column's error count) goes in an event grid.js applies to the page.
	sc, row, err := h.cellRow(c)
	if err != nil {
		return err
	}
	counts, err := h.store.GetRecordCounts(c.Context(), sc.u.AccountID, sc.sheet.ID)
	if err != nil {
		return err
	}
	change := countsChange(sc.sheet.Config, counts)
	change["record"], change["valid"], change["refresh"] = row.ID, row.Valid, uniqueKey(sc.sheet.Config, row.Cells[0].Key)
	if st, err := h.store.UndoState(c.Context(), sc.sheet.ID, sc.u.UserID); err == nil {
		change["undo"] = st // grid-edit.js enables its buttons
	}
	saved, _ := json.Marshal(map[string]any{"sl-cell-saved": change})
	c.Set("HX-Trigger", string(saved))
	return Render(c, fiber.StatusOK, views.GridCellView(row.Cells[0]))
}

// countsChange is what grid.js shows around the rows: the tab counts and each column's
// error count.
func countsChange(cfg model.SheetConfig, counts *recordset.Counts) map[string]any {
	cols := map[string]int64{}
	for _, f := range cfg.Fields {
		cols[f.Key] = counts.ErrorsByField[f.Key]
	}
	return map[string]any{"counts": map[string]int64{"all": counts.Total, "valid": counts.Valid, "error": counts.Error}, "columnErrors": cols}
}

// uniqueKey reports whether a change of field key can change other records' state: the field
// is unique on its own or in a sheet's composite unique constraint (its twins gain or lose
// their duplicate error).
func uniqueKey(cfg model.SheetConfig, key string) bool {
	if f := cfg.FieldByKey(key); f != nil && f.HasConstraint("unique") {
		return true
	}
	for _, c := range cfg.Constraints {
		if c.Type == "unique" && slices.Contains(c.Fields, key) {
			return true
		}
	}
	return false
}
