package api

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// SpaceStore is what the space handlers need.
type SpaceStore interface {
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
	CreateSpace(ctx context.Context, s *model.Space, actor string) error
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	ListSpaces(ctx context.Context, f store.SpaceFilter) ([]*model.Space, int, error)
	UpdateSpace(ctx context.Context, accountID, id string, up store.SpaceUpdate, actor string, check func(*model.Space) error) (*model.Space, error)
	SetSpaceArchived(ctx context.Context, accountID, id string, archived bool, actor string) (*model.Space, error)
	DeleteSpace(ctx context.Context, accountID, id, actor string) error
}

// Spaces serves /v1/spaces.
type Spaces struct {
	store  SpaceStore
	tokens *auth.Tokens
}

// NewSpaces returns the space handlers.
func NewSpaces(s SpaceStore, t *auth.Tokens) *Spaces { return &Spaces{store: s, tokens: t} }

type spaceJSON struct {
	ID                  string          `json:"id"`
	Name                string          `json:"name"`
	EnvironmentID       string          `json:"environmentId"`
	AppID               string          `json:"appId,omitempty"`
	Namespace           string          `json:"namespace,omitempty"`
	IsAppTemplate       bool            `json:"isAppTemplate"`
	Metadata            json.RawMessage `json:"metadata"`
	Settings            json.RawMessage `json:"settings"`
	Actions             json.RawMessage `json:"actions"`
	Access              []string        `json:"access"`
	Labels              []string        `json:"labels"`
	GuestAuthentication []string        `json:"guestAuthentication"`
	AutoConfigure       bool            `json:"autoConfigure"`
	PrimaryWorkbookID   string          `json:"primaryWorkbookId,omitempty"`
	TranslationsPath    string          `json:"translationsPath,omitempty"`
	LanguageOverride    string          `json:"languageOverride,omitempty"`
	DisplayOrder        *int            `json:"displayOrder,omitempty"`
	CreatedByUserID     string          `json:"createdByUserId,omitempty"`
	CreatedByUserName   string          `json:"createdByUserName,omitempty"`
	WorkbooksCount      int             `json:"workbooksCount"`
	FilesCount          int             `json:"filesCount"`
	ArchivedAt          *Time           `json:"archivedAt"`
	LastActivityAt      *Time           `json:"lastActivityAt,omitempty"`
	AccessToken         string          `json:"accessToken,omitempty"`
	GuestLink           string          `json:"guestLink,omitempty"` // the embedded importer's page, with its token
	CreatedAt           Time            `json:"createdAt"`
	UpdatedAt           Time            `json:"updatedAt"`
}

func toSpaceJSON(s *model.Space) spaceJSON {
	return spaceJSON{ID: s.ID, Name: s.Name, EnvironmentID: s.EnvironmentID, AppID: s.AppID, Namespace: s.Namespace, IsAppTemplate: s.IsAppTemplate,
		Metadata: s.Metadata, Settings: s.Settings, Actions: s.Actions, Access: nonEmptyList(s.Access), Labels: nonEmptyList(s.Labels),
		GuestAuthentication: nonEmptyList(s.GuestAuthentication), AutoConfigure: s.AutoConfigure, PrimaryWorkbookID: s.PrimaryWorkbookID,
		TranslationsPath: s.TranslationsPath, LanguageOverride: s.LanguageOverride, DisplayOrder: s.DisplayOrder,
		CreatedByUserID: s.CreatedByUserID, CreatedByUserName: s.CreatedByUserName, WorkbooksCount: s.WorkbooksCount, FilesCount: s.FilesCount,
		ArchivedAt: wireTime(s.ArchivedAt), LastActivityAt: wireTime(s.LastActivityAt), CreatedAt: Time(s.CreatedAt), UpdatedAt: Time(s.UpdatedAt)}
}

// spaceIn is the SpaceConfig body of create and update.
type spaceIn struct {
	Name                *string         `json:"name"`
	EnvironmentID       string          `json:"environmentId"`
	AppID               *string         `json:"appId"`
	Namespace           *string         `json:"namespace"`
	IsAppTemplate       *bool           `json:"isAppTemplate"`
	Metadata            json.RawMessage `json:"metadata"`
	Settings            json.RawMessage `json:"settings"`
	Actions             json.RawMessage `json:"actions"`
	Access              []string        `json:"access"`
	Labels              []string        `json:"labels"`
	GuestAuthentication []string        `json:"guestAuthentication"`
	AutoConfigure       *bool           `json:"autoConfigure"`
	PrimaryWorkbookID   *string         `json:"primaryWorkbookId"`
	TranslationsPath    *string         `json:"translationsPath"`
	LanguageOverride    *string         `json:"languageOverride"`
	DisplayOrder        *int            `json:"displayOrder"`
	ArchivedAt          OptTime         `json:"archivedAt"`
}

