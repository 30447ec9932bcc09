package api

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// AccountStore is what the account handlers need.
type AccountStore interface {
	GetAccount(ctx context.Context, id string) (*model.Account, error)
	UpdateAccount(ctx context.Context, id string, up store.AccountUpdate) (*model.Account, error)
}

// Accounts serves /v1/accounts/current.
type Accounts struct{ store AccountStore }

// NewAccounts returns the account handlers.
func NewAccounts(s AccountStore) *Accounts { return &Accounts{store: s} }

type accountJSON struct {
	ID                      string          `json:"id"`
	Name                    string          `json:"name"`
	Metadata                json.RawMessage `json:"metadata"`
	EmbeddedDomainWhitelist []string        `json:"embeddedDomainWhitelist"`
	CreatedAt               Time            `json:"createdAt"`
	UpdatedAt               Time            `json:"updatedAt"`
}

func toAccountJSON(a *model.Account) accountJSON {
	return accountJSON{ID: a.ID, Name: a.Name, Metadata: a.Metadata, EmbeddedDomainWhitelist: nonEmptyList(a.EmbeddedDomains),
		CreatedAt: Time(a.CreatedAt), UpdatedAt: Time(a.UpdatedAt)}
}

// Get handles GET /v1/accounts/current.
func (h *Accounts) Get(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	a, err := h.store.GetAccount(ctxOf(c), p.AccountID)
	if err != nil {
		return err
	}
	return data(c, toAccountJSON(a))
}

// Update handles PATCH /v1/accounts/current.
func (h *Accounts) Update(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in struct {
		Name                    *string         `json:"name"`
		Metadata                json.RawMessage `json:"metadata"`
		EmbeddedDomainWhitelist []string        `json:"embeddedDomainWhitelist"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Name != nil && *in.Name == "" {
		return errs.Invalidf("name", "name cannot be empty")
	}
	if err := rawObject("metadata", in.Metadata); err != nil {
		return err
	}
	up := store.AccountUpdate{Name: in.Name, Metadata: in.Metadata}
	if in.EmbeddedDomainWhitelist != nil {
		origins, err := Origins(in.EmbeddedDomainWhitelist)
		if err != nil {
			return err
		}
		up.EmbeddedDomains = origins
	}
	a, err := h.store.UpdateAccount(ctxOf(c), p.AccountID, up)
	if err != nil {
		return err
	}
	return data(c, toAccountJSON(a))
}

// Origins checks and normalizes an embedding allowlist: each entry an origin
// (http[s]://host[:port], no path), lower case, without duplicates. Errors: invalid.
func Origins(list []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, raw := range list {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return nil, errs.Invalidf("embeddedDomainWhitelist", "%q is not an origin: write it as https://app.example.com (a scheme, a host, an optional port, no path)", raw)
		}
		o := strings.ToLower(u.Scheme + "://" + u.Host)
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out, nil
}
