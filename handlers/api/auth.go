package api

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// AuthStore is what the token exchange needs.
type AuthStore interface {
	UserByEmail(ctx context.Context, email string) (*model.User, error)
	KeyByRaw(ctx context.Context, raw string) (*model.APIKey, error)
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
	ListKeys(ctx context.Context, accountID, envID string, reveal bool) ([]*model.APIKey, error)
	GetUser(ctx context.Context, id string) (*model.User, error)
	CreatePAT(ctx context.Context, u *model.User, name string, ttl time.Duration) (*store.PersonalAccessToken, string, error)
	ListPATs(ctx context.Context, userID string) ([]*store.PersonalAccessToken, error)
	DeletePAT(ctx context.Context, userID, id string) error
}

// Auth serves the credential exchange and key listing.
type Auth struct {
	store  AuthStore
	tokens *auth.Tokens
	// Limiter throttles failed exchanges per account (e-mail or client id) and address.
	Limiter *auth.Limiter
}

// NewAuth returns the auth handlers.
func NewAuth(s AuthStore, t *auth.Tokens) *Auth { return &Auth{store: s, tokens: t} }

type credentials struct {
	Type     string `json:"type"`
	Email    string `json:"email"`
	Password string `json:"password"`
	ClientID string `json:"clientId"`
	Secret   string `json:"secret"`
}

type accessTokenJSON struct {
	AccessToken string `json:"accessToken"`
	ExpiresIn   string `json:"expiresIn"` // seconds, as a string: the client's schema says so
	Expires     Time   `json:"expires"`
	Email       string `json:"email,omitempty"`
	UserID      string `json:"userId,omitempty"`
	AccountID   string `json:"accountId,omitempty"`
}

// Exchange handles POST /api/v1/auth and POST /v1/auth: e-mail and password, or clientId
// (an environment id) and secret (that environment's secret key), for a bare access token.
func (h *Auth) Exchange(c *fiber.Ctx) error {
	var in credentials
	if err := bind(c, &in); err != nil {
		return err
	}
	var p *auth.Principal
	var err error
	account := in.Email
	if account == "" {
		account = in.ClientID
	}
	if err := h.Limiter.Check(ctxOf(c), c.IP(), account); err != nil {
		return err
	}
	switch {
	case in.Type == "userCredentials" || (in.Type == "" && in.Email != ""):
		p, err = h.userPrincipal(ctxOf(c), in)
	case in.Type == "apiCredentials" || (in.Type == "" && in.ClientID != ""):
		p, err = h.apiPrincipal(ctxOf(c), in)
	case in.Type != "":
		return errs.Invalidf("type", "type must be userCredentials or apiCredentials")
	default:
		return errs.Invalidf("body", "Send email and password, or clientId and secret")
	}
	if errs.Is(err, errs.Unauthorized) {
		h.Limiter.Failed(ctxOf(c), c.IP(), account)
	}
	if err != nil {
		return err
	}
	h.Limiter.Succeeded(ctxOf(c), account)
	tok, exp, err := h.tokens.Issue(p)
	if err != nil {
		return err
	}
	return c.JSON(accessTokenJSON{AccessToken: tok, ExpiresIn: strconv.Itoa(int(h.tokens.TTL.Seconds())), Expires: Time(exp),
		Email: p.Email, UserID: p.UserID, AccountID: p.AccountID})
}

var badCredentials = errs.E(errs.Unauthorized, "credentials", "Invalid credentials")

func (h *Auth) userPrincipal(ctx context.Context, in credentials) (*auth.Principal, error) {
	if in.Email == "" || in.Password == "" {
		return nil, errs.Invalidf("email", "email and password are required")
	}
	u, err := h.store.UserByEmail(ctx, in.Email)
	if errs.Is(err, errs.NotFound) {
		auth.VerifyPassword("", in.Password) // the same work as for a known e-mail
		return nil, badCredentials
	}
	if err != nil {
		return nil, err
	}
	if !auth.VerifyPassword(u.PasswordHash, in.Password) {
		return nil, badCredentials
	}
	return &auth.Principal{Kind: auth.UserToken, AccountID: u.AccountID, EnvironmentID: u.EnvironmentID, UserID: u.ID, Email: u.Email, ActorID: u.ID,
		Version: u.TokenVersion}, nil
}

func (h *Auth) apiPrincipal(ctx context.Context, in credentials) (*auth.Principal, error) {
	if in.ClientID == "" || in.Secret == "" {
		return nil, errs.Invalidf("clientId", "clientId and secret are required")
	}
	k, err := h.store.KeyByRaw(ctx, in.Secret)
	if errs.Is(err, errs.NotFound) || (err == nil && (k.Type != model.KeySecret || (k.EnvironmentID != in.ClientID && k.ID != in.ClientID))) {
		return nil, badCredentials
	}
	if err != nil {
		return nil, err
	}
	return &auth.Principal{Kind: auth.APIToken, AccountID: k.AccountID, EnvironmentID: k.EnvironmentID, ActorID: k.ID}, nil
}

