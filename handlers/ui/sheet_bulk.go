package ui

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// gridScope is the records the grid shows — its tab, search, filter and error column —
// from a form's fields (the toolbar forms carry them as hidden inputs).
func gridScope(c *fiber.Ctx, sc *sheetCtx) (recordset.RecordQuery, error) {
	return sc.scope(c.FormValue("filter"), c.FormValue("search"), c.FormValue("q"), c.FormValue("field"))
}

// scope is the query of the grid's tab (filter), search, FFQL filter and error column.
func (sc *sheetCtx) scope(filter, search, ffql, key string) (recordset.RecordQuery, error) {
	q := recordset.RecordQuery{SearchValue: search, Q: strings.TrimSpace(ffql)}
	if filter == "valid" || filter == "error" {
		q.Filter = filter
	}
	if key != "" {
		if sc.sheet.Config.FieldByKey(key) == nil {
			return q, errs.Invalidf("field", "The sheet has no field %q", key)
		}
		q.Filter, q.FilterField = "error", key
	}
	return q, nil
}

// gridBack is the grid's address with the form's view of it (tab, search, filter, sort…)
// and a notice.
func (sc *sheetCtx) gridBack(c *fiber.Ctx, notice string) string {
	v := url.Values{}
	for _, k := range []string{"filter", "search", "q", "field", "sort", "dir", "size", "hide", "cols"} {
		if s := c.FormValue(k); s != "" {
			v.Set(k, s)
		}
	}
	v.Set("notice", notice)
	return sc.base() + "?" + v.Encode()
}

// matching counts the records q selects, to the end.
func (h *Handler) matching(c *fiber.Ctx, sc *sheetCtx, q recordset.RecordQuery) (int64, error) {
	q.Page, q.CountCap = model.Page{Size: 1, Number: 1}, 0
	_, n, err := h.store.GetRecords(c.Context(), sc.u.AccountID, sc.sheet.ID, q, true)
	return n, err
}

// Matching handles GET …/matching with the grid's parameters: {"count": the records the
// grid shows, every page of them}, which "Select all matching rows" shows and sends back
// as what the user confirmed.
func (h *Handler) Matching(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	gp := readGridParams(c)
	q, err := sc.scope(gp.filter, gp.search, gp.q, gp.field)
	if err != nil {
		return err
	}
	n, err := h.matching(c, sc, q)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"count": n})
}

// selection is the rows a toolbar action applies to: the checked ones (ids), or with all=1
// every record the grid shows, whose count the user saw and confirmed (expect): when the
// records matching have changed since, nothing is done and the user is told.
type selection struct {
	q     recordset.RecordQuery
	ids   []string
	count int64
}

func (h *Handler) selection(c *fiber.Ctx, sc *sheetCtx) (*selection, error) {
	if c.FormValue("all") != "1" {
		var ids []string
		for _, b := range c.Request().PostArgs().PeekMulti("ids") {
			ids = append(ids, string(b))
		}
		if len(ids) == 0 {
			return nil, errs.Invalidf("ids", "Select the rows first").WithMsg("grid.select_rows", nil)
		}
		return &selection{q: recordset.RecordQuery{IDs: ids}, ids: ids, count: int64(len(ids))}, nil
	}
	q, err := gridScope(c, sc)
	if err != nil {
		return nil, err
	}
	expect, err := strconv.ParseInt(c.FormValue("expect"), 10, 64)
	if err != nil {
		return nil, errs.Invalidf("expect", "Say how many rows were confirmed (expect)")
	}
	n, err := h.matching(c, sc, q)
	if err != nil {
		return nil, err
	}
	if n != expect {
		return nil, errs.E(errs.Conflict, "expect", "The matching rows changed since they were selected (%d now, %d confirmed); select them again", n, expect).
			WithMsg("grid.matching_changed", map[string]any{"Count": n})
	}
	return &selection{q: q, count: n}, nil
}

// DeleteRows handles POST …/delete: the checked rows (ids) as one commit, or all matching
// rows (all=1, expect=N) a batch at a time; either is one change to undo.
func (h *Handler) DeleteRows(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := h.toolbarAllowed(c, sc); err != nil {
		return err
	}
	sel, err := h.selection(c, sc)
	if err != nil {
		return err
	}
	n := len(sel.ids)
	if sel.ids != nil {
		if _, err := h.store.DeleteRecords(c.Context(), sc.sheet.ID, sel.ids, sc.writeOpts("delete")); err != nil {
			return err
		}
	} else {
		res, err := h.store.DeleteWhere(c.Context(), sc.sheet.ID, sel.q, sc.writeOpts("delete"))
		if err != nil {
			return err
		}
		n = res.Count
	}
	return hxRedirect(c, sc.gridBack(c, "deleted:"+strconv.Itoa(n)))
}

// SetValue handles POST …/set (column, value, and the selection as for DeleteRows): the
// value (empty clears the cells) is written in that column of every selected record, read
// as the column's type like a paste, read-only records and cells left as they are, as one
// change to undo.
func (h *Handler) SetValue(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := h.toolbarAllowed(c, sc); err != nil {
		return err
	}
	key := c.FormValue("column")
	f := sc.sheet.Config.FieldByKey(key)
	if f == nil {
		return errs.Invalidf("column", "Choose a column").WithMsg("grid.choose_column", nil)
	}
	if f.Readonly {
		return errs.Invalidf("column", "Column %s is read-only", key).WithMsg("grid.column_readonly", nil)
	}
	sel, err := h.selection(c, sc)
	if err != nil {
		return err
	}
	cell := recordset.CellIn{Value: json.RawMessage("null"), HasValue: true}
	if v := c.FormValue("value"); v != "" {
		cell.Value, _ = json.Marshal(v)
	}
	res, err := h.store.BulkUpdate(c.Context(), sc.sheet.ID, sel.q, map[string]recordset.CellIn{key: cell}, sc.writeOpts("set"))
	if err != nil {
		return err
	}
	return hxRedirect(c, sc.gridBack(c, "set:"+strconv.Itoa(res.Count)))
}
