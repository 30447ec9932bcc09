package ui

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/mail"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// PasswordStore is what the password pages need beyond Store.
type PasswordStore interface {
	GetUser(ctx context.Context, id string) (*model.User, error)
	ChangePassword(ctx context.Context, userID, hash string) error
	StartPasswordReset(ctx context.Context, email string) (*model.User, string, error)
	PasswordResetValid(ctx context.Context, raw string) bool
	ResetPassword(ctx context.Context, raw, hash string) (*model.User, error)
}

// PasswordMailer sends reset links.
type PasswordMailer interface {
	Send(ctx context.Context, inv mail.Invitation) (*store.Mail, error)
}

// Passwords serves changing a password and resetting a forgotten one.
type Passwords struct {
	store    PasswordStore
	sessions Sessions
	mailer   PasswordMailer
	limiter  *auth.Limiter
	baseURL  string
}

// NewPasswords returns the password pages.
func NewPasswords(s PasswordStore, sess Sessions, m PasswordMailer, l *auth.Limiter, baseURL string) *Passwords {
	return &Passwords{store: s, sessions: sess, mailer: m, limiter: l, baseURL: baseURL}
}

func changeProps() views.PasswordProps {
	return views.PasswordProps{Title: "password.change_title", Body: "password.change_body", Submit: "password.change_submit",
		Action: "/account/password", Current: true, Back: "/", BackMsg: "space.back"}
}

// ChangePage handles GET /account/password.
func (h *Passwords) ChangePage(c *fiber.Ctx) error {
	if err := staffOnly(userOf(c)); err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.Password(changeProps()))
}

// Change handles POST /account/password (current, password, confirm): the current password
// is required; on success every other session, JWT and personal access token of the user
// ends, and this browser gets a new session.
func (h *Passwords) Change(c *fiber.Ctx) error {
	u := userOf(c)
	if err := staffOnly(u); err != nil {
		return err
	}
	p := changeProps()
	if err := h.limiter.Check(c.Context(), c.IP(), u.Email); err != nil {
		return err
	}
	user, err := h.store.GetUser(c.Context(), u.UserID)
	if err != nil {
		return err
	}
	hash, problem, err := formPassword(c, user.Email)
	if err != nil {
		return err
	}
	p.Error = problem
	if !auth.VerifyPassword(user.PasswordHash, c.FormValue("current")) {
		h.limiter.Failed(c.Context(), c.IP(), u.Email)
		p.Error = "password.current_wrong"
	}
	if p.Error != "" {
		return Render(c, fiber.StatusBadRequest, views.Password(p))
	}
	if err := h.store.ChangePassword(c.Context(), user.ID, hash); err != nil {
		return err
	}
	if err := h.sessions.Start(c, u); err != nil {
		return err
	}
	p.Notice, p.Done = "password.changed", true
	return Render(c, fiber.StatusOK, views.Password(p))
}

func forgotProps() views.PasswordProps {
	return views.PasswordProps{Title: "password.forgot_title", Body: "password.forgot_body", Submit: "password.forgot_submit",
		Action: "/password/forgot", Email: true, Back: "/login", BackMsg: "login.submit"}
}

// ForgotPage handles GET /password/forgot.
func (h *Passwords) ForgotPage(c *fiber.Ctx) error {
	return Render(c, fiber.StatusOK, views.Password(forgotProps()))
}

// Forgot handles POST /password/forgot (email): a one-hour link is mailed when the e-mail
// belongs to a user; the answer is the same either way, and requests are throttled per
// e-mail and address so nobody floods a mailbox.
func (h *Passwords) Forgot(c *fiber.Ctx) error {
	p := forgotProps()
	email := c.FormValue("email")
	if err := h.limiter.Check(c.Context(), c.IP(), "reset:"+email); err != nil {
		return err
	}
	h.limiter.Failed(c.Context(), c.IP(), "reset:"+email) // every request counts: 5 links, then back-off
	if u, raw, err := h.store.StartPasswordReset(c.Context(), email); err == nil && h.mailer != nil {
		_, _ = h.mailer.Send(c.Context(), mail.Invitation{AccountID: u.AccountID, To: u.Email, Subject: "Reset your Sluice password",
			Title: "Choose a new password", Body: "Someone asked to reset the password of your Sluice account. The link works once, for one hour.",
			Button: "Choose a new password", Footer: "If you did not ask for this, ignore this mail: your password stays as it is.",
			Link: h.baseURL + "/password/reset/" + raw, Theme: mail.Default})
	}
	p.Notice, p.Done = "password.forgot_sent", true
	return Render(c, fiber.StatusOK, views.Password(p))
}

func resetProps(token string) views.PasswordProps {
	return views.PasswordProps{Title: "password.reset_title", Body: "password.forgot_body", Submit: "password.reset_submit",
		Action: "/password/reset/" + token, Back: "/login", BackMsg: "login.submit"}
}

// ResetPage handles GET /password/reset/:token.
func (h *Passwords) ResetPage(c *fiber.Ctx) error {
	p := resetProps(c.Params("token"))
	if !h.store.PasswordResetValid(c.Context(), c.Params("token")) {
		p.Error, p.Done, p.Back = "password.reset_invalid", true, "/password/forgot"
		p.BackMsg = "password.forgot_title"
		return Render(c, fiber.StatusNotFound, views.Password(p))
	}
	return Render(c, fiber.StatusOK, views.Password(p))
}

// Reset handles POST /password/reset/:token (password, confirm): the link is used up, the
// password set, every session and token of the user ended; then the login page.
func (h *Passwords) Reset(c *fiber.Ctx) error {
	p := resetProps(c.Params("token"))
	hash, problem, err := formPassword(c, "")
	if err != nil {
		return err
	}
	if p.Error = problem; p.Error != "" {
		return Render(c, fiber.StatusBadRequest, views.Password(p))
	}
	if _, err := h.store.ResetPassword(c.Context(), c.Params("token"), hash); err != nil {
		p.Error, p.Done, p.Back = "password.reset_invalid", true, "/password/forgot"
		p.BackMsg = "password.forgot_title"
		return Render(c, fiber.StatusNotFound, views.Password(p))
	}
	return Render(c, fiber.StatusOK, views.Login(views.LoginProps{Notice: "password.reset_done"}))
}

// formPassword reads a new password and its confirmation from a form: the message id of what
// is wrong with them, or the password's bcrypt hash.
func formPassword(c *fiber.Ctx, email string) (hash, problem string, err error) {
	pw := c.FormValue("password")
	if pw != c.FormValue("confirm") {
		return "", "admin.password_mismatch", nil
	}
	if problem := auth.PasswordProblem(pw, email); problem != "" {
		return "", problem, nil
	}
	hash, err = auth.HashPassword(pw)
	return hash, "", err
}
