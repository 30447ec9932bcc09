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

// EnvironmentStore is what the environment handlers need.
type EnvironmentStore interface {
	CreateEnvironment(ctx context.Context, env *model.Environment, actor string) error
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
	ListEnvironments(ctx context.Context, accountID, envID string, p model.Page) ([]*model.Environment, int, error)
	UpdateEnvironment(ctx context.Context, accountID, id string, up store.EnvironmentUpdate, actor string) (*model.Environment, error)
	DeleteEnvironment(ctx context.Context, accountID, id, actor string) error
}

// Environments serves /v1/environments.
type Environments struct{ store EnvironmentStore }

// NewEnvironments returns the environment handlers.
func NewEnvironments(s EnvironmentStore) *Environments { return &Environments{store: s} }

type environmentJSON struct {
	ID                  string          `json:"id"`
	AccountID           string          `json:"accountId"`
	Name                string          `json:"name"`
	IsProd              bool            `json:"isProd"`
	GuestAuthentication []string        `json:"guestAuthentication"`
	Features            json.RawMessage `json:"features"`
	Metadata            json.RawMessage `json:"metadata"`
	TranslationsPath    string          `json:"translationsPath,omitempty"`
	Namespaces          []string        `json:"namespaces"`
	LanguageOverride    string          `json:"languageOverride,omitempty"`
	CreatedAt           Time            `json:"createdAt"`
	UpdatedAt           Time            `json:"updatedAt"`
}

func toEnvironmentJSON(e *model.Environment) environmentJSON {
	return environmentJSON{ID: e.ID, AccountID: e.AccountID, Name: e.Name, IsProd: e.IsProd, GuestAuthentication: nonEmptyList(e.GuestAuthentication),
		Features: e.Features, Metadata: e.Metadata, TranslationsPath: e.TranslationsPath, Namespaces: nonEmptyList(e.Namespaces),
		LanguageOverride: e.LanguageOverride, CreatedAt: Time(e.CreatedAt), UpdatedAt: Time(e.UpdatedAt)}
}

type environmentIn struct {
	Name                *string         `json:"name"`
	IsProd              *bool           `json:"isProd"`
	GuestAuthentication []string        `json:"guestAuthentication"`
	Metadata            json.RawMessage `json:"metadata"`
	TranslationsPath    *string         `json:"translationsPath"`
	Namespaces          []string        `json:"namespaces"`
	LanguageOverride    *string         `json:"languageOverride"`
}

func (in *environmentIn) validate() error {
	if in.Name != nil && strings.TrimSpace(*in.Name) == "" {
		return errs.Invalidf("name", "name cannot be empty")
	}
	for _, g := range in.GuestAuthentication {
		if g != "shared_link" && g != "magic_link" {
			return errs.Invalidf("guestAuthentication", "guestAuthentication values must be shared_link or magic_link, got %q", g)
		}
	}
	if err := rawObject("metadata", in.Metadata); err != nil {
		return err
	}
	if len(in.Metadata) > 0 {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(in.Metadata, &m)
		if v, ok := m["showSpaceInfo"]; ok && string(v) != "true" && string(v) != "false" {
			return errs.Invalidf("metadata.showSpaceInfo", "metadata.showSpaceInfo must be a boolean")
		}
		if v, ok := m["agentExtractors"]; ok {
			var exts []string
			if json.Unmarshal(v, &exts) != nil {
				return errs.Invalidf("metadata.agentExtractors", "metadata.agentExtractors is a list of file extensions an agent extracts, e.g. [\"xlsx\"]")
			}
		}
	}
	seen := map[string]bool{}
	for _, ns := range in.Namespaces {
		if strings.TrimSpace(ns) == "" {
			return errs.Invalidf("namespaces", "namespaces cannot contain empty names")
		}
		if seen[ns] {
			return errs.Invalidf("namespaces", "namespace %q is listed twice", ns)
		}
		seen[ns] = true
	}
	return nil
}

// List handles GET /v1/environments.
func (h *Environments) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	pg, err := page(c, 50, 1000)
	if err != nil {
		return err
	}
	envs, total, err := h.store.ListEnvironments(ctxOf(c), p.AccountID, p.EnvironmentID, pg)
	if err != nil {
		return err
	}
	out := make([]environmentJSON, 0, len(envs))
	for _, e := range envs {
		out = append(out, toEnvironmentJSON(e))
	}
	return c.JSON(fiber.Map{"data": out, "pagination": model.NewPagination(pg, total)})
}

// Create handles POST /v1/environments.
func (h *Environments) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in environmentIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Name == nil {
		return errs.Invalidf("name", "name is required")
	}
	if in.IsProd == nil {
		return errs.Invalidf("isProd", "isProd is required")
	}
	if err := in.validate(); err != nil {
		return err
	}
	env := &model.Environment{AccountID: p.AccountID, Name: strings.TrimSpace(*in.Name), IsProd: *in.IsProd, GuestAuthentication: in.GuestAuthentication,
		Metadata: in.Metadata, Namespaces: in.Namespaces}
	if in.TranslationsPath != nil {
		env.TranslationsPath = *in.TranslationsPath
	}
	if in.LanguageOverride != nil {
		env.LanguageOverride = *in.LanguageOverride
	}
	if err := h.store.CreateEnvironment(ctxOf(c), env, p.ActorID); err != nil {
		return err
	}
	return data(c, toEnvironmentJSON(env))
}

func (h *Environments) reachable(c *fiber.Ctx) (*auth.Principal, string, error) {
	p := PrincipalOf(c)
	id := c.Params("environmentId")
	if err := may(c, verbOf(c), place.EnvConfig(p.AccountID, id)); err != nil {
		return nil, "", errs.NotFoundf("environmentId", "Environment not found")
	}
	return p, id, nil
}

// Get handles GET /v1/environments/:environmentId.
func (h *Environments) Get(c *fiber.Ctx) error {
	p, id, err := h.reachable(c)
	if err != nil {
		return err
	}
	env, err := h.store.GetEnvironment(ctxOf(c), p.AccountID, id)
	if err != nil {
		return err
	}
	return data(c, toEnvironmentJSON(env))
}

// Update handles PATCH /v1/environments/:environmentId; like Flatfile it answers with a bare Environment.
func (h *Environments) Update(c *fiber.Ctx) error {
	p, id, err := h.reachable(c)
	if err != nil {
		return err
	}
	var in environmentIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	env, err := h.store.UpdateEnvironment(ctxOf(c), p.AccountID, id, store.EnvironmentUpdate{Name: in.Name, IsProd: in.IsProd,
		GuestAuthentication: in.GuestAuthentication, Metadata: in.Metadata, TranslationsPath: in.TranslationsPath,
		Namespaces: in.Namespaces, LanguageOverride: in.LanguageOverride}, p.ActorID)
	if err != nil {
		return err
	}
	return c.JSON(toEnvironmentJSON(env))
}

// Delete handles DELETE /v1/environments/:environmentId.
func (h *Environments) Delete(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	if err := h.store.DeleteEnvironment(ctxOf(c), p.AccountID, c.Params("environmentId"), p.ActorID); err != nil {
		return err
	}
	return success(c)
}
