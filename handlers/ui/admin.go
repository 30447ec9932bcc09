package ui

import (
	"context"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
	"github.com/sluice/sluice/views"
)

// The admin pages: a live event log, a job monitor, guests with their links, personal access
// tokens, secrets (names only), environment settings and a space theme editor with a live
// preview. Account users are the admins; guests get 403.

// AdminStore is what the admin pages read and write.
type AdminStore interface {
	Settings() sqldb.Settings // the caps on names and widths
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
