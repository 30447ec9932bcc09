package web

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/csrf"
	"github.com/gofiber/fiber/v2/middleware/filesystem"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/handlers/ui"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/locales"
	"github.com/sluice/sluice/static"
	"github.com/sluice/sluice/theme"
	"github.com/sluice/sluice/views"
)

var (
	bundleOnce sync.Once
	bundle     *i18n.Bundle
)

// newBundleOnce returns the message bundle, loading it on first use.
func newBundleOnce() *i18n.Bundle {
	bundleOnce.Do(func() { bundle = newBundle() })
	return bundle
}

// newBundle loads every message file of locales/.
func newBundle() *i18n.Bundle {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	for _, l := range locales.Languages {
		for _, f := range locales.Files(l) {
			buf, err := locales.FS.ReadFile(f)
			if err == nil {
				_, err = b.ParseMessageFileBytes(buf, locales.Tag(l, f))
			}
			if err != nil {
				panic("locales: " + f + ": " + err.Error())
			}
		}
	}
	return b
}

// localize picks the page language: the user's choice (the lang cookie), then the
// Accept-Language header; a space page may still switch to the space's languageOverride
// (spaceLanguage). It stores the localizer for the views.
func localize(b *i18n.Bundle) fiber.Handler {
	tags := make([]language.Tag, len(locales.Languages))
	for i, l := range locales.Languages {
		tags[i] = language.Make(locales.BCP47(l))
	}
	matcher := language.NewMatcher(tags)
	return func(c *fiber.Ctx) error {
		pref := c.Cookies("lang")
		if !knownLanguage(pref) {
			accept, _, _ := language.ParseAcceptLanguage(c.Get(fiber.HeaderAcceptLanguage))
			_, idx, conf := matcher.Match(accept...)
			pref = locales.Default
			if conf != language.No {
				pref = locales.Languages[idx]
			}
		}
		setLanguage(c, b, pref)
		return c.Next()
	}
}

func knownLanguage(code string) bool {
	_, ok := locales.Names[code]
	return ok && code != "" && slices.Contains(locales.Languages, code)
}

func setLanguage(c *fiber.Ctx, b *i18n.Bundle, code string) {
	c.Locals(views.KeyLang, code)
	c.Locals(views.KeyLocalizer, i18n.NewLocalizer(b, locales.BCP47(code), locales.Default))
}

// spaceContext applies a space's settings on its pages: its theme, and its languageOverride
// when the user has not chosen a language.
func spaceContext(d Deps, b *i18n.Bundle) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id := c.Params("spaceId")
		if id == "" {
			return c.Next()
		}
		u, _ := c.Locals(ui.UserKey).(ui.SessionUser)
		sp, err := d.Store.GetSpace(c.Context(), u.AccountID, id)
		if err != nil {
			return c.Next() // the page itself answers not found
		}
		if u.EnvironmentID != "" && sp.EnvironmentID != u.EnvironmentID {
			return errs.NotFoundf("spaceId", "Space not found") // other environments do not exist for this user
		}
		if css := theme.CSS(sp.Metadata); css != "" {
			c.Locals(views.KeyTheme, css)
		}
		if !knownLanguage(c.Cookies("lang")) && knownLanguage(sp.LanguageOverride) {
			setLanguage(c, b, sp.LanguageOverride)
		}
		if env, err := d.Store.GetEnvironment(c.Context(), u.AccountID, sp.EnvironmentID); err == nil {
			lang, _ := c.Locals(views.KeyLang).(string)
			if o := ui.TranslationOverrides(env.Metadata, lang); len(o) > 0 {
				c.Locals(views.KeyOverrides, o)
			}
			if b := ui.BrandOf(env.Metadata, sp.Metadata); b != (views.BrandProps{}) {
				c.Locals(views.KeyBrand, b)
			}
		}
		return c.Next()
	}
}

// csrfToken hands the CSRF token to the views.
func csrfToken(c *fiber.Ctx) error {
	if t, ok := c.Locals("csrf").(string); ok {
		c.Locals(views.KeyCSRF, t)
	}
	return c.Next()
}

// guestRenewal is how old a guest's session may get before it is issued again: guests who
// keep using a space stay signed in.
const guestRenewal = time.Hour

