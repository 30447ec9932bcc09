// Package auth turns bearer tokens into principals: environment secret and publishable keys,
// JWT access tokens (for users, API credentials and spaces), personal access tokens and guest
// tokens. It also hashes passwords.
package auth

import (
	"context"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/crypto/bcrypt"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// Kind is the kind of credential a request carried.
type Kind string

// The credential kinds.
const (
	SecretKey      Kind = "secretKey"
	PublishableKey Kind = "publishableKey"
	UserToken      Kind = "user"     // JWT from userCredentials, or a dashboard session
	APIToken       Kind = "api"      // JWT from apiCredentials, scoped to one environment
	SpaceToken     Kind = "space"    // JWT handed out with a space, scoped to that space
	PersonalToken  Kind = "personal" // personal access token (issued by a later release)
	GuestToken     Kind = "guest"    // guest access token (issued by a later release)
	ClipToken      Kind = "clip"     // a public data clip's link: its clip sheet only
)

// Principal is who a request acts for and how far it reaches.
type Principal struct {
	Kind          Kind
	AccountID     string
	EnvironmentID string // when set, the principal reaches only this environment
	SpaceID       string // when set, only this space
	SheetID       string // when set, only this sheet (a data clip's link)
	ClipEdit      bool   // a clip link that may change its sheet's records
	UserID        string
	Email         string
	ActorID       string // the id recorded on events and records
	Version       int    // a user token's token_version: a password change ends older tokens
}

// AccountWide reports whether the principal may act across every environment of its account.
func (p *Principal) AccountWide() bool { return p.EnvironmentID == "" && p.SpaceID == "" }

// ReachesEnvironment reports whether the principal may touch resources of environment envID.
func (p *Principal) ReachesEnvironment(envID string) bool {
	return p.EnvironmentID == "" || p.EnvironmentID == envID
}

// ReachesSpace reports whether the principal may touch space s.
func (p *Principal) ReachesSpace(s *model.Space) bool {
	if s.AccountID != p.AccountID || !p.ReachesEnvironment(s.EnvironmentID) {
		return false
	}
	return p.SpaceID == "" || p.SpaceID == s.ID
}

// KeyFinder looks up environment keys.
type KeyFinder interface {
	KeyByRaw(ctx context.Context, raw string) (*model.APIKey, error)
}

// PATFinder looks up the user of a personal access token.
type PATFinder interface {
	UserByPAT(ctx context.Context, raw string) (*model.User, error)
}

// LiveChecker answers, on every request, whether what a token stands on still exists.
type LiveChecker interface {
	// UserLive: the user is not deleted and still at token version ver.
	UserLive(ctx context.Context, userID string, ver int) bool
	// KeyLive: the key (by id) has been neither rotated nor deleted.
	KeyLive(ctx context.Context, keyID string) bool
	// ActorLive: the user or key that created a space token still exists.
	ActorLive(ctx context.Context, actorID string) bool
}

// Authenticator resolves bearer tokens.
type Authenticator struct {
	Keys   KeyFinder
	Tokens *Tokens
	PATs   PATFinder // nil: personal access tokens are refused
	Guests GuestChecker
	Live   LiveChecker // nil only in tests that do not care
}

// GuestChecker tells whether a guest still holds a grant on a space.
type GuestChecker interface {
	GuestReaches(ctx context.Context, guestID, spaceID string) bool
}

// Authenticate returns the principal of a bearer token. Errors: unauthorized.
func (a *Authenticator) Authenticate(ctx context.Context, token string) (*Principal, error) {
	switch {
	case token == "":
		return nil, errs.E(errs.Unauthorized, "Authorization", "Missing bearer token")
	case strings.HasPrefix(token, "sk_"), strings.HasPrefix(token, "pk_"):
		k, err := a.Keys.KeyByRaw(ctx, token)
		if err != nil {
			if errs.Is(err, errs.NotFound) {
				return nil, errs.E(errs.Unauthorized, "Authorization", "Invalid API key")
			}
			return nil, err
		}
		kind := SecretKey
		if k.Type == model.KeyPublishable {
			kind = PublishableKey
		}
		return &Principal{Kind: kind, AccountID: k.AccountID, EnvironmentID: k.EnvironmentID, ActorID: k.ID}, nil
	case strings.HasPrefix(token, "pat_"):
		if a.PATs == nil {
			return nil, errs.E(errs.Unauthorized, "Authorization", "Invalid personal access token")
		}
		u, err := a.PATs.UserByPAT(ctx, token)
		if errs.Is(err, errs.NotFound) {
			return nil, errs.E(errs.Unauthorized, "Authorization", "Invalid or revoked personal access token")
		}
		if err != nil {
			return nil, err
		}
		if u.Deleted {
			return nil, errs.E(errs.Unauthorized, "Authorization", "Invalid or revoked personal access token")
		}
		// A personal access token has its creator's scope: the account, or their environment.
		return &Principal{Kind: PersonalToken, AccountID: u.AccountID, EnvironmentID: u.EnvironmentID, UserID: u.ID, Email: u.Email, ActorID: u.ID}, nil
	}
	p, err := a.Tokens.Parse(token)
	if err != nil {
		return nil, err
	}
	return p, a.Alive(ctx, p)
}

// Alive checks a token's principal against the current state: a deleted user, a password
// changed since the token was issued, a rotated key or a removed guest grant ends it at once.
func (a *Authenticator) Alive(ctx context.Context, p *Principal) error {
	gone := func(msg string) error { return errs.E(errs.Unauthorized, "Authorization", "%s", msg) }
	switch {
	case p.Kind == GuestToken && strings.HasPrefix(p.Email, "data-clip+"):
		// A clip link of an earlier version, which reached the whole space: links now reach
		// the clip sheet only, and the clip's owner renews them.
		return gone("This data clip link has been replaced: ask its owner for the new link")
	case p.Kind == GuestToken || p.Kind == ClipToken:
		if a.Guests == nil || !a.Guests.GuestReaches(ctx, p.ActorID, p.SpaceID) {
			// Removing a guest or their grant ends their access at once, whatever the token says.
			return gone("This guest no longer has access to the space")
		}
	case a.Live == nil:
	case p.Kind == UserToken:
		if !a.Live.UserLive(ctx, p.UserID, p.Version) {
			return gone("This access token was revoked: its user was removed or changed their password")
		}
	case p.Kind == APIToken:
		if !a.Live.KeyLive(ctx, p.ActorID) {
			return gone("This access token was revoked: the key it was exchanged for was rotated")
		}
	case p.Kind == SpaceToken:
		if !a.Live.ActorLive(ctx, p.ActorID) {
			return gone("This access token was revoked: the key or user that created the space is gone")
		}
	}
	return nil
}

// Tokens issues and verifies HS256 access tokens.
type Tokens struct {
	Key []byte
	TTL time.Duration
	Now func() time.Time
}

type claims struct {
	Kind          Kind   `json:"knd"`
	AccountID     string `json:"acc"`
	EnvironmentID string `json:"env,omitempty"`
	SpaceID       string `json:"spc,omitempty"`
	SheetID       string `json:"sht,omitempty"`
	ClipEdit      bool   `json:"ced,omitempty"`
	Email         string `json:"eml,omitempty"`
	Actor         string `json:"act,omitempty"`
	Version       int    `json:"ver,omitempty"`
	jwt.RegisteredClaims
}

// Issue signs a token for p that expires after the TTL; it returns the token and its expiry.
func (t *Tokens) Issue(p *Principal) (string, time.Time, error) {
	return t.IssueFor(p, t.TTL)
}

// IssueFor signs a token for p that expires after ttl (a data clip's public link lasts as
// long as the clip: its guest grant is what revokes it).
func (t *Tokens) IssueFor(p *Principal, ttl time.Duration) (string, time.Time, error) {
	now := t.Now()
	exp := now.Add(ttl)
	c := claims{Kind: p.Kind, AccountID: p.AccountID, EnvironmentID: p.EnvironmentID, SpaceID: p.SpaceID, SheetID: p.SheetID, ClipEdit: p.ClipEdit,
		Email: p.Email, Actor: p.ActorID, Version: p.Version, RegisteredClaims: jwt.RegisteredClaims{Subject: p.UserID, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp), Issuer: "sluice"}}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.Key)
	if err != nil {
		return "", time.Time{}, errs.Wrap(err, "sign token")
	}
	return s, exp, nil
}

