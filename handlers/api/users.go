package api

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/mail"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// UserStore is what the user handlers need.
type UserStore interface {
	ListUsers(ctx context.Context, scope store.UserScope, email, search, sortField string, desc bool, p model.Page) ([]*store.UserInfo, int, error)
	GetUserInfo(ctx context.Context, scope store.UserScope, id string) (*store.UserInfo, error)
	InviteUser(ctx context.Context, scope store.UserScope, email, name, actor string) (*store.UserInfo, string, error)
	ResendInvitation(ctx context.Context, scope store.UserScope, userID, actor string) (*store.UserInfo, string, error)
	UpdateUser(ctx context.Context, scope store.UserScope, id string, name *string, dashboard *int) (*store.UserInfo, error)
	DeleteUser(ctx context.Context, scope store.UserScope, id string) error
	ListMail(ctx context.Context, accountID string, p model.Page) ([]*store.Mail, error)
}

// Mailer sends invitations.
type Mailer interface {
	Send(ctx context.Context, inv mail.Invitation) (*store.Mail, error)
}

// Users serves /v1/users (people of the account, invited by e-mail) and /v1/outbox.
type Users struct {
	store   UserStore
	mailer  Mailer
	baseURL string
}

// NewUsers returns the user handlers.
func NewUsers(s UserStore, m Mailer, baseURL string) *Users {
	return &Users{store: s, mailer: m, baseURL: strings.TrimRight(baseURL, "/")}
}

type userJSON struct {
	ID         string          `json:"id"`
	Email      string          `json:"email"`
	Name       string          `json:"name"`
	AccountID  string          `json:"accountId"`
	Idp        string          `json:"idp"`
	Metadata   json.RawMessage `json:"metadata"`
	CreatedAt  Time            `json:"createdAt"`
	UpdatedAt  Time            `json:"updatedAt"`
	LastSeenAt *Time           `json:"lastSeenAt,omitempty"`
	Dashboard  *int            `json:"dashboard,omitempty"`
	ActorRoles *[]any          `json:"actorRoles,omitempty"`
}

func toUserJSON(u *store.UserInfo, withRoles bool) userJSON {
	out := userJSON{ID: u.ID, Email: u.Email, Name: u.Name, AccountID: u.AccountID, Idp: "sluice", Metadata: rawOrEmpty(u.Metadata),
		CreatedAt: Time(u.CreatedAt), UpdatedAt: Time(u.UpdatedAt), LastSeenAt: wireTime(u.LastSeenAt), Dashboard: u.Dashboard}
	if withRoles {
		roles := []any{}
		out.ActorRoles = &roles
	}
	return out
}

func rawOrEmpty(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// scope is whose users p sees: an environment's key or user only the users invited into that
// environment; an account user everyone of the account (auth.AreaUsers lets only these in).
func scope(p *auth.Principal) store.UserScope {
	return store.UserScope{AccountID: p.AccountID, EnvironmentID: p.EnvironmentID}
}

// List handles GET /v1/users (email, search, sortField, sortDirection, pageSize, pageNumber).
func (h *Users) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	if _, err := environmentScope(p, c.Query("environmentId")); err != nil { // another environment's: refused, not ignored
		return err
	}
	pg, err := page(c, 50, 1000)
	if err != nil {
		return err
	}
	desc, err := sortDesc(c)
	if err != nil {
		return err
	}
	list, total, err := h.store.ListUsers(ctxOf(c), scope(p), c.Query("email"), c.Query("search"), c.Query("sortField"), desc, pg)
	if err != nil {
		return err
	}
	out := make([]userJSON, len(list))
	for i, u := range list {
		out[i] = toUserJSON(u, false)
	}
	pages := (total + pg.Size - 1) / pg.Size
	return c.JSON(fiber.Map{"data": out, "pagination": fiber.Map{"currentPage": pg.Number, "pageCount": pages, "totalCount": total}})
}