// keepToken adds a framed page's token to the redirects it answers (Location, HX-Redirect):
// the next page has no cookie to go by either.
func keepToken(c *fiber.Ctx, tok string) {
	for _, h := range []string{fiber.HeaderLocation, "HX-Redirect"} {
		to := string(c.Response().Header.Peek(h))
		if !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") || strings.Contains(to, "token=") {
			continue
		}
		sep := "?"
		if strings.Contains(to, "?") {
			sep = "&"
		}
		c.Set(h, to+sep+"token="+url.QueryEscape(tok))
	}
}

// embedTokenHeader carries a framed page's token on the page's own requests.
const embedTokenHeader = "X-Sluice-Token"

// requireUser lets signed-in users through and sends the others to the login page. A guest
// link (?token=<guest token>) signs its guest in for that one space; a guest session is
// checked against the grant on every request, so removing the guest ends it at once.
func requireUser(s *serverSessions, d Deps, limiter *auth.Limiter) fiber.Handler {
	return func(c *fiber.Ctx) error {
		header := c.Get(embedTokenHeader)
		if tok := c.Query("token", header); tok != "" {
			if err := limiter.Check(c.Context(), c.IP(), ""); err != nil {
				return err
			}
			p, err := d.Auth.Authenticate(c.Context(), tok)
			linked := err == nil && (p.Kind == auth.GuestToken || p.Kind == auth.SpaceToken || p.Kind == auth.ClipToken) && p.SpaceID != ""
			if linked && p.Kind == auth.ClipToken {
				if err := clipReach(c, p); err != nil {
					return err
				}
			}
			if !linked {
				limiter.Failed(c.Context(), c.IP(), "") // guessing guest links is throttled per address
				if header != "" {
					return errs.E(errs.Unauthorized, "token", "This link's access ended: open the importer again")
				}
			}
			// Inside another site's frame (or with a space token) there are no cookies: the page
			// works from the token, which every request of the page carries.
			if linked && (p.Kind == auth.SpaceToken || p.Kind == auth.ClipToken || header != "" || c.Get("Sec-Fetch-Dest") == "iframe") {
				c.Locals(views.KeyEmbed, tok)
				ui.SetUser(c, ui.SessionUser{UserID: p.ActorID, AccountID: p.AccountID, Email: p.Email, EnvironmentID: p.EnvironmentID,
					GuestSpace: p.SpaceID, Visitor: p.Kind == auth.SpaceToken, ClipSheet: p.SheetID, ClipEdit: p.ClipEdit})
				err := c.Next()
				keepToken(c, tok)
				return err
			}
			if linked && p.Kind == auth.GuestToken {
				if err := s.Start(c, ui.SessionUser{UserID: p.ActorID, AccountID: p.AccountID, Email: p.Email, GuestSpace: p.SpaceID}); err != nil {
					return err
				}
				return c.Redirect("/space/"+p.SpaceID, fiber.StatusSeeOther) // the token leaves the address bar
			}
		}
		u, ok := s.User(c)
		if ok && u.GuestSpace != "" {
			if d.Auth.Guests == nil || !d.Auth.Guests.GuestReaches(c.Context(), u.UserID, u.GuestSpace) {
				ok = false
			} else if s.now().Sub(u.Since) > guestRenewal {
				if err := s.Start(c, u); err != nil {
					return err
				}
			}
		}
		if !ok {
			expired := ""
			if c.Cookies(sessionCookie) != "" {
				expired = "?expired=1"
				s.End(c)
			}
			if ui.IsHTMX(c) {
				c.Set("HX-Redirect", "/login"+expired)
				return c.SendStatus(fiber.StatusUnauthorized)
			}
			return c.Redirect("/login"+expired, fiber.StatusSeeOther)
		}
		ui.SetUser(c, u)
		return c.Next()
	}
}