func (in *spaceIn) validate() error {
	if err := rawObject("metadata", in.Metadata); err != nil {
		return err
	}
	if err := rawObject("settings", in.Settings); err != nil {
		return err
	}
	if err := rawArray("actions", in.Actions); err != nil {
		return err
	}
	for _, a := range in.Access {
		if a != "*" && a != "upload" {
			return errs.Invalidf("access", "access values must be * or upload, got %q", a)
		}
	}
	for _, g := range in.GuestAuthentication {
		if g != "shared_link" && g != "magic_link" {
			return errs.Invalidf("guestAuthentication", "guestAuthentication values must be shared_link or magic_link, got %q", g)
		}
	}
	return nil
}

// CheckNamespace enforces that a space's namespace is one of its environment's namespaces
// when the environment defines any.
func CheckNamespace(env *model.Environment, ns string) error {
	if ns == "" || len(env.Namespaces) == 0 || env.HasNamespace(ns) {
		return nil
	}
	return errs.Invalidf("namespace", "Namespace %q is not one of the environment's namespaces (%s)", ns, strings.Join(env.Namespaces, ", "))
}

// withToken adds the space's access token to its JSON for those a space token is for: a fresh
// one for the key or user that owns the environment, a space token's own (not renewed: it ends
// when it expires). Guests and clip links get none: their access is their grant's.
func (h *Spaces) withToken(c *fiber.Ctx, p *auth.Principal, s *model.Space) (spaceJSON, error) {
	out := toSpaceJSON(s)
	var err error
	switch auth.ClassOf(p) {
	case auth.ClassSecretKey, auth.ClassAccountUser, auth.ClassEnvUser, auth.ClassPublishable:
		out.AccessToken, _, err = h.tokens.Issue(&auth.Principal{Kind: auth.SpaceToken, AccountID: s.AccountID, EnvironmentID: s.EnvironmentID, SpaceID: s.ID, ActorID: p.ActorID})
	case auth.ClassSpace:
		out.AccessToken = bearerOf(c)
	}
	return out, err
}

// Create handles POST /v1/spaces. A publishable key may call it; the answer carries an access
// token scoped to the new space.
func (h *Spaces) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in spaceIn
	if err := bind(c, &in); err != nil {
		return err
	}
	s, err := h.newSpace(ctxOf(c), p, &in)
	if err != nil {
		return err
	}
	if err := h.store.CreateSpace(ctxOf(c), s, p.ActorID); err != nil {
		return err
	}
	out, err := h.withToken(c, p, s)
	if err != nil {
		return err
	}
	return data(c, out)
}

// newSpace checks a space's input and builds it in the principal's environment.
func (h *Spaces) newSpace(ctx context.Context, p *auth.Principal, in *spaceIn) (*model.Space, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	if err := checkAppClaim(p, in); err != nil {
		return nil, err
	}
	envID, err := environmentScope(p, in.EnvironmentID)
	if err != nil {
		return nil, err
	}
	if envID == "" {
		return nil, errs.Invalidf("environmentId", "environmentId is required")
	}
	env, err := h.store.GetEnvironment(ctx, p.AccountID, envID)
	if err != nil {
		return nil, err
	}
	s := &model.Space{AccountID: p.AccountID, EnvironmentID: env.ID, Metadata: in.Metadata, Settings: in.Settings, Actions: in.Actions,
		Access: in.Access, Labels: in.Labels, GuestAuthentication: in.GuestAuthentication, DisplayOrder: in.DisplayOrder,
		CreatedByUserID: p.UserID, CreatedByUserName: p.Email, ArchivedAt: in.ArchivedAt.Value}
	applySpaceStrings(s, in)
	if err := CheckNamespace(env, s.Namespace); err != nil {
		return nil, err
	}
	return s, nil
}

func applySpaceStrings(s *model.Space, in *spaceIn) {
	for dst, v := range map[*string]*string{&s.Name: in.Name, &s.AppID: in.AppID, &s.Namespace: in.Namespace, &s.PrimaryWorkbookID: in.PrimaryWorkbookID,
		&s.TranslationsPath: in.TranslationsPath, &s.LanguageOverride: in.LanguageOverride} {
		if v != nil {
			*dst = *v
		}
	}
	if in.IsAppTemplate != nil {
		s.IsAppTemplate = *in.IsAppTemplate
	}
	if in.AutoConfigure != nil {
		s.AutoConfigure = *in.AutoConfigure
	}
}

// List handles GET /v1/spaces.
func (h *Spaces) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	if p.SpaceID != "" {
		return forbidden("A space token may not list spaces")
	}
	f, err := spaceFilter(c, p)
	if err != nil {
		return err
	}
	spaces, total, err := h.store.ListSpaces(ctxOf(c), f)
	if err != nil {
		return err
	}
	out := make([]spaceJSON, 0, len(spaces))
	for _, s := range spaces {
		out = append(out, toSpaceJSON(s))
	}
	return c.JSON(fiber.Map{"data": out, "pagination": model.NewPagination(f.Page, total)})
}

