package ui

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
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
	u, err := h.store.UserByEmail(c.Context(), email)
	if err != nil || !auth.CheckPassword(u.PasswordHash, c.FormValue("password")) {
		return Render(c, fiber.StatusUnauthorized, views.Login(views.LoginProps{Email: email, Error: "login.failed"}))
	}
	if err := h.sessions.Start(c, SessionUser{UserID: u.ID, AccountID: u.AccountID, Email: u.Email}); err != nil {
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
	back := c.Get(fiber.HeaderReferer)
	if back == "" || !strings.HasPrefix(back, c.BaseURL()) {
		back = "/"
	}
	return c.Redirect(back, fiber.StatusSeeOther)
}