// ParseExpiry is Parse that also returns when the token expires.
func (t *Tokens) ParseExpiry(token string) (*Principal, time.Time, error) {
	c, err := t.verify(token)
	if err != nil {
		return nil, time.Time{}, err
	}
	var exp time.Time
	if c.ExpiresAt != nil {
		exp = c.ExpiresAt.Time
	}
	return c.principal(), exp, nil
}

// Parse verifies a token and returns its principal. Errors: unauthorized.
func (t *Tokens) Parse(token string) (*Principal, error) {
	c, err := t.verify(token)
	if err != nil {
		return nil, err
	}
	return c.principal(), nil
}

// verify checks a token's signature, issuer and expiry and returns its claims.
func (t *Tokens) verify(token string) (*claims, error) {
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return t.Key, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(t.Now), jwt.WithIssuer("sluice"))
	if err != nil || (c.Kind == ClipToken && c.SheetID == "") {
		return nil, errs.E(errs.Unauthorized, "Authorization", "Invalid or expired access token")
	}
	return &c, nil
}

func (c *claims) principal() *Principal {
	return &Principal{Kind: c.Kind, AccountID: c.AccountID, EnvironmentID: c.EnvironmentID, SpaceID: c.SpaceID, SheetID: c.SheetID, ClipEdit: c.ClipEdit,
		UserID: c.Subject, Email: c.Email, ActorID: c.Actor, Version: c.Version}
}

// HashPassword hashes a password with bcrypt.
func HashPassword(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.DefaultCost)
	if err != nil {
		return "", errs.Wrap(err, "hash password")
	}
	return string(h), nil
}
