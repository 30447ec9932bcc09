package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/mail"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// GuestStore is what the guest handlers need.
type GuestStore interface {
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	CreateGuests(ctx context.Context, gs []*store.Guest, actor string) error
	GetGuest(ctx context.Context, accountID, id string) (*store.Guest, error)
	ListGuests(ctx context.Context, accountID, envID, spaceID, email string) ([]*store.Guest, error)
	UpdateGuest(ctx context.Context, g *store.Guest, spaces []string, actor string) error
	RemoveGuest(ctx context.Context, g *store.Guest, spaceID, actor string) error
}

// Guests serves /v1/guests.
type Guests struct {
	store   GuestStore
	tokens  *auth.Tokens
	baseURL string
	mailer  Mailer
}

// NewGuests returns the guest handlers; baseURL makes the guest links.
func NewGuests(s GuestStore, t *auth.Tokens, baseURL string) *Guests {
	return &Guests{store: s, tokens: t, baseURL: strings.TrimSuffix(baseURL, "/")}
}

type guestSpaceJSON struct {
	ID string `json:"id"`
}

type guestJSON struct {
	ID            string           `json:"id"`
	EnvironmentID string           `json:"environmentId"`
	Email         string           `json:"email"`
	Name          string           `json:"name"`
	Spaces        []guestSpaceJSON `json:"spaces"`
	CreatedAt     Time             `json:"createdAt"`
	UpdatedAt     Time             `json:"updatedAt"`
}

func toGuestJSON(g *store.Guest) guestJSON {
	out := guestJSON{ID: g.ID, EnvironmentID: g.EnvironmentID, Email: g.Email, Name: g.Name, Spaces: []guestSpaceJSON{}, CreatedAt: Time(g.CreatedAt), UpdatedAt: Time(g.UpdatedAt)}
	for _, sp := range g.Spaces {
		out.Spaces = append(out.Spaces, guestSpaceJSON{ID: sp})
	}
	return out
}

type guestIn struct {
	EnvironmentID string           `json:"environmentId"`
	Email         *string          `json:"email"`
	Name          *string          `json:"name"`
	Spaces        []guestSpaceJSON `json:"spaces"`
}

// Create handles POST /v1/guests: an array of {environmentId, email, name, spaces:[{id}]}.
func (h *Guests) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in []guestIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if len(in) == 0 {
		return errs.Invalidf("body", "Send an array of guests")
	}
	var gs []*store.Guest
	for i, g := range in {
		key := fmt.Sprintf("[%d]", i)
		if g.Email == nil || !strings.Contains(*g.Email, "@") {
			return errs.Invalidf(key+".email", "Each guest needs an e-mail address")
		}
		env, err := environmentScope(p, g.EnvironmentID)
		if err != nil {
			return err
		}
		if env == "" {
			return errs.Invalidf(key+".environmentId", "environmentId is required")
		}
		if _, err := h.store.GetEnvironment(ctxOf(c), p.AccountID, env); err != nil {
			return err
		}
		guest := &store.Guest{AccountID: p.AccountID, EnvironmentID: env, Email: strings.TrimSpace(*g.Email)}
		if g.Name != nil {
			guest.Name = *g.Name
		}
		if guest.Spaces, err = h.grants(c, env, g.Spaces); err != nil {
			return err
		}
		gs = append(gs, guest)
	}
	if err := h.store.CreateGuests(ctxOf(c), gs, p.ActorID); err != nil {
		return err
	}
	out := make([]guestJSON, 0, len(gs))
	for _, g := range gs {
		full, err := h.store.GetGuest(ctxOf(c), p.AccountID, g.ID)
		if err != nil {
			return err
		}
		out = append(out, toGuestJSON(full))
	}
	return data(c, out)
}

// List handles GET /v1/guests?spaceId=&email=.
func (h *Guests) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	spaceID := c.Query("spaceId")
	if spaceID != "" {
		if _, err := spaceOf(c, h.store, auth.Manage, spaceID); err != nil {
			return err
		}
	}
	envID, _, err := listScope(c, auth.ResEnvConfig, c.Query("environmentId"), "")
	if err != nil {
		return err
	}
	list, err := h.store.ListGuests(ctxOf(c), p.AccountID, envID, spaceID, c.Query("email"))
	if err != nil {
		return err
	}
	out := make([]guestJSON, 0, len(list))
	for _, g := range list {
		out = append(out, toGuestJSON(g))
	}
	return data(c, out)
}

func (h *Guests) guest(c *fiber.Ctx) (*auth.Principal, *store.Guest, error) {
	g, err := inReach(c, verbOf(c), h.store.GetGuest, c.Params("guestId"))
	return PrincipalOf(c), g, err
}

// Get handles GET /v1/guests/:guestId.
func (h *Guests) Get(c *fiber.Ctx) error {
	_, g, err := h.guest(c)
	if err != nil {
		return err
	}
	return data(c, toGuestJSON(g))
}

// Update handles PATCH /v1/guests/:guestId (email, name, spaces).
func (h *Guests) Update(c *fiber.Ctx) error {
	p, g, err := h.guest(c)
	if err != nil {
		return err
	}
	var in guestIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Email != nil {
		if !strings.Contains(*in.Email, "@") {
			return errs.Invalidf("email", "email must be an e-mail address")
		}
		g.Email = *in.Email
	}
	if in.Name != nil {
		g.Name = *in.Name
	}
	var spaces []string
	if in.Spaces != nil {
		if spaces, err = h.grants(c, g.EnvironmentID, in.Spaces); err != nil {
			return err
		}
		if spaces == nil {
			spaces = []string{}
		}
	}
	if err := h.store.UpdateGuest(ctxOf(c), g, spaces, p.ActorID); err != nil {
		return err
	}
	return h.Get(c)
}