// uiRoutes registers the dashboard pages, one line each.
func uiRoutes(app *fiber.App, d Deps, uploads *api.Files, suggest ui.Suggester, jobSvc *jobs.Service, mailer ui.PasswordMailer) {
	sess := newServerSessions(d.Store, d.SessionSecret, d.BaseURL)
	pages := ui.New(d.Store, sess, func() time.Time { return d.Store.Now() })
	limiter := &auth.Limiter{Store: d.Store}
	pages.Limiter = limiter
	imports := ui.NewImports(d.Store, suggest, jobSvc)
	actions := ui.NewActionPages(d.Store, jobSvc, d.Store.Now)
	admin := ui.NewAdmin(d.Store, d.Tokens, d.Sealer, d.BaseURL)
	bundle := newBundleOnce()
	protect := csrf.New(csrf.Config{
		// A framed page's requests carry its token in a header no other site can set (no CORS
		// on pages) and no cookie: there is no ambient credential to forge.
		Next:       func(c *fiber.Ctx) bool { return c.Get(embedTokenHeader) != "" },
		CookieName: "sluice_csrf", ContextKey: "csrf", CookieSameSite: "Lax", CookieHTTPOnly: true, CookieSecure: sess.secure, Expiration: sessionTTL,
		Extractor: func(c *fiber.Ctx) (string, error) {
			// The header first: reading a form value would pull a whole upload into memory.
			if t := c.Get("X-CSRF-Token"); t != "" {
				return t, nil
			}
			if t := c.FormValue("_csrf"); t != "" {
				return t, nil
			}
			return "", errors.New("missing CSRF token")
		},
		ErrorHandler: func(c *fiber.Ctx, err error) error {
			return errs.E(errs.Forbidden, "_csrf", "Your form expired. Reload the page and try again.").WithMsg("error.csrf", nil)
		},
	})
	app.Use("/static", filesystem.New(filesystem.Config{Root: static.HTTP(), MaxAge: 3600}))
	app.Get("/favicon.ico", func(c *fiber.Ctx) error { return c.Redirect("/static/img/favicon.svg", fiber.StatusMovedPermanently) })
	// Sluice's own embed script (Sluice.open) for pages of other sites: a script those pages
	// load, so it may be read cross-site.
	hostScript, _ := static.FS.ReadFile("js/host.js")
	app.Get("/embed.js", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
		c.Set(fiber.HeaderCacheControl, "public, max-age=300")
		c.Set("Cross-Origin-Resource-Policy", "cross-origin")
		return c.Send(hostScript)
	})

	// Forms are read through the JSON routes' limit; only the upload streams past it.
	page := []fiber.Handler{localize(bundle), sameOrigin(d.BaseURL), limitBody, protect, csrfToken}
	signedIn := append(page[:len(page):len(page)], requireUser(sess, d, limiter), spaceContext(d, bundle))
	streamed := []fiber.Handler{localize(bundle), sameOrigin(d.BaseURL), protect, csrfToken, requireUser(sess, d, limiter), spaceContext(d, bundle)}
	app.Get("/login", with(page, pages.LoginPage)...)
	app.Get("/space-init", with(page, func(c *fiber.Ctx) error { return ui.Render(c, fiber.StatusOK, views.SpaceInit()) })...)
	app.Post("/login", with(page, pages.Login)...)
	app.Post("/logout", with(page, pages.Logout)...)
	app.Post("/lang", with(page, pages.Language)...)
	// Forms of the admin pages and the password change land in the audit trail.
	audited := append(signedIn[:len(signedIn):len(signedIn)], auditor{d.Store}.page())
	passwords := ui.NewPasswords(d.Store, sess, mailer, limiter, d.BaseURL)
	app.Get("/password/forgot", with(page, passwords.ForgotPage)...)
	app.Post("/password/forgot", with(page, passwords.Forgot)...)
	app.Get("/password/reset/:token", with(page, passwords.ResetPage)...)
	app.Post("/password/reset/:token", with(page, passwords.Reset)...)
	app.Get("/account/password", with(signedIn, passwords.ChangePage)...)
	app.Post("/account/password", with(audited, passwords.Change)...)
	app.Get("/invite/:token", with(page, pages.InvitePage)...)
	app.Post("/invite/:token", with(page, pages.AcceptInvite)...)
	app.Get("/", with(signedIn, pages.Spaces)...)
	app.Post("/space", with(signedIn, pages.CreateSpace)...)
	app.Get("/space/:spaceId", with(signedIn, pages.Space)...)
	app.Post("/space/:spaceId/archive", with(signedIn, pages.Archive)...)
	app.Post("/space/:spaceId/unarchive", with(signedIn, pages.Unarchive)...)
	app.Post("/space/:spaceId/files", with(streamed, pages.Upload(uploads.Upload))...)
	app.Get("/space/:spaceId/files", with(signedIn, pages.Files)...)
	app.Get("/space/:spaceId/files/:fileId/download", with(signedIn, pages.Download(uploads.Download))...)
	app.Get("/space/:spaceId/sheet/:sheetId", with(signedIn, pages.Sheet)...)
	for _, r := range []struct {
		path string
		h    fiber.Handler
	}{{"/space/:spaceId/workbooks/new", pages.NewWorkbook}, {"/space/:spaceId/workbook/:workbookId/sheets/new", pages.NewSheetIn}, {"/space/:spaceId/sheet/:sheetId/schema", pages.EditSheet}} {
		app.Get(r.path, with(signedIn, r.h)...)
		app.Post(r.path, with(signedIn, r.h)...)
	}
	app.Get("/space/:spaceId/sheet/:sheetId/cell/:recordId/:fieldKey", with(signedIn, pages.Cell)...)
	app.Get("/space/:spaceId/sheet/:sheetId/cell/:recordId/:fieldKey/edit", with(signedIn, pages.EditCell)...)
	app.Get("/space/:spaceId/sheet/:sheetId/cell/:recordId/:fieldKey/lookup", with(signedIn, pages.Lookup)...)
	app.Post("/space/:spaceId/sheet/:sheetId/cell/:recordId/:fieldKey", with(signedIn, pages.SaveCell)...)
	app.Get("/space/:spaceId/sheet/:sheetId/embed", with(signedIn, pages.SheetEmbed)...)
	app.Get("/space/:spaceId/sheet/:sheetId/export", with(signedIn, pages.Export)...)
	app.Get("/space/:spaceId/sheet/:sheetId/values/:fieldKey", with(signedIn, pages.ColumnValues)...)
	app.Get("/space/:spaceId/document/:documentId", with(signedIn, pages.Document)...)
	app.Post("/space/:spaceId/sheet/:sheetId/rows", with(signedIn, pages.AddRow)...)
	app.Post("/space/:spaceId/sheet/:sheetId/edit", with(signedIn, pages.GridEdit)...)
	app.Post("/space/:spaceId/sheet/:sheetId/undo", with(signedIn, pages.Undo)...)
	app.Post("/space/:spaceId/sheet/:sheetId/redo", with(signedIn, pages.Redo)...)
	app.Post("/space/:spaceId/sheet/:sheetId/delete", with(signedIn, pages.DeleteRows)...)
	app.Post("/space/:spaceId/sheet/:sheetId/set", with(signedIn, pages.SetValue)...)
	app.Post("/space/:spaceId/sheet/:sheetId/layout", with(signedIn, pages.SaveLayout)...)
	app.Get("/space/:spaceId/sheet/:sheetId/matching", with(signedIn, pages.Matching)...)
	app.Post("/space/:spaceId/sheet/:sheetId/find-replace", with(signedIn, pages.FindReplace)...)
	app.Get("/space/:spaceId/sheet/:sheetId/find-replace/count", with(signedIn, pages.FindCount)...)
	app.Post("/space/:spaceId/sheet/:sheetId/clear/:fieldKey", with(signedIn, pages.ClearColumn)...)
	app.Post("/space/:spaceId/sheet/:sheetId/options/:fieldKey", with(signedIn, pages.AddOption)...)
	app.Post("/space/:spaceId/sheet/:sheetId/views", with(signedIn, pages.SaveView)...)
	app.Post("/space/:spaceId/sheet/:sheetId/views/:viewId/delete", with(signedIn, pages.DeleteView)...)
	app.Get("/space/:spaceId/import/:fileId", with(signedIn, imports.Page)...)
	app.Get("/space/:spaceId/import/:fileId/enum", with(signedIn, imports.Enum)...)
	app.Post("/space/:spaceId/import/:fileId", with(signedIn, imports.Run)...)
	app.Post("/space/:spaceId/import/:fileId/new-sheet", with(signedIn, imports.NewSheet)...)
	app.Post("/space/:spaceId/import/:fileId/review", with(signedIn, imports.Review)...)
	app.Get("/space/:spaceId/jobs/:jobId/progress", with(signedIn, imports.Progress)...)
	app.Get("/space/:spaceId/actions", with(signedIn, actions.Bar)...)
	app.Post("/space/:spaceId/actions/run", with(signedIn, actions.Run)...)
	app.Get("/space/:spaceId/jobs/:jobId/panel", with(signedIn, actions.Job)...)
	app.Post("/space/:spaceId/jobs/:jobId/retry", with(signedIn, actions.Retry)...)
	app.Post("/space/:spaceId/jobs/:jobId/cancel", with(signedIn, actions.Cancel)...)
	app.Post("/space/:spaceId/jobs/:jobId/outcome/ack", with(signedIn, actions.AckOutcome)...)

	app.Get("/admin", with(signedIn, func(c *fiber.Ctx) error { return c.Redirect("/admin/events", fiber.StatusSeeOther) })...)
	app.Get("/admin/events", with(signedIn, admin.Events)...)
	app.Get("/admin/audit", with(signedIn, admin.Audit)...)
	app.Get("/admin/jobs", with(signedIn, admin.Jobs)...)
	app.Get("/admin/guests", with(signedIn, admin.Guests)...)
	app.Post("/admin/guests", with(audited, admin.AddGuest)...)
	app.Post("/admin/guests/:guestId/link", with(audited, admin.GuestLink)...)
	app.Post("/admin/guests/:guestId/remove", with(audited, admin.RemoveGuest)...)
	app.Get("/admin/tokens", with(signedIn, admin.Tokens)...)
	app.Post("/admin/tokens", with(audited, admin.CreateToken)...)
	app.Post("/admin/tokens/:tokenId/delete", with(audited, admin.DeleteToken)...)
	app.Get("/admin/secrets", with(signedIn, admin.Secrets)...)
	app.Post("/admin/secrets", with(audited, admin.SaveSecret)...)
	app.Post("/admin/secrets/:secretId/delete", with(audited, admin.DeleteSecret)...)
	app.Get("/admin/environment", with(signedIn, admin.Environment)...)
	app.Post("/admin/environment", with(audited, admin.SaveEnvironment)...)
	app.Post("/admin/environment/keys", with(audited, admin.RotateKey)...)
	app.Post("/admin/embedding", with(audited, admin.SaveEmbedding)...)
	app.Get("/admin/agents", with(signedIn, admin.Agents)...)
	app.Post("/admin/agents/:agentId/revert", with(audited, admin.RevertAgent)...)
	app.Get("/admin/apps", with(signedIn, admin.Apps)...)
	app.Post("/admin/apps/:appId/template", with(audited, admin.AppTemplate)...)
	app.Get("/admin/translations", with(signedIn, admin.Translations)...)
	app.Post("/admin/translations", with(audited, admin.SaveTranslations)...)
	app.Get("/admin/theme", with(signedIn, admin.Theme)...)
	app.Post("/admin/theme", with(audited, admin.SaveTheme)...)

	app.Use(localize(bundle), func(c *fiber.Ctx) error { return fiber.ErrNotFound })
}

