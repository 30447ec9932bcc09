package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// Security headers on every page and API answer; pages carry no inline script, on*= handler
// or htmx feature that needs eval, so the CSP (script-src 'self') holds without breaking them.
func TestSecurityHeadersAndNoInlineScript(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.BuildAuthzWorld(t, e)
	a := w.Ids["A"]
	b := webtest.LoggedIn(t, e)
	pages := []string{"/", "/space/" + a["spaceId"], "/space/" + a["spaceId"] + "/sheet/" + a["sheetId"], "/space/" + a["spaceId"] + "/files",
		"/admin/events", "/admin/jobs", "/admin/guests", "/admin/tokens", "/admin/secrets",
		"/admin/environment", "/admin/agents", "/admin/apps", "/admin/translations", "/admin/theme", "/login"}
	for _, p := range pages {
		resp, doc := b.Do(t, "GET", p, nil, false)
		html, _ := doc.Html()
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d", p, resp.StatusCode)
			continue
		}
		for _, want := range []string{"default-src 'self'", "script-src 'self';", "frame-ancestors 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("GET %s: CSP %q lacks %q", p, csp, want)
			}
		}
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "strict-origin-when-cross-origin", "Cache-Control": "no-store"} {
			if h.Get(k) != v {
				t.Errorf("GET %s: %s = %q, want %q", p, k, h.Get(k), v)
			}
		}
		if h.Get("Permissions-Policy") == "" {
			t.Errorf("GET %s: no Permissions-Policy", p)
		}
		for _, m := range webtest.InlineScript.FindAllString(html, -1) {
			if !strings.Contains(m, "src=") {
				t.Errorf("GET %s: inline script %s", p, m)
			}
		}
		for _, re := range []*regexp.Regexp{webtest.InlineHandler, webtest.HtmxOn, webtest.EvalFilter} {
			if m := re.FindString(html); m != "" {
				t.Errorf("GET %s: %q needs inline script or eval", p, m)
			}
		}
	}
	// Answers that carry keys or secrets are not cached either.
	for _, p := range []string{"/v1/auth/api-keys?environmentId=" + e.EnvID, "/v1/secrets?environmentId=" + e.EnvID} {
		req := httptest.NewRequest("GET", p, nil)
		req.Header.Set("Authorization", "Bearer "+w.Tokens["admin JWT"])
		resp, _ := e.App.Test(req, -1)
		if resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: Cache-Control %q nosniff %q", p, resp.Header.Get("Cache-Control"), resp.Header.Get("X-Content-Type-Options"))
		}
	}
}

// L3: a state-changing form sent from another site is refused by its Origin even with a valid
// CSRF token; from Sluice itself it works.
func TestOriginCheckedOnForms(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	post := func(origin string) int {
		req := httptest.NewRequest("POST", "/space", strings.NewReader(url.Values{"name": {"from " + origin}, "_csrf": {b.Csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		for k, v := range b.Cookies {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		resp, err := e.App.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode
	}
	if st := post("https://evil.example"); st != http.StatusForbidden {
		t.Errorf("a form from another site: %d, want 403", st)
	}
	if st := post("http://example.com"); st >= 400 {
		t.Errorf("a form from Sluice itself: %d", st)
	}
}

// L4: the language menu sends the user back to the page it was on, and never off Sluice
// whatever the Referer says.
func TestLanguageRedirectStaysOnSluice(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedOut(t, e)
	for referer, want := range map[string]string{
		"http://example.com/login?x=1":           "/login?x=1",
		"http://example.com.evil.example/phish":  "/",
		"http://example.com:80.evil.example/x":   "/",
		"https://evil.example//example.com/path": "/",
		"":                                       "/",
	} {
		req := httptest.NewRequest("POST", "/lang", strings.NewReader(url.Values{"lang": {"de"}, "_csrf": {b.Csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if referer != "" {
			req.Header.Set("Referer", referer)
		}
		for k, v := range b.Cookies {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		resp, _ := e.App.Test(req, -1)
		if loc := resp.Header.Get("Location"); (resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusForbidden) || (resp.StatusCode == http.StatusSeeOther && loc != want) {
			t.Errorf("Referer %q: got %d to %q, want a redirect to %q (or a refusal)", referer, resp.StatusCode, loc, want)
		}
	}
}

// HSTS is sent when Sluice is served over https (the base URL says so, whatever proxy ends
// TLS in front of it), and not in plain-http development.
func TestHSTSOnlyOverHTTPS(t *testing.T) {
	get := func() string {
		resp, err := webtest.NewAPI(t).App.Test(httptest.NewRequest("GET", "/login", nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header.Get("Strict-Transport-Security")
	}
	if h := get(); h != "" {
		t.Errorf("plain http sends HSTS %q", h)
	}
	webtest.BaseURL = "https://sluice.example.com"
	defer func() { webtest.BaseURL = "" }()
	if h := get(); !strings.Contains(h, "max-age=31536000") {
		t.Errorf("https base URL: HSTS %q", h)
	}
}