type apiKeyJSON struct {
	ID            string     `json:"id"`
	RawKey        string     `json:"rawKey,omitempty"`
	Secret        string     `json:"secret,omitempty"` // the hint of a secret key already revealed
	Type          string     `json:"type"`
	EnvironmentID string     `json:"environmentId"`
	AccountID     string     `json:"accountId"`
	Operations    []struct{} `json:"operations"`
	CreatedAt     Time       `json:"createdAt"`
}

// ListKeys handles GET /v1/auth/api-keys?environmentId=. Keys are stored as hashes: a
// secret key's rawKey is in the first list after its creation only (later lists give its
// hint in secret, as "sk_abc…wxyz"); publishable keys are public and always listed. Like every
// API answer it carries Cache-Control: no-store (web/headers.go).
func (h *Auth) ListKeys(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	envID, err := environmentScope(p, c.Query("environmentId"))
	if err != nil {
		return err
	}
	if envID == "" {
		return errs.Invalidf("environmentId", "environmentId is required")
	}
	if _, err := h.store.GetEnvironment(ctxOf(c), p.AccountID, envID); err != nil {
		return err
	}
	keys, err := h.store.ListKeys(ctxOf(c), p.AccountID, envID, true)
	if err != nil {
		return err
	}
	out := make([]apiKeyJSON, 0, len(keys))
	for _, k := range keys {
		hint := ""
		if k.Raw == "" {
			hint = k.Hint
		}
		out = append(out, apiKeyJSON{ID: k.ID, RawKey: k.Raw, Secret: hint, Type: k.Type, EnvironmentID: k.EnvironmentID, AccountID: k.AccountID, Operations: []struct{}{}, CreatedAt: Time(k.CreatedAt)})
	}
	return data(c, out)
}

type patJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	CreatedAt  Time   `json:"createdAt"`
	LastUsedAt *Time  `json:"lastUsedAt,omitempty"`
	ExpiresAt  *Time  `json:"expiresAt,omitempty"`
}

func toPATJSON(t *store.PersonalAccessToken) patJSON {
	return patJSON{ID: t.ID, Name: t.Name, CreatedAt: Time(t.CreatedAt), LastUsedAt: wireTime(t.LastUsedAt), ExpiresAt: wireTime(t.ExpiresAt)}
}

// tokenOwner is the user a personal-access-token request acts for: only people have them.
func (h *Auth) tokenOwner(c *fiber.Ctx) (*model.User, error) {
	p := PrincipalOf(c)
	if p.UserID == "" || (p.Kind != auth.UserToken && p.Kind != auth.PersonalToken) {
		return nil, forbidden("Personal access tokens belong to users: sign in with a user's access token")
	}
	return h.store.GetUser(ctxOf(c), p.UserID)
}

// CreatePAT handles POST /v1/auth/personal-access-tokens {name, expiresInDays?}; the value is
// shown only here. Only a password sign-in (a user's JWT or dashboard session) makes one: a
// PAT that could mint PATs would outlive its own revocation.
func (h *Auth) CreatePAT(c *fiber.Ctx) error {
	u, err := h.tokenOwner(c)
	if err != nil {
		return err
	}
	if PrincipalOf(c).Kind == auth.PersonalToken {
		return forbidden("A personal access token cannot make another: sign in with your password (POST /v1/auth) or use the dashboard")
	}
	var in struct {
		Name          string `json:"name"`
		ExpiresInDays *int   `json:"expiresInDays"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Name) == "" {
		return errs.Invalidf("name", "name is required")
	}
	var ttl time.Duration
	if in.ExpiresInDays != nil {
		if *in.ExpiresInDays < 1 || *in.ExpiresInDays > 3650 {
			return errs.Invalidf("expiresInDays", "expiresInDays must be between 1 and 3650 (leave it out for a token that lasts until revoked)")
		}
		ttl = time.Duration(*in.ExpiresInDays) * 24 * time.Hour
	}
	t, raw, err := h.store.CreatePAT(ctxOf(c), u, strings.TrimSpace(in.Name), ttl)
	if err != nil {
		return err
	}
	return data(c, fiber.Map{"token": raw, "personalAccessToken": toPATJSON(t)})
}

// ListPATs handles GET /v1/auth/personal-access-tokens: names, creation and last use, never values.
func (h *Auth) ListPATs(c *fiber.Ctx) error {
	u, err := h.tokenOwner(c)
	if err != nil {
		return err
	}
	list, err := h.store.ListPATs(ctxOf(c), u.ID)
	if err != nil {
		return err
	}
	out := make([]patJSON, 0, len(list))
	for _, t := range list {
		out = append(out, toPATJSON(t))
	}
	return data(c, out)
}

// DeletePAT handles DELETE /v1/auth/personal-access-tokens/:accessTokenId: revoked at once.
func (h *Auth) DeletePAT(c *fiber.Ctx) error {
	u, err := h.tokenOwner(c)
	if err != nil {
		return err
	}
	if err := h.store.DeletePAT(ctxOf(c), u.ID, c.Params("accessTokenId")); err != nil {
		return err
	}
	return success(c)
}
