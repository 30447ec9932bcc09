package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/theme"
	"github.com/sluice/sluice/views"
)

// Environment handles GET /admin/environment: its namespaces and showSpaceInfo.
func (h *Admin) Environment(c *fiber.Ctx) error {
	u, sh, env, err := h.page(c, "environment")
	if err != nil {
		return err
	}
	var meta struct {
		ShowSpaceInfo *bool `json:"showSpaceInfo"`
	}
	_ = json.Unmarshal(env.Metadata, &meta)
	p := views.AdminEnvironmentProps{Shell: sh, Name: env.Name, Prod: env.IsProd, Namespaces: strings.Join(env.Namespaces, ", "),
		ShowSpaceInfo: meta.ShowSpaceInfo == nil || *meta.ShowSpaceInfo, Saved: c.Query("saved") == "1", Brand: BrandOf(env.Metadata, nil)}
	keys, err := h.store.ListKeys(c.Context(), env.AccountID, env.ID, false)
	if err != nil {
		return err
	}
	for _, k := range keys {
		shown := k.Raw // publishable keys are public
		if k.Type == model.KeySecret {
			shown = k.Hint // stored as a hash: shown whole once, at rotation
		}
		p.Keys = append(p.Keys, views.AdminOption{Value: k.Type, Label: shown})
	}
	p.Embedding = "-" // the allowlist is the account's: account users only
	if u.EnvironmentID == "" {
		acc, err := h.store.GetAccount(c.Context(), u.AccountID)
		if err != nil {
			return err
		}
		p.Embedding = strings.Join(acc.EmbeddedDomains, "\n")
	}
	return Render(c, fiber.StatusOK, views.AdminEnvironmentPage(p))
}

// SaveEmbedding handles POST /admin/embedding (origins, one a line or comma-separated): the
// account's embedding allowlist (CORS and framing for the browser SDKs).
func (h *Admin) SaveEmbedding(c *fiber.Ctx) error {
	u, _, env, err := h.page(c, "environment")
	if err != nil {
		return err
	}
	if u.EnvironmentID != "" {
		return errs.E(errs.Forbidden, "origins", "The embedding allowlist is the account's: ask an account user")
	}
	list := strings.FieldsFunc(c.FormValue("origins"), func(r rune) bool { return r == '\n' || r == ',' || r == '\r' || r == ' ' })
	origins, err := api.Origins(list)
	if err != nil {
		return err
	}
	if _, err := h.store.UpdateAccount(c.Context(), u.AccountID, store.AccountUpdate{EmbeddedDomains: origins}); err != nil {
		return err
	}
	return hxRedirect(c, "/admin/environment?env="+env.ID+"&saved=1")
}

// SaveEnvironment handles POST /admin/environment (namespaces, showSpaceInfo).
func (h *Admin) SaveEnvironment(c *fiber.Ctx) error {
	u, _, env, err := h.page(c, "environment")
	if err != nil {
		return err
	}
	meta := map[string]any{}
	_ = json.Unmarshal(env.Metadata, &meta)
	meta["showSpaceInfo"] = c.FormValue("showSpaceInfo") == "true"
	meta["whiteLabel"] = map[string]any{"title": strings.TrimSpace(c.FormValue("brandTitle")), "hideLogo": c.FormValue("hideLogo") == "true"}
	raw, _ := json.Marshal(meta)
	var ns []string
	for _, n := range strings.Split(c.FormValue("namespaces"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			ns = append(ns, n)
		}
	}
	if ns == nil {
		ns = []string{}
	}
	if _, err := h.store.UpdateEnvironment(c.Context(), u.AccountID, env.ID, store.EnvironmentUpdate{Metadata: raw, Namespaces: ns}, u.UserID); err != nil {
		return err
	}
	return hxRedirect(c, "/admin/environment?env="+env.ID+"&saved=1")
}

// RotateKey handles POST /admin/environment/keys (type): a new key replaces the old one,
// which stops working at once; the new value is shown once.
func (h *Admin) RotateKey(c *fiber.Ctx) error {
	u, _, env, err := h.page(c, "environment")
	if err != nil {
		return err
	}
	k, err := h.store.RotateKey(c.Context(), u.AccountID, env.ID, c.FormValue("type"))
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.AdminSecretOnce(k.Raw, views.T(c.Context(), "admin.key_once")))
}

// Theme handles GET /admin/theme?space=: an editor for every theme key of a space with a
// live preview.
func (h *Admin) Theme(c *fiber.Ctx) error {
	u, sh, env, err := h.page(c, "theme")
	if err != nil {
		return err
	}
	spaces, _, err := h.store.ListSpaces(c.Context(), store.SpaceFilter{AccountID: u.AccountID, EnvironmentID: env.ID, Page: model.Page{Size: 200, Number: 1}})
	if err != nil {
		return err
	}
	p := views.AdminThemeProps{Shell: sh, Space: c.Query("space"), Saved: c.Query("saved") == "1"}
	for _, s := range spaces {
		p.Spaces = append(p.Spaces, views.AdminOption{Value: s.ID, Label: s.Name})
	}
	if p.Space == "" && len(spaces) > 0 {
		p.Space = spaces[0].ID
	}
	var current map[string]string
	if p.Space != "" {
		sp, err := h.store.GetSpace(c.Context(), u.AccountID, p.Space)
		if err == nil {
			err = may(c, auth.Read, sp)
		}
		if err != nil {
			return err
		}
		current, p.Refused = theme.Vars(sp.Metadata)
	}
	for _, k := range theme.Keys() {
		p.Keys = append(p.Keys, views.AdminThemeKey{Key: k, Var: theme.VarName(k), Value: current[theme.VarName(k)]})
	}
	return Render(c, fiber.StatusOK, views.AdminThemePage(p))
}

// SaveTheme handles POST /admin/theme (space, and a value per key): the space's
// metadata.theme.root and .table are replaced; invalid values are reported, not stored.
func (h *Admin) SaveTheme(c *fiber.Ctx) error {
	u, err := h.admin(c)
	if err != nil {
		return err
	}
	sp, err := h.store.GetSpace(c.Context(), u.AccountID, c.FormValue("space"))
	if err == nil {
		err = may(c, auth.Manage, sp)
	}
	if err != nil {
		return err
	}
	root, table := map[string]any{}, map[string]any{}
	for _, k := range theme.Keys() {
		v := strings.TrimSpace(c.FormValue(k))
		if v == "" {
			continue
		}
		group, path, _ := strings.Cut(k, ".")
		if group == "root" {
			root[path] = v
		} else {
			table[path] = v
		}
	}
	meta := map[string]any{}
	_ = json.Unmarshal(sp.Metadata, &meta)
	meta["theme"] = map[string]any{"root": root, "table": table}
	raw, _ := json.Marshal(meta)
	if _, refused := theme.Vars(raw); len(refused) > 0 {
		return errs.Invalidf("theme", "These values are not valid CSS for their key: %s", strings.Join(refused, ", ")).
			WithMsg("admin.theme_invalid", map[string]any{"Keys": strings.Join(refused, ", ")})
	}
	if _, err := h.store.UpdateSpace(c.Context(), u.AccountID, sp.ID, store.SpaceUpdate{Metadata: raw}, u.UserID, nil); err != nil {
		return err
	}
	return hxRedirect(c, fmt.Sprintf("/admin/theme?space=%s&saved=1", sp.ID))
}
