package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// The embedding allowlist drives CORS on the API and frame-ancestors on the pages; an origin
// not on it gets neither.
func TestEmbeddingAllowlistCORSAndFraming(t *testing.T) {
	e := webtest.NewAPI(t)
	if resp := e.Raw(t, "GET", "/login", nil, ""); resp.Header.Get("X-Frame-Options") != "SAMEORIGIN" ||
		!strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'self';") {
		t.Fatalf("before any allowlist: XFO %q CSP %q", resp.Header.Get("X-Frame-Options"), resp.Header.Get("Content-Security-Policy"))
	}
	if st, out := e.Call(t, "PATCH", "/v1/accounts/current", webtest.JwtFor(t, e), map[string]any{"embeddedDomainWhitelist": []any{"localhost:5173/app"}}); st != 400 || webtest.ErrorKey(t, out) != "embeddedDomainWhitelist" {
		t.Fatalf("a bad origin: %d %v", st, out)
	}
	e.AllowOrigins(t, webtest.HostOrigin, "https://App.Example.com/")
	acc := webtest.DataOf(e.MustCall(t, "GET", "/v1/accounts/current", webtest.Secret, nil))
	if l := acc["embeddedDomainWhitelist"].([]any); l[1] != "https://app.example.com" {
		t.Errorf("origins are not normalized: %v", l)
	}

	pre := func(origin string) *http.Response {
		return e.Raw(t, "OPTIONS", "/v1/spaces", map[string]string{"Origin": origin, "Access-Control-Request-Method": "POST",
			"Access-Control-Request-Headers": "authorization,content-type,x-disable-hooks,x-fern-language,x-fern-sdk-version,x-evil"}, "")
	}
	resp := pre(webtest.HostOrigin)
	allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != webtest.HostOrigin ||
		!strings.Contains(allowed, "authorization") || !strings.Contains(allowed, "x-fern-sdk-version") || !strings.Contains(allowed, "x-disable-hooks") || strings.Contains(allowed, "x-evil") {
		t.Errorf("preflight from a listed origin: %d ACAO %q headers %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), allowed)
	}
	if resp := pre("http://evil.example"); resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin: %d ACAO %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	get := func(origin string) *http.Response {
		return e.Raw(t, "GET", "/v1/spaces", map[string]string{"Origin": origin, "Authorization": "Bearer " + webtest.Secret}, "")
	}
	if r := get(webtest.HostOrigin); r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != webtest.HostOrigin {
		t.Errorf("a listed origin's call: %d ACAO %q", r.StatusCode, r.Header.Get("Access-Control-Allow-Origin"))
	}
	if r := get("http://evil.example"); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("an unlisted origin got ACAO %q", r.Header.Get("Access-Control-Allow-Origin"))
	}
	page := e.Raw(t, "GET", "/login", nil, "")
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self' "+webtest.HostOrigin+" https://app.example.com;") || page.Header.Get("X-Frame-Options") != "" {
		t.Errorf("pages with an allowlist: CSP %q XFO %q", csp, page.Header.Get("X-Frame-Options"))
	}
}

