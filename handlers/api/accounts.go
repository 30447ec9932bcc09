package api

import (
	"context"
	"encoding/json"

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
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Metadata  json.RawMessage `json:"metadata"`
	CreatedAt Time            `json:"createdAt"`
	UpdatedAt Time            `json:"updatedAt"`
}

func toAccountJSON(a *model.Account) accountJSON {
	return accountJSON{ID: a.ID, Name: a.Name, Metadata: a.Metadata, CreatedAt: Time(a.CreatedAt), UpdatedAt: Time(a.UpdatedAt)}
}

// Get handles GET /v1/accounts/current.
func (h *Accounts) Get(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	a, err := h.store.GetAccount(c.Context(), p.AccountID)
	if err != nil {
		return err
	}
	return data(c, toAccountJSON(a))
}

// Update handles PATCH /v1/accounts/current.
func (h *Accounts) Update(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in struct {
		Name     *string         `json:"name"`
		Metadata json.RawMessage `json:"metadata"`
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
	a, err := h.store.UpdateAccount(c.Context(), p.AccountID, store.AccountUpdate{Name: in.Name, Metadata: in.Metadata})
	if err != nil {
		return err
	}
	return data(c, toAccountJSON(a))
}
