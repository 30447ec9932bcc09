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
)

// Principal is who a request acts for and how far it reaches.
type Principal struct {
	Kind          Kind
	AccountID     string
	EnvironmentID string // when set, the principal reaches only this environment
	SpaceID       string // when set, only this space
	UserID        string
	Email         string
	ActorID       string // the id recorded on events and records
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

// Authenticator resolves bearer tokens.
type Authenticator struct {
	Keys   KeyFinder
	Tokens *Tokens
	PATs   PATFinder // nil: personal access tokens are refused
	Guests GuestChecker
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
		// A personal access token has its creator's scope: the whole account.
		return &Principal{Kind: PersonalToken, AccountID: u.AccountID, UserID: u.ID, Email: u.Email, ActorID: u.ID}, nil
	}
	p, err := a.Tokens.Parse(token)
	if err != nil {
		return nil, err
	}
	if p.Kind == GuestToken && (a.Guests == nil || !a.Guests.GuestReaches(ctx, p.ActorID, p.SpaceID)) {
		// Removing a guest or their grant ends their access at once, whatever the token says.
		return nil, errs.E(errs.Unauthorized, "Authorization", "This guest no longer has access to the space")
	}
	return p, nil
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
	Email         string `json:"eml,omitempty"`
	Actor         string `json:"act,omitempty"`
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
	c := claims{Kind: p.Kind, AccountID: p.AccountID, EnvironmentID: p.EnvironmentID, SpaceID: p.SpaceID, Email: p.Email, Actor: p.ActorID,
		RegisteredClaims: jwt.RegisteredClaims{Subject: p.UserID, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp), Issuer: "sluice"}}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.Key)
	if err != nil {
		return "", time.Time{}, errs.Wrap(err, "sign token")
	}
	return s, exp, nil
}

// Parse verifies a token and returns its principal. Errors: unauthorized.
func (t *Tokens) Parse(token string) (*Principal, error) {
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return t.Key, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(t.Now), jwt.WithIssuer("sluice"))
	if err != nil {
		return nil, errs.E(errs.Unauthorized, "Authorization", "Invalid or expired access token")
	}
	return &Principal{Kind: c.Kind, AccountID: c.AccountID, EnvironmentID: c.EnvironmentID, SpaceID: c.SpaceID,
		UserID: c.Subject, Email: c.Email, ActorID: c.Actor}, nil
}

// HashPassword hashes a password with bcrypt.
func HashPassword(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.DefaultCost)
	if err != nil {
		return "", errs.Wrap(err, "hash password")
	}
	return string(h), nil
}

// CheckPassword reports whether pw matches hash.
func CheckPassword(hash, pw string) bool {
	return hash != "" && bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)) == nil
}
