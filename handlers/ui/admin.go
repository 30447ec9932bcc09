package ui

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/theme"
	"github.com/sluice/sluice/views"
)

// The admin pages: a live event log, a job monitor, guests with their links, personal access
// tokens, secrets (names only), environment settings and a space theme editor with a live
// preview. Account users are the admins; guests get 403.

// AdminStore is what the admin pages read and write.
type AdminStore interface {
	ListEvents(ctx context.Context, f store.EventFilter) ([]*model.Event, error)
	ListJobs(ctx context.Context, f store.JobFilter) ([]*model.Job, int, error)
	GetUser(ctx context.Context, id string) (*model.User, error)
	GetGuest(ctx context.Context, accountID, id string) (*store.Guest, error)
	ListGuests(ctx context.Context, accountID, envID, spaceID, email string) ([]*store.Guest, error)
	CreateGuests(ctx context.Context, gs []*store.Guest, actor string) error
	RemoveGuest(ctx context.Context, g *store.Guest, spaceID, actor string) error
	ListSpaces(ctx context.Context, f store.SpaceFilter) ([]*model.Space, int, error)
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	UpdateSpace(ctx context.Context, accountID, id string, up store.SpaceUpdate, actor string, check func(*model.Space) error) (*model.Space, error)
	CreatePAT(ctx context.Context, u *model.User, name string, ttl time.Duration) (*store.PersonalAccessToken, string, error)
	ListPATs(ctx context.Context, userID string) ([]*store.PersonalAccessToken, error)
	DeletePAT(ctx context.Context, userID, id string) error
	ListSecrets(ctx context.Context, f store.SecretFilter) ([]*store.Secret, error)
	UpsertSecret(ctx context.Context, s *store.Secret) error
	DeleteSecret(ctx context.Context, accountID, id string, check func(*store.Secret) error) (*store.Secret, error)
	ListEnvironments(ctx context.Context, accountID, envID string, p model.Page) ([]*model.Environment, int, error)
	ListAudit(ctx context.Context, f store.AuditFilter) ([]*store.AuditEntry, error)
	GetAccount(ctx context.Context, id string) (*model.Account, error)
	UpdateAccount(ctx context.Context, id string, up store.AccountUpdate) (*model.Account, error)
	UpdateEnvironment(ctx context.Context, accountID, id string, up store.EnvironmentUpdate, actor string) (*model.Environment, error)
	AgentAdminStore
	ListKeys(ctx context.Context, accountID, envID string, reveal bool) ([]*model.APIKey, error)
	RotateKey(ctx context.Context, accountID, envID, typ string) (*model.APIKey, error)
}

// Admin serves /admin.
type Admin struct {
	store   AdminStore
	tokens  *auth.Tokens
	sealer  *auth.Sealer
	baseURL string
}

// NewAdmin returns the admin pages.
func NewAdmin(s AdminStore, t *auth.Tokens, sealer *auth.Sealer, baseURL string) *Admin {
	return &Admin{store: s, tokens: t, sealer: sealer, baseURL: strings.TrimRight(baseURL, "/")}
}

// admin lets account users through; guests get 403.
func (h *Admin) admin(c *fiber.Ctx) (SessionUser, error) {
	u := userOf(c)
	return u, staffOnly(u)
}

// environment is the admin's environment: ?env= or the account's first.
func (h *Admin) environment(c *fiber.Ctx, u SessionUser) (*model.Environment, []*model.Environment, error) {
	envs, _, err := h.store.ListEnvironments(c.Context(), u.AccountID, u.EnvironmentID, model.Page{Size: 100, Number: 1})
	if err != nil {
		return nil, nil, err
	}
	if len(envs) == 0 {
		return nil, nil, errs.NotFoundf("environmentId", "No environment")
	}
	for _, e := range envs {
		if e.ID == c.Query("env", c.FormValue("env")) {
			return e, envs, nil
		}
	}
	return envs[0], envs, nil
}

// page is every admin handler's start: an account user, the environment and the shell.
func (h *Admin) page(c *fiber.Ctx, section string) (SessionUser, views.AdminShell, *model.Environment, error) {
	u, err := h.admin(c)
	if err != nil {
		return u, views.AdminShell{}, nil, err
	}
	sh, env, err := h.shell(c, u, section)
	return u, sh, env, err
}

func (h *Admin) shell(c *fiber.Ctx, u SessionUser, section string) (views.AdminShell, *model.Environment, error) {
	env, envs, err := h.environment(c, u)
	if err != nil {
		return views.AdminShell{}, nil, err
	}
	sh := views.AdminShell{Section: section, EnvID: env.ID, EnvName: env.Name}
	for _, e := range envs {
		sh.Environments = append(sh.Environments, views.AdminOption{Value: e.ID, Label: e.Name})
	}
	return sh, env, nil
}

// actorName resolves an actor id to a person's name or e-mail.
func (h *Admin) actorName(ctx context.Context, accountID, id string, cache map[string]string) string {
	if id == "" {
		return ""
	}
	if n, ok := cache[id]; ok {
		return n
	}
	name := id
	switch {
	case strings.HasPrefix(id, store.PrefixUser):
		if u, err := h.store.GetUser(ctx, id); err == nil {
			name = cmp.Or(u.Name, u.Email)
		}
	case strings.HasPrefix(id, "us_g_"):
		if g, err := h.store.GetGuest(ctx, accountID, id); err == nil {
			name = cmp.Or(g.Name, g.Email) + " (guest)"
		}
	}
	cache[id] = name
	return name
}

