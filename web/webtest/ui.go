package webtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// BrowserSession is a cookie jar and CSRF token for page tests.
type BrowserSession struct {
	E       *Env
	Cookies map[string]string
	Csrf    string
}

func (b *BrowserSession) Do(t testing.TB, method, path string, form url.Values, htmx bool) (*http.Response, *goquery.Document) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp := b.Send(t, req, htmx)
	raw, _ := io.ReadAll(resp.Body)
	html := string(raw)
	switch { // row and cell partials: HTML parsers drop <tr> and <td> outside a table
	case strings.HasPrefix(html, "<tr"):
		html = "<table>" + html + "</table>"
	case strings.HasPrefix(html, "<td"):
		html = "<table><tr>" + html + "</tr></table>"
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	if tok, ok := doc.Find(`input[name=_csrf]`).First().Attr("value"); ok && tok != "" {
		b.Csrf = tok
	}
	return resp, doc
}

// Send runs req in the app with the session's cookies (and, for htmx, its headers and CSRF
// token) and keeps the cookies the answer sets, as a browser does.
func (b *BrowserSession) Send(t testing.TB, req *http.Request, htmx bool) *http.Response {
	t.Helper()
	if htmx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", b.Csrf)
	}
	for k, v := range b.Cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	resp, err := b.E.App.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.Cookies, c.Name)
		} else {
			b.Cookies[c.Name] = c.Value
		}
	}
	return resp
}

func LoggedOut(t testing.TB, e *Env) *BrowserSession {
	t.Helper()
	b := &BrowserSession{E: e, Cookies: map[string]string{}}
	b.Do(t, "GET", "/login", nil, false)
	if b.Csrf == "" {
		t.Fatal("login page has no CSRF token")
	}
	return b
}

func LoggedIn(t testing.TB, e *Env) *BrowserSession {
	t.Helper()
	b := LoggedOut(t, e)
	resp, _ := b.Do(t, "POST", "/login", url.Values{"email": {Email}, "password": {Password}, "_csrf": {b.Csrf}}, false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("login: got %d to %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	b.Do(t, "GET", "/", nil, false) // as a browser follows the redirect: the CSRF token is new after a login
	return b
}

var MsgID = regexp.MustCompile(`T[fn]?\(ctx, "([a-z_]+(?:\.[a-z_]+)+)"|"((?:login|spaces|space|error|nav|app|grid|doc|map|action|job|view|theme|admin|upload|toast)\.[a-z_]+)"`)
