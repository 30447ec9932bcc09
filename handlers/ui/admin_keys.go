package ui

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// Tokens handles GET /admin/tokens: the signed-in user's personal access tokens.
func (h *Admin) Tokens(c *fiber.Ctx) error {
	u, sh, _, err := h.page(c, "tokens")
	if err != nil {
		return err
	}
	list, err := h.store.ListPATs(c.Context(), u.UserID)
	if err != nil {
		return err
	}
	p := views.AdminTokensProps{Shell: sh}
	for _, t := range list {
		row := views.AdminToken{ID: t.ID, Name: t.Name, Created: t.CreatedAt.UTC().Format("2006-01-02 15:04"), LastUsed: "—"}
		if t.LastUsedAt != nil {
			row.LastUsed = t.LastUsedAt.UTC().Format("2006-01-02 15:04")
		}
		p.Rows = append(p.Rows, row)
	}
	return Render(c, fiber.StatusOK, views.AdminTokensPage(p))
}

// CreateToken handles POST /admin/tokens (name): the value is shown once.
func (h *Admin) CreateToken(c *fiber.Ctx) error {
	u, err := h.admin(c)
	if err != nil {
		return err
	}
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" {
		return errs.Invalidf("name", "Name the token").WithMsg("admin.token_name", nil)
	}
	user, err := h.store.GetUser(c.Context(), u.UserID)
	if err != nil {
		return err
	}
	_, raw, err := h.store.CreatePAT(c.Context(), user, name, 0)
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.AdminSecretOnce(raw, views.T(c.Context(), "admin.token_once")))
}

// DeleteToken handles POST /admin/tokens/:tokenId/delete: revoked at once.
func (h *Admin) DeleteToken(c *fiber.Ctx) error {
	u, err := h.admin(c)
	if err != nil {
		return err
	}
	if err := h.store.DeletePAT(c.Context(), u.UserID, c.Params("tokenId")); err != nil {
		return err
	}
	return hxRedirect(c, "/admin/tokens")
}

// Secrets handles GET /admin/secrets: names and scopes, never values.
func (h *Admin) Secrets(c *fiber.Ctx) error {
	u, sh, env, err := h.page(c, "secrets")
	if err != nil {
		return err
	}
	list, err := h.store.ListSecrets(c.Context(), store.SecretFilter{AccountID: u.AccountID, EnvironmentID: env.ID})
	if err != nil {
		return err
	}
	p := views.AdminSecretsProps{Shell: sh}
	for _, s := range list {
		p.Rows = append(p.Rows, views.AdminSecret{ID: s.ID, Name: s.Name, Space: s.SpaceID, Actor: s.ActorID, Updated: s.UpdatedAt.UTC().Format("2006-01-02 15:04")})
	}
	return Render(c, fiber.StatusOK, views.AdminSecretsPage(p))
}

// SaveSecret handles POST /admin/secrets (name, value, space?): sealed at rest.
func (h *Admin) SaveSecret(c *fiber.Ctx) error {
	u, _, env, err := h.page(c, "secrets")
	if err != nil {
		return err
	}
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" || c.FormValue("value") == "" {
		return errs.Invalidf("name", "A secret needs a name and a value").WithMsg("admin.secret_required", nil)
	}
	if id := c.FormValue("space"); id != "" {
		if err := h.spaceOfEnv(c, env, id); err != nil {
			return err
		}
	}
	s := &store.Secret{AccountID: u.AccountID, EnvironmentID: env.ID, SpaceID: c.FormValue("space"), Name: name, Sealed: h.sealer.Seal([]byte(c.FormValue("value")))}
	if err := h.store.UpsertSecret(c.Context(), s); err != nil {
		return err
	}
	return hxRedirect(c, "/admin/secrets?env="+env.ID)
}

// DeleteSecret handles POST /admin/secrets/:secretId/delete.
func (h *Admin) DeleteSecret(c *fiber.Ctx) error {
	u, err := h.admin(c)
	if err != nil {
		return err
	}
	s, err := h.store.DeleteSecret(c.Context(), u.AccountID, c.Params("secretId"), func(s *store.Secret) error { return may(c, auth.Write, s) })
	if err != nil {
		return err
	}
	return hxRedirect(c, "/admin/secrets?env="+s.EnvironmentID)
}