// POST /v1/internal/spaces/init: what @flatfile/javascript sends (text/plain JSON, the
// publishable key in the query) makes the space, its workbook and document, and a token for
// that space alone; bad keys and bad bodies leave nothing behind.
func TestEmbeddedSpaceInit(t *testing.T) {
	e := webtest.NewAPI(t)
	e.AllowOrigins(t, webtest.HostOrigin)
	spaces := func() int { return len(webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces", webtest.Secret, nil))) }
	before := spaces()
	body := `{"space":{"name":"Contacts import","autoConfigure":false,"labels":["embedded"],"namespace":"portal",
		"metadata":{"theme":{"root":{"primaryColor":"#0f766e"}},"sidebarConfig":{"showSidebar":false},"userInfo":{"name":"Ann"}}},
		"workbook":{"name":"Contacts","sheets":[{"name":"Contacts","slug":"contacts","fields":[{"key":"email","type":"string","label":"Email"}]}],
		"actions":[{"operation":"simpleSubmitAction","mode":"foreground","label":"Submit","primary":true}]},
		"document":{"title":"Welcome","body":"<p>Upload your contacts.</p>"}}`
	post := func(q, body string) (*http.Response, string) {
		resp := e.Raw(t, "POST", "/v1/internal/spaces/init"+q, map[string]string{"Content-Type": "text/plain", "Origin": webtest.HostOrigin}, body)
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for name, c := range map[string]struct{ q, body string }{
		"no key":           {"", body},
		"unknown key":      {"?publishableKey=pk_nope", body},
		"a secret key":     {"?publishableKey=" + webtest.Secret, body},
		"malformed body":   {"?publishableKey=" + webtest.Public, `{"space":`},
		"no space":         {"?publishableKey=" + webtest.Public, `{}`},
		"bad field type":   {"?publishableKey=" + webtest.Public, `{"space":{"name":"x"},"workbook":{"name":"W","sheets":[{"name":"S","fields":[{"key":"a","type":"nope"}]}]}}`},
		"document no body": {"?publishableKey=" + webtest.Public, `{"space":{"name":"x"},"document":{"title":"t"}}`},
	} {
		resp, out := post(c.q, c.body)
		if resp.StatusCode < 400 || !strings.Contains(out, `"errors"`) {
			t.Errorf("%s: got %d %s, want a JSON error", name, resp.StatusCode, out)
		}
	}
	if n := spaces(); n != before {
		t.Fatalf("refused inits left %d spaces behind", n-before)
	}

	resp, out := post("?publishableKey="+webtest.Public, body)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != webtest.HostOrigin {
		t.Fatalf("init: %d ACAO %q %s", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), out)
	}
	var got struct {
		Data struct {
			Space struct {
				ID, AccessToken, GuestLink, Namespace string
				Labels                                []string
			}
			Workbook struct {
				ID      string
				Actions []map[string]any
				Sheets  []map[string]any
			}
			Document struct{ ID string }
		}
	}
	if err := webtest.JsonUnmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	sp := got.Data.Space
	if sp.ID == "" || sp.AccessToken == "" || sp.Namespace != "portal" || len(sp.Labels) != 1 || sp.Labels[0] != "embedded" ||
		!strings.HasSuffix(strings.SplitN(sp.GuestLink, "?", 2)[0], "/space/"+sp.ID) || !strings.Contains(sp.GuestLink, "token=") {
		t.Fatalf("space: %+v", sp)
	}
	if got.Data.Workbook.ID == "" || len(got.Data.Workbook.Sheets) != 1 || got.Data.Workbook.Actions[0]["operation"] != "simpleSubmitAction" || got.Data.Document.ID == "" {
		t.Fatalf("workbook and document: %+v", got.Data)
	}
	// The token reaches its space and nothing environment-wide.
	if st, _ := e.Call(t, "GET", "/v1/workbooks/"+got.Data.Workbook.ID, sp.AccessToken, nil); st != 200 {
		t.Errorf("the space token reading its workbook: %d", st)
	}
	for _, path := range []string{"/v1/secrets", "/v1/spaces", "/v1/users", "/v1/auth/api-keys"} {
		if st, _ := e.Call(t, "GET", path, sp.AccessToken, nil); st != 403 {
			t.Errorf("GET %s with the embedded space's token: %d, want 403", path, st)
		}
	}
}

// A page opened in another site's frame works from the token in its address, with no cookie:
// it starts no session, every request of the page carries the token, and it reaches its space
// only.
func TestFramedPageWorksWithoutCookies(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sheetID, token, link := e.InitSpace(t)
	other := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "other"})
	u, _ := url.Parse(link)
	// The guest link opens the space's first sheet (no sidebarConfig.defaultPage here), the
	// token kept in the address.
	resp := e.Raw(t, "GET", u.RequestURI(), map[string]string{"Sec-Fetch-Dest": "iframe"}, "")
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/space/"+spaceID+"/sheet/"+sheetID+"?token=") {
		t.Fatalf("the framed space page: %d to %q, want its first sheet with the token", resp.StatusCode, loc)
	}
	resp = e.Raw(t, "GET", resp.Header.Get("Location"), map[string]string{"Sec-Fetch-Dest": "iframe"}, "")
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `name="sluice-embed-token"`) || !strings.Contains(string(b), "X-Sluice-Token") {
		t.Fatalf("the framed sheet page: %d", resp.StatusCode)
	}
	for _, chrome := range []string{`data-testid="logout"`, `data-testid="admin-link"`, `data-testid="sidebar"`} {
		if strings.Contains(string(b), chrome) {
			t.Errorf("the framed page shows the dashboard's %s (the space asked for no sidebar)", chrome)
		}
	}
	for _, c := range resp.Cookies() {
		if c.Name == "sluice_session" {
			t.Errorf("a framed page started a session cookie")
		}
	}
	post := func(tok string) *http.Response {
		return e.Raw(t, "POST", "/space/"+spaceID+"/sheet/"+sheetID+"/rows", map[string]string{"X-Sluice-Token": tok, "HX-Request": "true",
			"Content-Type": "application/x-www-form-urlencoded"}, "")
	}
	if r := post(token); r.StatusCode >= 300 || !strings.Contains(r.Header.Get("HX-Redirect"), "token="+url.QueryEscape(token)) {
		t.Errorf("adding a row with the token and no cookie: %d, redirect %q (the next page needs the token too)", r.StatusCode, r.Header.Get("HX-Redirect"))
	}
	counts := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/counts", webtest.Secret, nil))["counts"].(map[string]any)
	if counts["total"] != 1.0 {
		t.Errorf("records after the framed page added a row: %v", counts)
	}
	if st := post(token + "x").StatusCode; st != http.StatusUnauthorized {
		t.Errorf("a bad token: %d, want 401", st)
	}
	if r := e.Raw(t, "GET", "/space/"+other["id"].(string)+"?token="+url.QueryEscape(token), map[string]string{"Sec-Fetch-Dest": "iframe"}, ""); r.StatusCode != http.StatusNotFound {
		t.Errorf("another space with this token: %d, want 404", r.StatusCode)
	}
	if r := e.Raw(t, "GET", "/space-init", nil, ""); r.StatusCode != 200 {
		t.Errorf("/space-init: %d", r.StatusCode)
	}
}

