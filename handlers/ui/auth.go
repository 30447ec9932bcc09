package ui

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/locales"
	"github.com/sluice/sluice/views"
)

// LoginPage handles GET /login.
func (h *Handler) LoginPage(c *fiber.Ctx) error {
	p := views.LoginProps{}
	if c.Query("expired") == "1" {
		p.Error = "login.expired"
	}
	return Render(c, fiber.StatusOK, views.Login(p))
}

// Login handles POST /login: e-mail and password start a 24-hour session.
func (h *Handler) Login(c *fiber.Ctx) error {
	email := strings.TrimSpace(c.FormValue("email"))
	if err := h.Limiter.Check(c.Context(), c.IP(), email); err != nil {
		var e *errs.Error
		if errors.As(err, &e) && e.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(e.RetryAfter.Seconds())))
			return Render(c, fiber.StatusTooManyRequests, views.Login(views.LoginProps{Email: email, Error: "login.throttled"}))
		}
		return err
	}
	u, err := h.store.UserByEmail(c.Context(), email)
	hash := ""
	if err == nil {
		hash = u.PasswordHash
	}
	if !auth.VerifyPassword(hash, c.FormValue("password")) { // the same work for unknown e-mails
		h.Limiter.Failed(c.Context(), c.IP(), email)
		return Render(c, fiber.StatusUnauthorized, views.Login(views.LoginProps{Email: email, Error: "login.failed"}))
	}
	h.Limiter.Succeeded(c.Context(), email)
	if err := h.sessions.Start(c, SessionUser{UserID: u.ID, AccountID: u.AccountID, Email: u.Email, EnvironmentID: u.EnvironmentID}); err != nil {
		return err
	}
	return c.Redirect("/", fiber.StatusSeeOther)
}

// Logout handles POST /logout.
func (h *Handler) Logout(c *fiber.Ctx) error {
	h.sessions.End(c)
	return c.Redirect("/login", fiber.StatusSeeOther)
}

// Language handles POST /lang: remembers the chosen language in a cookie.
func (h *Handler) Language(c *fiber.Ctx) error {
	lang := c.FormValue("lang")
	if !slices.Contains(locales.Languages, lang) {
		lang = locales.Default
	}
	c.Cookie(&fiber.Cookie{Name: "lang", Value: lang, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: fiber.CookieSameSiteLaxMode})
	// Back to the page the menu was on: only its path and query, so the redirect never
	// leaves Sluice whatever the Referer says.
	back := "/"
	if u, err := url.Parse(c.Get(fiber.HeaderReferer)); err == nil && u.Path != "" && (u.Host == "" || u.Host == c.Hostname()) {
		back = u.EscapedPath()
		if u.RawQuery != "" {
			back += "?" + u.RawQuery
		}
	}
	if !localPath(back) {
		back = "/"
	}
	return c.Redirect(back, fiber.StatusSeeOther)
}

// InvitePage handles GET /invite/:token: the form that sets an invited user's password.
func (h *Handler) InvitePage(c *fiber.Ctx) error {
	if !h.store.InvitationLive(c.Context(), c.Params("token")) {
		return Render(c, fiber.StatusNotFound, views.Invite(views.InviteProps{Dead: true}))
	}
	return Render(c, fiber.StatusOK, views.Invite(views.InviteProps{Token: c.Params("token")}))
}

// AcceptInvite handles POST /invite/:token (password, confirm): the password is set, the
// invitation used up, and a dashboard session starts.
func (h *Handler) AcceptInvite(c *fiber.Ctx) error {
	p := views.InviteProps{Token: c.Params("token")}
	hash, problem, err := formPassword(c, "")
	if err != nil {
		return err
	}
	if p.Error = problem; p.Error != "" {
		return Render(c, fiber.StatusBadRequest, views.Invite(p))
	}
	u, err := h.store.AcceptInvitation(c.Context(), p.Token, hash)
	if err != nil {
		p.Error = "admin.invite_invalid"
		return Render(c, fiber.StatusNotFound, views.Invite(p))
	}
	if err := h.sessions.Start(c, SessionUser{UserID: u.ID, AccountID: u.AccountID, Email: u.Email, EnvironmentID: u.EnvironmentID}); err != nil {
		return err
	}
	return c.Redirect("/", fiber.StatusSeeOther)
}