func spaceFilter(c *fiber.Ctx, p *auth.Principal) (store.SpaceFilter, error) {
	f := store.SpaceFilter{AccountID: p.AccountID, Search: c.Query("search"), SortField: c.Query("sortField")}
	var err error
	if f.EnvironmentID, err = environmentScope(p, c.Query("environmentId")); err != nil {
		return f, err
	}
	if f.Page, err = page(c, 10, 1000); err != nil {
		return f, err
	}
	if f.SortField != "" && !store.SpaceSortable(f.SortField) {
		return f, errs.Invalidf("sortField", "Cannot sort spaces by %q", f.SortField)
	}
	if f.SortDesc, err = sortDesc(c); err != nil {
		return f, err
	}
	for _, key := range []string{"appId", "app"} {
		if has(c, key) && c.Query(key) != "" {
			v := c.Query(key)
			f.AppID = &v
		}
	}
	if has(c, "namespace") {
		v := c.Query("namespace")
		f.Namespace = &v
	}
	if f.IsAppTemplate, err = queryBool(c, "isAppTemplate"); err != nil {
		return f, err
	}
	archived, err := queryBool(c, "archived")
	if err != nil {
		return f, err
	}
	f.Archived = archived != nil && *archived
	return f, nil
}

// space loads the path's space for verb v.
func (h *Spaces) space(c *fiber.Ctx, v auth.Verb) (*auth.Principal, *model.Space, error) {
	s, err := spaceOf(c, h.store, v, c.Params("spaceId"))
	return PrincipalOf(c), s, err
}

// Get handles GET /v1/spaces/:spaceId (also served at /spaces/:spaceId).
func (h *Spaces) Get(c *fiber.Ctx) error {
	p, s, err := h.space(c, auth.Read)
	if err != nil {
		return err
	}
	out, err := h.withToken(c, p, s)
	if err != nil {
		return err
	}
	return data(c, out)
}

// Update handles PATCH /v1/spaces/:spaceId (also /spaces/:spaceId). `archivedAt: null`
// unarchives the space.
func (h *Spaces) Update(c *fiber.Ctx) error {
	p, s, err := h.space(c, auth.Manage)
	if err != nil {
		return err
	}
	var in spaceIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	if in.EnvironmentID != "" && in.EnvironmentID != s.EnvironmentID {
		return errs.Invalidf("environmentId", "A space cannot move to another environment")
	}
	if err := checkAppClaim(p, &in); err != nil {
		return err
	}
	up := store.SpaceUpdate{Name: in.Name, AppID: in.AppID, Namespace: in.Namespace, IsAppTemplate: in.IsAppTemplate, Metadata: in.Metadata,
		Settings: in.Settings, Actions: in.Actions, Access: in.Access, Labels: in.Labels, GuestAuthentication: in.GuestAuthentication,
		AutoConfigure: in.AutoConfigure, PrimaryWorkbookID: in.PrimaryWorkbookID, TranslationsPath: in.TranslationsPath,
		LanguageOverride: in.LanguageOverride, DisplayOrder: in.DisplayOrder}
	if in.ArchivedAt.Set {
		up.ArchivedAt = &in.ArchivedAt.Value
	}
	check := func(*model.Space) error { return nil }
	if in.Namespace != nil {
		env, err := h.store.GetEnvironment(ctxOf(c), p.AccountID, s.EnvironmentID)
		if err != nil {
			return err
		}
		check = func(*model.Space) error { return CheckNamespace(env, *in.Namespace) }
	}
	s, err = h.store.UpdateSpace(ctxOf(c), p.AccountID, s.ID, up, p.ActorID, check)
	if err != nil {
		return err
	}
	return data(c, toSpaceJSON(s))
}

// Delete handles DELETE /v1/spaces/:spaceId.
func (h *Spaces) Delete(c *fiber.Ctx) error {
	p, s, err := h.space(c, auth.Manage)
	if err != nil {
		return err
	}
	if err := h.store.DeleteSpace(ctxOf(c), p.AccountID, s.ID, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Archive handles POST /v1/spaces/:spaceId/archive.
func (h *Spaces) Archive(c *fiber.Ctx) error { return h.setArchived(c, true) }

// Unarchive handles POST /v1/spaces/:spaceId/unarchive.
func (h *Spaces) Unarchive(c *fiber.Ctx) error { return h.setArchived(c, false) }

func (h *Spaces) setArchived(c *fiber.Ctx, archived bool) error {
	p, s, err := h.space(c, auth.Manage)
	if err != nil {
		return err
	}
	if _, err := h.store.SetSpaceArchived(ctxOf(c), p.AccountID, s.ID, archived, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// checkAppClaim keeps credentials anyone may hold (a publishable key, a space token) from
// making a space an app's template or placing it under an app: that is the app builder's.
func checkAppClaim(p *auth.Principal, in *spaceIn) error {
	if auth.Trusted(p) {
		return nil
	}
	if in.IsAppTemplate != nil && *in.IsAppTemplate {
		return forbidden("A %s may not make a space an app template", auth.ClassOf(p))
	}
	if in.AppID != nil && *in.AppID != "" {
		return forbidden("A %s may not place a space under an app", auth.ClassOf(p))
	}
	return nil
}