// The allowlist is edited on the admin Environment page by account users.
func TestEmbeddingAllowlistOnTheEnvironmentPage(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	if _, doc := b.Do(t, "GET", "/admin/environment", nil, false); doc.Find(`[data-testid=embedding-form] textarea[name=origins]`).Length() != 1 {
		t.Fatal("no allowlist form on the environment page")
	}
	if resp, doc := b.Do(t, "POST", "/admin/embedding", url.Values{"origins": {"not an origin"}, "env": {e.EnvID}}, true); resp.StatusCode != 400 || !strings.Contains(doc.Text(), "is not an origin") {
		t.Errorf("a bad origin: %d %q", resp.StatusCode, doc.Text())
	}
	resp, _ := b.Do(t, "POST", "/admin/embedding", url.Values{"origins": {webtest.HostOrigin + "\nhttps://App.Example.com"}, "env": {e.EnvID}}, true)
	if resp.StatusCode >= 300 {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	// The page it returns to says the list was saved.
	if _, doc := b.Do(t, "GET", resp.Header.Get("HX-Redirect"), nil, false); doc.Find(`[data-testid=environment-saved]`).Length() != 1 {
		t.Errorf("no confirmation after saving the allowlist (redirect %q)", resp.Header.Get("HX-Redirect"))
	}
	acc := webtest.DataOf(e.MustCall(t, "GET", "/v1/accounts/current", webtest.Secret, nil))
	if l := acc["embeddedDomainWhitelist"].([]any); len(l) != 2 || l[0] != webtest.HostOrigin || l[1] != "https://app.example.com" {
		t.Errorf("allowlist after the form: %v", l)
	}
	if _, doc := b.Do(t, "GET", "/admin/environment", nil, false); !strings.Contains(doc.Find(`textarea[name=origins]`).Text(), webtest.HostOrigin) {
		t.Errorf("the form does not show the saved list")
	}
}

// An embedding site not on the allowlist is refused by the server, not only by the browser:
// its text/plain space init (a CORS simple request) creates nothing, and the refusal is
// readable by the page so /embed.js can say what to do.
func TestUnlistedOriginCreatesNoSpace(t *testing.T) {
	e := webtest.NewAPI(t)
	e.AllowOrigins(t, webtest.HostOrigin)
	count := func() int {
		return len(webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces?pageSize=100", webtest.Secret, nil)))
	}
	before := count()
	body := `{"space":{"name":"drive-by"}}`
	resp := e.Raw(t, "POST", "/v1/internal/spaces/init?publishableKey="+webtest.Public, map[string]string{"Content-Type": "text/plain", "Origin": "http://evil.example"}, body)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 403 || !strings.Contains(string(b), "Admin → Environment → Embedding") || resp.Header.Get("Access-Control-Allow-Origin") != "http://evil.example" {
		t.Fatalf("init from an unlisted origin: %d ACAO %q %s", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), b)
	}
	resp = e.Raw(t, "POST", "/v1/spaces", map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example", "Authorization": "Bearer " + webtest.Public}, body)
	if resp.StatusCode != 403 {
		t.Fatalf("POST /v1/spaces with the publishable key from an unlisted origin: %d", resp.StatusCode)
	}
	if n := count(); n != before {
		t.Fatalf("%d spaces were created from an unlisted origin", n-before)
	}
	// Server-side integrations (no Origin) and listed origins still work.
	for _, origin := range []string{"", webtest.HostOrigin} {
		h := map[string]string{"Content-Type": "text/plain"}
		if origin != "" {
			h["Origin"] = origin
		}
		if resp := e.Raw(t, "POST", "/v1/internal/spaces/init?publishableKey="+webtest.Public, h, body); resp.StatusCode != 200 {
			t.Errorf("init with Origin %q: %d", origin, resp.StatusCode)
		}
	}
}

// The public space init is throttled per address and takes 1 MiB at most: the publishable
// key is public, and each init stores a space.
func TestSpaceInitIsThrottled(t *testing.T) {
	e := webtest.NewAPI(t)
	init := func(body string) *http.Response {
		return e.Raw(t, "POST", "/v1/internal/spaces/init?publishableKey="+webtest.Public, map[string]string{"Content-Type": "text/plain"}, body)
	}
	big := `{"space":{"name":"x","metadata":{"blob":"` + strings.Repeat("x", 2<<20) + `"}}}`
	if resp := init(big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a 2 MiB init: %d, want 413", resp.StatusCode)
	}
	ok := 0
	for range 25 {
		resp := init(`{"space":{"name":"x"}}`)
		if resp.StatusCode == 200 {
			ok++
			continue
		}
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("init %d: %d", ok+1, resp.StatusCode)
		}
		break
	}
	if ok != 19 && ok != 20 {
		t.Fatalf("%d inits went through from one address before the throttle, want 20", ok)
	}
}