// Invite handles POST /v1/users/invite {email, name, actorRoles}: the user is created and
// an invitation mailed (or kept in the outbox); the answer is the user with their roles.
func (h *Users) Invite(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in struct {
		Email      string `json:"email"`
		Name       string `json:"name"`
		ActorRoles []any  `json:"actorRoles"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	in.Email = strings.TrimSpace(in.Email)
	if !strings.Contains(in.Email, "@") || strings.ContainsAny(in.Email, " \r\n") {
		return errs.Invalidf("email", "email must be an e-mail address")
	}
	u, raw, err := h.store.InviteUser(ctxOf(c), scope(p), in.Email, strings.TrimSpace(in.Name), p.ActorID)
	if err != nil {
		return err
	}
	if err := h.mail(c, u, raw); err != nil {
		return err
	}
	return data(c, toUserJSON(u, true))
}

// mail sends (or keeps) the invitation of u with the link's token raw.
func (h *Users) mail(c *fiber.Ctx, u *store.UserInfo, raw string) error {
	if h.mailer == nil {
		return nil
	}
	_, err := h.mailer.Send(ctxOf(c), mail.Invitation{AccountID: u.AccountID, To: u.Email, Subject: "You are invited to Sluice",
		Title: "Join your team on Sluice", Body: "You were invited to bring data into Sluice. Set a password to start; the link works for 7 days.",
		Button: "Accept the invitation", Footer: "If you did not expect this, ignore this mail.", Link: h.baseURL + "/invite/" + raw, Theme: mail.Default})
	if err != nil {
		// The mail is in the outbox with its error; the invitation stands.
		c.Set("X-Sluice-Mail-Error", err.Error())
	}
	return nil
}

// ResendInvite handles POST /v1/users/:userId/resend-invite: a new invitation replaces the
// previous one (whose link stops working). Refused once the user has accepted.
func (h *Users) ResendInvite(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	u, raw, err := h.store.ResendInvitation(ctxOf(c), scope(p), c.Params("userId"), p.ActorID)
	if err != nil {
		return err
	}
	if err := h.mail(c, u, raw); err != nil {
		return err
	}
	return success(c)
}

// Get handles GET /v1/users/:userId.
func (h *Users) Get(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	u, err := h.store.GetUserInfo(ctxOf(c), scope(p), c.Params("userId"))
	if err != nil {
		return err
	}
	return data(c, toUserJSON(u, false))
}

// Update handles PATCH /v1/users/:userId {name?, dashboard?}.
func (h *Users) Update(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in struct {
		Name      *string `json:"name"`
		Dashboard *int    `json:"dashboard"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Name != nil && strings.TrimSpace(*in.Name) == "" {
		return errs.Invalidf("name", "name cannot be empty")
	}
	u, err := h.store.UpdateUser(ctxOf(c), scope(p), c.Params("userId"), in.Name, in.Dashboard)
	if err != nil {
		return err
	}
	return data(c, toUserJSON(u, false))
}

// Delete handles DELETE /v1/users/:userId: sign-ins, invitations and personal access tokens
// of the user stop working. Nobody deletes themselves.
func (h *Users) Delete(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	if c.Params("userId") == p.UserID {
		return errs.E(errs.Conflict, "userId", "You cannot delete yourself")
	}
	if err := h.store.DeleteUser(ctxOf(c), scope(p), c.Params("userId")); err != nil {
		return err
	}
	return success(c)
}

// Outbox handles GET /v1/outbox (Sluice's): the mail Sluice sent or kept, newest first.
func (h *Users) Outbox(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	pg, err := page(c, 50, 500)
	if err != nil {
		return err
	}
	list, err := h.store.ListMail(ctxOf(c), p.AccountID, pg)
	if err != nil {
		return err
	}
	type mailJSON struct {
		ID        string `json:"id"`
		To        string `json:"to"`
		Subject   string `json:"subject"`
		HTML      string `json:"html"`
		Text      string `json:"text"`
		CreatedAt Time   `json:"createdAt"`
		SentAt    *Time  `json:"sentAt,omitempty"`
		Error     string `json:"error,omitempty"`
	}
	out := make([]mailJSON, len(list))
	for i, m := range list {
		out[i] = mailJSON{ID: m.ID, To: m.To, Subject: m.Subject, HTML: m.HTML, Text: m.Text, CreatedAt: Time(m.CreatedAt), SentAt: wireTime(m.SentAt), Error: m.Error}
	}
	return data(c, out)
}
