package web

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/helmet"

	"github.com/sluice/sluice/errs"
)

// contentSecurityPolicy allows scripts only from Sluice itself (no inline scripts, no on*=
// handlers, no eval: static/js wires behaviour from data- attributes), pages framed only by
// Sluice, and forms posted only to Sluice. Styles may be inline: a space's theme is a <style>
// block. Images come from Sluice or data: URLs only: a document or field description written
// by anyone cannot make an admin's browser call a third party (tracking pixels).
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; frame-ancestors 'self'; base-uri 'self'; form-action 'self'; object-src 'none'"

// securityHeaders sets the browser's protections on every answer (through gofiber's helmet):
// CSP, nosniff, framing, referrer and permissions policies; HSTS when Sluice is served over
// https; and Cache-Control: no-store on everything but static assets, so no page, key or
// secret is kept by a browser or proxy cache.
func securityHeaders(baseURL string, list allowlist) []fiber.Handler {
	hsts := 0
	if strings.HasPrefix(baseURL, "https://") {
		hsts = 365 * 24 * 3600
	}
	h := helmet.New(helmet.Config{
		ContentSecurityPolicy:     contentSecurityPolicy,
		ReferrerPolicy:            "strict-origin-when-cross-origin",
		PermissionPolicy:          "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
		CrossOriginEmbedderPolicy: "unsafe-none", // theme logos load from other origins
		CrossOriginResourcePolicy: "same-site",
	})
	return []fiber.Handler{h, func(c *fiber.Ctx) error {
		err := c.Next()
		// Pages may be framed by Sluice itself and by the origins of the embedding allowlist.
		if strings.HasPrefix(string(c.Response().Header.ContentType()), fiber.MIMETextHTML) {
			if origins := list.origins(c.Context()); len(origins) > 0 {
				c.Set(fiber.HeaderContentSecurityPolicy, strings.Replace(contentSecurityPolicy, "frame-ancestors 'self'",
					"frame-ancestors 'self' "+strings.Join(origins, " "), 1))
				c.Response().Header.Del(fiber.HeaderXFrameOptions) // it knows no list; the CSP decides
			}
		}
		if !strings.HasPrefix(c.Path(), "/static/") && len(c.Response().Header.Peek(fiber.HeaderCacheControl)) == 0 {
			c.Set(fiber.HeaderCacheControl, "no-store")
		}
		if hsts > 0 { // behind a TLS proxy c.Protocol() says http: the base URL decides
			c.Set(fiber.HeaderStrictTransportSecurity, "max-age=31536000; includeSubDomains")
		}
		return err
	}}
}

// sameOrigin refuses state-changing page requests sent from another site: the Origin header
// (or, without it, the Referer) must name Sluice itself. The CSRF token remains the main
// defence; this one costs nothing and needs no token.
func sameOrigin(baseURL string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		switch c.Method() {
		case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
			return c.Next()
		}
		from := c.Get(fiber.HeaderOrigin)
		if from == "" {
			from = c.Get(fiber.HeaderReferer)
		}
		if from == "" {
			return c.Next() // non-browser clients send neither; the CSRF token still applies
		}
		if !ownOrigin(c, baseURL, from) {
			return errs.E(errs.Forbidden, "Origin", "This form was sent from another site (%s)", originOf(from)).WithMsg("error.csrf", nil)
		}
		return c.Next()
	}
}

func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

// ownOrigin reports whether raw (an Origin or a Referer) is Sluice: the base URL's origin
// when one is set, else the origin the request itself was sent to.
func ownOrigin(c *fiber.Ctx, baseURL, raw string) bool {
	want := c.Protocol() + "://" + c.Hostname()
	if baseURL != "" {
		want = originOf(baseURL)
	}
	return strings.EqualFold(originOf(raw), want)
}