// Events handles GET /admin/events (topic, space, actor): the newest events, polled live.
func (h *Admin) Events(c *fiber.Ctx) error {
	u, sh, env, err := h.page(c, "events")
	if err != nil {
		return err
	}
	f := store.EventFilter{AccountID: u.AccountID, EnvironmentID: env.ID, Topic: c.Query("topic"), SpaceID: c.Query("space"), ActorID: c.Query("actor"),
		IncludeAcknowledged: true, Newest: true, Page: model.Page{Size: 100, Number: 1}}
	evs, err := h.store.ListEvents(c.Context(), f)
	if err != nil {
		return err
	}
	p := views.AdminEventsProps{Shell: sh, Topic: f.Topic, Space: f.SpaceID, Actor: f.ActorID}
	names := map[string]string{}
	for _, ev := range evs {
		payload := string(ev.Payload)
		if len(payload) > 160 {
			payload = payload[:160] + "…"
		}
		p.Rows = append(p.Rows, views.AdminEvent{ID: ev.ID, Topic: ev.Topic, Domain: ev.Domain, Space: ev.Context.SpaceID, Sheet: ev.Context.SheetID,
			Actor: h.actorName(c.Context(), u.AccountID, ev.Context.ActorID, names), ActorID: ev.Context.ActorID, At: ev.CreatedAt.UTC().Format("15:04:05"),
			Payload: payload})
	}
	if IsHTMX(c) && c.Query("partial") == "1" {
		return Render(c, fiber.StatusOK, views.AdminEventRows(p))
	}
	return Render(c, fiber.StatusOK, views.AdminEventsPage(p))
}

// Audit handles GET /admin/audit?actor=&area=&q=&days=: the audit trail of administrative
// changes, newest first; for account users only (an environment's user sees nothing of the
// account's trail).
func (h *Admin) Audit(c *fiber.Ctx) error {
	u, sh, _, err := h.page(c, "audit")
	if err != nil {
		return err
	}
	if u.EnvironmentID != "" {
		return errs.E(errs.Forbidden, "audit", "The audit trail is for account users")
	}
	f := store.AuditFilter{AccountID: u.AccountID, ActorID: c.Query("actor"), Area: c.Query("area"), Search: c.Query("q"), Page: model.Page{Size: 200, Number: 1}}
	p := views.AdminAuditProps{Shell: sh, Actor: f.ActorID, Area: f.Area, Search: f.Search, Days: c.Query("days")}
	if n, err := strconv.Atoi(p.Days); err == nil && n > 0 {
		since := time.Now().Add(-time.Duration(n) * 24 * time.Hour)
		f.Since = &since
	}
	list, err := h.store.ListAudit(c.Context(), f)
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, a := range list {
		p.Rows = append(p.Rows, views.AdminAuditRow{At: a.CreatedAt.UTC().Format("2006-01-02 15:04:05"), Actor: h.actorName(c.Context(), u.AccountID, a.ActorID, names),
			ActorID: a.ActorID, Kind: a.ActorKind, Addr: a.ClientAddr, Area: a.Area, Action: a.Action, Target: a.Target, Status: a.Status, Details: a.Details})
	}
	return Render(c, fiber.StatusOK, views.AdminAuditPage(p))
}

// Jobs handles GET /admin/jobs: the newest jobs with their status and progress, polled live.
func (h *Admin) Jobs(c *fiber.Ctx) error {
	u, sh, env, err := h.page(c, "jobs")
	if err != nil {
		return err
	}
	list, total, err := h.store.ListJobs(c.Context(), store.JobFilter{AccountID: u.AccountID, EnvironmentID: env.ID, SortDesc: true, Page: model.Page{Size: 100, Number: 1}})
	if err != nil {
		return err
	}
	spaces, _, err := h.store.ListSpaces(c.Context(), store.SpaceFilter{AccountID: u.AccountID, EnvironmentID: env.ID, Archived: true, Page: model.Page{Size: 500, Number: 1}})
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, s := range spaces {
		names[s.ID] = s.Name
	}
	p := views.AdminJobsProps{Shell: sh, Total: total}
	for _, j := range list {
		var out struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(j.Outcome, &out)
		p.Rows = append(p.Rows, views.AdminJob{ID: j.ID, Name: jobName(c.Context(), j), Raw: j.Name(), Status: j.Status, Progress: int(j.Progress),
			Info: cmp.Or(jobMessage(c.Context(), out.Message), sdkText(c.Context(), j.Info)), Space: j.SpaceID, SpaceName: cmp.Or(names[j.SpaceID], j.SpaceID), Finished: j.Finished(),
			Created: j.CreatedAt.UTC().Format("2006-01-02 15:04:05")})
	}
	if IsHTMX(c) && c.Query("partial") == "1" {
		return Render(c, fiber.StatusOK, views.AdminJobRows(p))
	}
	return Render(c, fiber.StatusOK, views.AdminJobsPage(p))
}

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
