package api

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// ViewStore is what the view handlers need.
type ViewStore interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	GetSheet(ctx context.Context, accountID, id string) (*model.Sheet, *model.Workbook, error)
	SaveView(ctx context.Context, v *store.View) error
	GetView(ctx context.Context, accountID, id string) (*store.View, error)
	ListViews(ctx context.Context, sheetID, createdBy string, p model.Page) ([]*store.View, int, error)
	DeleteView(ctx context.Context, accountID, id string) error
}

// Views serves /v1/views: saved filters, sorting and search of a sheet.
type Views struct{ store ViewStore }

// NewViews returns the view handlers.
func NewViews(s ViewStore) *Views { return &Views{store: s} }

type viewJSON struct {
	ID        string          `json:"id"`
	SheetID   string          `json:"sheetId"`
	Name      string          `json:"name"`
	Config    json.RawMessage `json:"config"`
	CreatedBy string          `json:"createdBy"`
}

func toViewJSON(v *store.View) viewJSON {
	return viewJSON{ID: v.ID, SheetID: v.SheetID, Name: v.Name, Config: v.Config, CreatedBy: v.CreatedBy}
}

// sheet checks the principal reaches the sheet.
func (h *Views) sheet(c *fiber.Ctx, p *auth.Principal, id string) error {
	if id == "" {
		return errs.Invalidf("sheetId", "sheetId is required")
	}
	_, w, err := h.store.GetSheet(ctxOf(c), p.AccountID, id)
	if err != nil {
		return err
	}
	return may(c, verbOf(c), place.Sheet(w, id))
}

// List handles GET /v1/views?sheetId=&pageSize=&pageNumber= (createdBy narrows to one
// person's views: "My Views"; without it, "All Views").
func (h *Views) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	if err := h.sheet(c, p, c.Query("sheetId")); err != nil {
		return err
	}
	pg, err := page(c, 20, 1000)
	if err != nil {
		return err
	}
	createdBy := c.Query("createdBy")
	if createdBy == "me" {
		createdBy = p.ActorID
	}
	list, total, err := h.store.ListViews(ctxOf(c), c.Query("sheetId"), createdBy, pg)
	if err != nil {
		return err
	}
	out := make([]viewJSON, 0, len(list))
	for _, v := range list {
		out = append(out, toViewJSON(v))
	}
	return c.JSON(fiber.Map{"data": out, "pagination": model.NewPagination(pg, total)})
}

type viewIn struct {
	SheetID string          `json:"sheetId"`
	Name    *string         `json:"name"`
	Config  json.RawMessage `json:"config"`
}

// Create handles POST /v1/views {sheetId, name, config}.
func (h *Views) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in viewIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return errs.Invalidf("name", "name is required")
	}
	if len(in.Config) == 0 {
		return errs.Invalidf("config", "config is required (the records query: filter, q, sortField…)")
	}
	if err := rawObject("config", in.Config); err != nil {
		return err
	}
	if err := h.sheet(c, p, in.SheetID); err != nil {
		return err
	}
	v := &store.View{AccountID: p.AccountID, SheetID: in.SheetID, Name: *in.Name, Config: in.Config, CreatedBy: p.ActorID}
	if err := h.store.SaveView(ctxOf(c), v); err != nil {
		return err
	}
	return data(c, toViewJSON(v))
}

func (h *Views) view(c *fiber.Ctx) (*store.View, error) {
	p := PrincipalOf(c)
	v, err := h.store.GetView(ctxOf(c), p.AccountID, c.Params("viewId"))
	if err != nil {
		return nil, err
	}
	if err := h.sheet(c, p, v.SheetID); err != nil {
		return nil, err
	}
	return v, nil
}

// Get handles GET /v1/views/:viewId.
func (h *Views) Get(c *fiber.Ctx) error {
	v, err := h.view(c)
	if err != nil {
		return err
	}
	return data(c, toViewJSON(v))
}

// Update handles PATCH /v1/views/:viewId {name?, config}.
func (h *Views) Update(c *fiber.Ctx) error {
	v, err := h.view(c)
	if err != nil {
		return err
	}
	var in viewIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if err := rawObject("config", in.Config); err != nil {
		return err
	}
	if in.Name != nil {
		if strings.TrimSpace(*in.Name) == "" {
			return errs.Invalidf("name", "name cannot be empty")
		}
		v.Name = *in.Name
	}
	if len(in.Config) > 0 {
		v.Config = in.Config
	}
	if err := h.store.SaveView(ctxOf(c), v); err != nil {
		return err
	}
	return data(c, toViewJSON(v))
}

// Delete handles DELETE /v1/views/:viewId.
func (h *Views) Delete(c *fiber.Ctx) error {
	v, err := h.view(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteView(ctxOf(c), v.AccountID, v.ID); err != nil {
		return err
	}
	return success(c)
}
