package api

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// SecretStore is what the secret handlers need.
type SecretStore interface {
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	UpsertSecret(ctx context.Context, s *store.Secret) error
	ListSecrets(ctx context.Context, f store.SecretFilter) ([]*store.Secret, error)
	DeleteSecret(ctx context.Context, accountID, id string, check func(*store.Secret) error) (*store.Secret, error)
}

// Secrets serves /v1/secrets; values are sealed with the server's key before they are stored.
type Secrets struct {
	store  SecretStore
	sealer *auth.Sealer
}

// NewSecrets returns the secret handlers.
func NewSecrets(s SecretStore, sealer *auth.Sealer) *Secrets {
	return &Secrets{store: s, sealer: sealer}
}

type secretJSON struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Value         string `json:"value"`
	EnvironmentID string `json:"environmentId"`
	SpaceID       string `json:"spaceId,omitempty"`
	ActorID       string `json:"actorId,omitempty"`
}

// scope resolves the environment (and space) a secret request is about.
func (h *Secrets) scope(c *fiber.Ctx, p *auth.Principal, envID, spaceID string) (string, error) {
	if spaceID != "" {
		sp, err := spaceOf(c, h.store, auth.Read, spaceID)
		if err != nil {
			return "", err
		}
		if envID != "" && envID != sp.EnvironmentID {
			return "", errs.Invalidf("environmentId", "The space is not in environment %s", envID)
		}
		return sp.EnvironmentID, nil
	}
	env, err := environmentScope(p, envID)
	if err != nil {
		return "", err
	}
	if env == "" {
		return "", errs.Invalidf("environmentId", "environmentId (or spaceId) is required")
	}
	if err := may(c, verbOf(c), place.EnvConfig(p.AccountID, env)); err != nil {
		return "", err
	}
	if _, err := h.store.GetEnvironment(ctxOf(c), p.AccountID, env); err != nil {
		return "", err
	}
	return env, nil
}

func (h *Secrets) list(c *fiber.Ctx, p *auth.Principal, f store.SecretFilter) error {
	list, err := h.store.ListSecrets(ctxOf(c), f)
	if err != nil {
		return err
	}
	out := make([]secretJSON, 0, len(list))
	for _, s := range list {
		plain, err := h.sealer.Open(s.Sealed)
		if err != nil {
			return errs.Wrap(err, "open secret %s", s.ID)
		}
		out = append(out, secretJSON{ID: s.ID, Name: s.Name, Value: string(plain), EnvironmentID: s.EnvironmentID, SpaceID: s.SpaceID, ActorID: s.ActorID})
	}
	return data(c, out)
}

// List handles GET /v1/secrets?environmentId=&spaceId=&actorId=.
func (h *Secrets) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	env, err := h.scope(c, p, c.Query("environmentId"), c.Query("spaceId"))
	if err != nil {
		return err
	}
	return h.list(c, p, store.SecretFilter{AccountID: p.AccountID, EnvironmentID: env, SpaceID: c.Query("spaceId"), ActorID: c.Query("actorId")})
}

// Upsert handles POST /v1/secrets {name, value, environmentId?, spaceId?, actorId?}: names may
// hold spaces; the answer lists the secrets of that scope.
func (h *Secrets) Upsert(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in struct {
		Name          string  `json:"name"`
		Value         *string `json:"value"`
		EnvironmentID string  `json:"environmentId"`
		SpaceID       string  `json:"spaceId"`
		ActorID       string  `json:"actorId"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Name) == "" {
		return errs.Invalidf("name", "name is required")
	}
	if in.Value == nil {
		return errs.Invalidf("value", "value is required")
	}
	env, err := h.scope(c, p, in.EnvironmentID, in.SpaceID)
	if err != nil {
		return err
	}
	s := &store.Secret{AccountID: p.AccountID, EnvironmentID: env, SpaceID: in.SpaceID, ActorID: in.ActorID, Name: in.Name, Sealed: h.sealer.Seal([]byte(*in.Value))}
	if err := h.store.UpsertSecret(ctxOf(c), s); err != nil {
		return err
	}
	return h.list(c, p, store.SecretFilter{AccountID: p.AccountID, EnvironmentID: env, SpaceID: in.SpaceID, ActorID: in.ActorID})
}

// Delete handles DELETE /v1/secrets/:secretId; the answer lists the secrets left in its scope.
func (h *Secrets) Delete(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	s, err := h.store.DeleteSecret(ctxOf(c), p.AccountID, c.Params("secretId"), func(s *store.Secret) error {
		return may(c, auth.Write, place.Of(s))
	})
	if err != nil {
		return err
	}
	return h.list(c, p, store.SecretFilter{AccountID: p.AccountID, EnvironmentID: s.EnvironmentID, SpaceID: s.SpaceID, ActorID: s.ActorID})
}
