package ui

import (
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// sheetViews lists the sheet's saved views: the user's own (My Views) and everyone's.
func (h *Handler) sheetViews(c *fiber.Ctx, sc *sheetCtx, p *views.SheetProps) error {
	list, _, err := h.store.ListViews(c.Context(), sc.sheet.ID, "", model.Page{Size: 100, Number: 1})
	if err != nil {
		return err
	}
	for _, v := range list {
		item := views.ViewItem{ID: v.ID, Name: v.Name, Mine: v.CreatedBy == sc.u.UserID}
		p.Views = append(p.Views, item)
	}
	return nil
}

// applyView redirects to the grid with a saved view's parameters.
func (h *Handler) applyView(c *fiber.Ctx, sc *sheetCtx, id string) error {
	v, err := h.store.GetView(c.Context(), sc.u.AccountID, id)
	if err != nil || v.SheetID != sc.sheet.ID {
		return errs.NotFoundf("view", "View not found")
	}
	var cfg viewConfig
	_ = json.Unmarshal(v.Config, &cfg)
	if len(cfg.ColumnWidths) > 0 {
		if err := h.store.SaveColumnWidths(c.Context(), sc.u.UserID, sc.sheet.ID, cfg.ColumnWidths); err != nil {
			return err
		}
	}
	gp := gridParams{filter: cfg.Filter, field: cfg.FilterField, search: cfg.SearchValue, q: cfg.Q, sort: cfg.SortField, dir: cfg.SortDir, size: gridPage}
	return c.Redirect(sc.base()+"?"+gp.values().Encode(), fiber.StatusSeeOther)
}

// SaveView handles POST …/views (name, and the grid's parameters): the current filter,
// search and sort become a saved view of the sheet.
func (h *Handler) SaveView(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" {
		return errs.Invalidf("name", "Give the view a name").WithMsg("grid.view_name_required", nil)
	}
	cfg := viewConfig{Filter: c.FormValue("filter"), FilterField: c.FormValue("field"), SearchValue: c.FormValue("search"), Q: c.FormValue("q"),
		SortField: c.FormValue("sort"), SortDir: c.FormValue("dir")}
	if cfg.Filter == "all" {
		cfg.Filter = ""
	}
	if cfg.ColumnWidths, err = h.store.GetColumnWidths(c.Context(), sc.u.UserID, sc.sheet.ID); err != nil {
		return err
	}
	raw, _ := json.Marshal(cfg)
	v := &store.View{AccountID: sc.u.AccountID, SheetID: sc.sheet.ID, Name: name, Config: raw, CreatedBy: sc.u.UserID}
	if err := h.store.SaveView(c.Context(), v); err != nil {
		return err
	}
	return hxRedirect(c, sc.base()+"?view="+v.ID)
}

// DeleteView handles POST …/views/:viewId/delete.
func (h *Handler) DeleteView(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	v, err := h.store.GetView(c.Context(), sc.u.AccountID, c.Params("viewId"))
	if err != nil || v.SheetID != sc.sheet.ID {
		return errs.NotFoundf("viewId", "View not found")
	}
	if err := h.store.DeleteView(c.Context(), sc.u.AccountID, v.ID); err != nil {
		return err
	}
	return hxRedirect(c, sc.base())
}