// with appends a page handler to its middleware.
func with(mw []fiber.Handler, h fiber.Handler) []fiber.Handler {
	return append(mw[:len(mw):len(mw)], h)
}

// renderPageError answers a page request that failed: a full page, or for htmx an alert
// partial that the page shows in its flash box.
func renderPageError(c *fiber.Ctx, d Deps, status int, e *errs.Error, msg string) error {
	if c.Locals(views.KeyLocalizer) == nil {
		c.Locals(views.KeyLocalizer, i18n.NewLocalizer(newBundleOnce(), "en"))
	}
	p := views.ErrorProps{Status: status, Title: "error.generic_title", Message: msg}
	switch {
	case status == fiber.StatusNotFound:
		p.Title, p.Message = "error.not_found_title", views.T(c.Context(), "error.not_found_body")
	case e.MsgID != "":
		p.Message = views.Tf(c.Context(), e.MsgID, e.Data)
	}
	if ui.IsHTMX(c) {
		return ui.Render(c, status, views.ErrorAlert(p))
	}
	if strings.HasPrefix(c.Path(), "/static/") {
		return c.Status(status).SendString(msg)
	}
	return ui.Render(c, status, views.ErrorPage(p))
}

// clipReach keeps a data clip's link on its clip sheet: its pages and their requests, read
// only unless the clip lets its link edit. The link never becomes a session: every request
// carries it, so revoking or renewing the link ends it at once.
func clipReach(c *fiber.Ctx, p *auth.Principal) error {
	base := "/space/" + p.SpaceID + "/sheet/" + p.SheetID
	if path := c.Path(); path != base && !strings.HasPrefix(path, base+"/") {
		return errs.NotFoundf("sheetId", "This link opens one data clip only")
	}
	if c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead && !p.ClipEdit {
		return errs.E(errs.Forbidden, "clip", "This data clip's link is read-only")
	}
	return nil
}