// Delete handles DELETE /v1/guests/:guestId?spaceId=: out of one space, or entirely.
func (h *Guests) Delete(c *fiber.Ctx) error {
	p, g, err := h.guest(c)
	if err != nil {
		return err
	}
	if id := c.Query("spaceId"); id != "" {
		if _, err := spaceOf(c, h.store, auth.Manage, id); err != nil {
			return err
		}
	}
	if err := h.store.RemoveGuest(ctxOf(c), g, c.Query("spaceId"), p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Token handles GET /v1/guests/:guestId/token?spaceId=: an access token for the guest in one of
// their spaces, and the link that opens it.
func (h *Guests) Token(c *fiber.Ctx) error {
	_, g, err := h.guest(c)
	if err != nil {
		return err
	}
	spaceID := c.Query("spaceId")
	if spaceID == "" && len(g.Spaces) == 1 {
		spaceID = g.Spaces[0]
	}
	if !g.Granted(spaceID) {
		return errs.Invalidf("spaceId", "spaceId must be one of the guest's spaces")
	}
	if _, err := spaceOf(c, h.store, auth.Manage, spaceID); err != nil {
		return err
	}
	tok, exp, err := h.tokens.Issue(&auth.Principal{Kind: auth.GuestToken, AccountID: g.AccountID, EnvironmentID: g.EnvironmentID, SpaceID: spaceID, Email: g.Email, ActorID: g.ID})
	if err != nil {
		return err
	}
	base := h.baseURL
	if base == "" {
		base = c.BaseURL()
	}
	return data(c, fiber.Map{"token": tok, "accessToken": tok, "valid": true, "expires": Time(exp), "url": base + "/space/" + spaceID + "?token=" + tok})
}

// SetMailer gives the guest handlers a way to mail invitations.
func (h *Guests) SetMailer(m Mailer) { h.mailer = m }

// Invite handles POST /v1/guests/invite [{guestId, spaceId, fromName?, message?}]: each
// guest gets a mail with a link to the space, in the space's theme.email (unless the
// environment's metadata.emailTheming is false); the mail is kept in the outbox and sent
// through SMTP when configured.
func (h *Guests) Invite(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in []struct {
		GuestID  string `json:"guestId"`
		SpaceID  string `json:"spaceId"`
		FromName string `json:"fromName"`
		Message  string `json:"message"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if len(in) == 0 {
		return errs.Invalidf("body", "Send an array of {guestId, spaceId}")
	}
	for i, inv := range in {
		g, err := inReach(c, auth.Write, h.store.GetGuest, inv.GuestID)
		if err != nil {
			return err
		}
		if !g.Granted(inv.SpaceID) {
			return errs.Invalidf("spaceId", "Invite %d: guest %s has no access to space %s", i, g.ID, inv.SpaceID)
		}
		sp, err := spaceOf(c, h.store, auth.Manage, inv.SpaceID)
		if err != nil {
			return err
		}
		env, err := h.store.GetEnvironment(ctxOf(c), p.AccountID, sp.EnvironmentID)
		if err != nil {
			return err
		}
		var flags struct {
			EmailTheming *bool `json:"emailTheming"`
		}
		_ = json.Unmarshal(env.Metadata, &flags)
		tok, _, err := h.tokens.Issue(&auth.Principal{Kind: auth.GuestToken, AccountID: g.AccountID, EnvironmentID: g.EnvironmentID, SpaceID: sp.ID, Email: g.Email, ActorID: g.ID})
		if err != nil {
			return err
		}
		from := inv.FromName
		if from == "" {
			from = "Your team"
		}
		body := from + " invited you to bring data into " + sp.Name + "."
		if inv.Message != "" {
			body += " " + inv.Message
		}
		if h.mailer == nil {
			continue
		}
		if _, err := h.mailer.Send(ctxOf(c), mail.Invitation{AccountID: p.AccountID, To: g.Email, Subject: from + " invited you to " + sp.Name,
			Title: sp.Name, Body: body, Button: "Open " + sp.Name, Footer: "The link signs you in to this space only.",
			Link: h.baseURL + "/space/" + sp.ID + "?token=" + tok, Theme: mail.ThemeOf(sp.Metadata, flags.EmailTheming == nil || *flags.EmailTheming)}); err != nil {
			c.Set("X-Sluice-Mail-Error", err.Error()) // kept in the outbox with its error
		}
	}
	return success(c)
}

// grants checks the spaces a guest is given: each one the caller may manage, in the guest's
// environment.
func (h *Guests) grants(c *fiber.Ctx, envID string, in []guestSpaceJSON) ([]string, error) {
	var ids []string
	for i, ref := range in {
		sp, err := spaceOf(c, h.store, auth.Manage, ref.ID)
		if errs.Is(err, errs.NotFound) || (err == nil && sp.EnvironmentID != envID) {
			return nil, errs.NotFoundf(fmt.Sprintf("spaces[%d].id", i), "Space %s not found in the guest's environment", ref.ID)
		}
		if err != nil {
			return nil, err
		}
		ids = append(ids, sp.ID)
	}
	return ids, nil
}
