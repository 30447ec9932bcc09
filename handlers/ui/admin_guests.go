package ui

import (
	"cmp"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// Guests handles GET /admin/guests.
func (h *Admin) Guests(c *fiber.Ctx) error {
	u, sh, env, err := h.page(c, "guests")
	if err != nil {
		return err
	}
	gs, err := h.store.ListGuests(c.Context(), u.AccountID, env.ID, "", "")
	if err != nil {
		return err
	}
	spaces, _, err := h.store.ListSpaces(c.Context(), store.SpaceFilter{AccountID: u.AccountID, EnvironmentID: env.ID, Page: model.Page{Size: 200, Number: 1}})
	if err != nil {
		return err
	}
	p := views.AdminGuestsProps{Shell: sh}
	names := map[string]string{}
	for _, s := range spaces {
		names[s.ID] = s.Name
		p.Spaces = append(p.Spaces, views.AdminOption{Value: s.ID, Label: s.Name})
	}
	for _, g := range gs {
		row := views.AdminGuest{ID: g.ID, Name: g.Name, Email: g.Email}
		for _, sp := range g.Spaces {
			row.Spaces = append(row.Spaces, views.AdminOption{Value: sp, Label: cmp.Or(names[sp], sp)})
		}
		p.Rows = append(p.Rows, row)
	}
	return Render(c, fiber.StatusOK, views.AdminGuestsPage(p))
}

// AddGuest handles POST /admin/guests (email, name, space).
func (h *Admin) AddGuest(c *fiber.Ctx) error {
	u, _, env, err := h.page(c, "guests")
	if err != nil {
		return err
	}
	email, spaceID := strings.TrimSpace(c.FormValue("email")), c.FormValue("space")
	if !strings.Contains(email, "@") {
		return errs.Invalidf("email", "Enter the guest's e-mail address").WithMsg("admin.guest_email", nil)
	}
	if err := h.spaceOfEnv(c, env, spaceID); err != nil {
		return err
	}
	g := &store.Guest{AccountID: u.AccountID, EnvironmentID: env.ID, Email: email, Name: strings.TrimSpace(c.FormValue("name")), Spaces: []string{spaceID}}
	if err := h.store.CreateGuests(c.Context(), []*store.Guest{g}, u.UserID); err != nil {
		return err
	}
	return hxRedirect(c, "/admin/guests?env="+env.ID)
}

// GuestLink handles POST /admin/guests/:guestId/link (space): a fresh guest link, shown once.
func (h *Admin) GuestLink(c *fiber.Ctx) error {
	u, err := h.admin(c)
	if err != nil {
		return err
	}
	g, err := h.store.GetGuest(c.Context(), u.AccountID, c.Params("guestId"))
	if err == nil {
		err = may(c, auth.Write, g)
	}
	if err != nil {
		return err
	}
	spaceID := c.FormValue("space")
	if !g.Granted(spaceID) {
		return errs.Invalidf("space", "The guest has no access to that space")
	}
	if err := h.spaceOfEnv(c, &model.Environment{ID: g.EnvironmentID}, spaceID); err != nil {
		return err
	}
	tok, exp, err := h.tokens.Issue(&auth.Principal{Kind: auth.GuestToken, AccountID: g.AccountID, EnvironmentID: g.EnvironmentID, SpaceID: spaceID, Email: g.Email, ActorID: g.ID})
	if err != nil {
		return err
	}
	link := h.baseURL + "/space/" + spaceID + "?token=" + tok
	return Render(c, fiber.StatusOK, views.AdminSecretOnce(link, views.Tf(c.Context(), "admin.link_expires", map[string]any{"At": exp.UTC().Format("2006-01-02 15:04 UTC")})))
}

// RemoveGuest handles POST /admin/guests/:guestId/remove: access ends at once.
func (h *Admin) RemoveGuest(c *fiber.Ctx) error {
	u, err := h.admin(c)
	if err != nil {
		return err
	}
	g, err := h.store.GetGuest(c.Context(), u.AccountID, c.Params("guestId"))
	if err == nil {
		err = may(c, auth.Write, g)
	}
	if err != nil {
		return err
	}
	if err := h.store.RemoveGuest(c.Context(), g, "", u.UserID); err != nil {
		return err
	}
	return hxRedirect(c, "/admin/guests?env="+g.EnvironmentID)
}

// spaceOfEnv checks a space named by a form: one the admin may manage, in environment env.
func (h *Admin) spaceOfEnv(c *fiber.Ctx, env *model.Environment, spaceID string) error {
	sp, err := h.store.GetSpace(c.Context(), userOf(c).AccountID, spaceID)
	if err == nil {
		err = may(c, auth.Manage, sp)
	}
	if err == nil && sp.EnvironmentID != env.ID {
		err = errs.NotFoundf("space", "Space not found in this environment")
	}
	return err
}
