package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// The chains of issue 19's black-box probe, each replayed against the fix. The permission
// table itself is checked route by route in TestAuthorizationMatrix; these follow one attacker
// from the first call to the last.

// C2: the token of a space made with the publishable key reads and writes no secret (nor keys
// nor users), while the secret key still does.
func TestSpaceTokenReachesNoSecrets(t *testing.T) {
	e := webtest.NewAPI(t)
	e.MustCall(t, "POST", "/v1/secrets", webtest.Secret, map[string]any{"name": "CRM", "value": "s3cr3t-value", "environmentId": e.EnvID})
	tok := webtest.DataOf(e.MustCall(t, "POST", "/v1/spaces", webtest.Public, map[string]any{"name": "embedded"}))["accessToken"].(string)
	sp := webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces", webtest.Secret, nil))[0].(map[string]any)["id"].(string)
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/secrets?environmentId=" + e.EnvID}, {"GET", "/v1/secrets?spaceId=" + sp}, {"GET", "/v1/secrets"},
		{"GET", "/v1/auth/api-keys?environmentId=" + e.EnvID}, {"GET", "/v1/users"}, {"GET", "/v1/guests?environmentId=" + e.EnvID},
		{"GET", "/v1/agents?environmentId=" + e.EnvID},
	} {
		if st, body := e.Request(t, c.method, c.path, tok); !webtest.Refused(st) || strings.Contains(body, "s3cr3t") {
			t.Errorf("%s %s with a space token: got %d %.120s, want 401/403", c.method, c.path, st, body)
		}
	}
	if st, _ := e.Call(t, "POST", "/v1/secrets", tok, map[string]any{"name": "CRM", "value": "overwritten", "environmentId": e.EnvID}); !webtest.Refused(st) {
		t.Errorf("a space token overwrote an environment secret: %d", st)
	}
	got := webtest.ListOf(e.MustCall(t, "GET", "/v1/secrets?environmentId="+e.EnvID, webtest.Secret, nil))
	if len(got) != 1 || got[0].(map[string]any)["value"] != "s3cr3t-value" {
		t.Errorf("the secret changed: %v", got)
	}
}

// C3: environment 2's secret key invites a user who gets environment 2 alone; the key reads
// no invitation link and cannot see, change or remove account users.
func TestEnvironmentKeyStaysInItsEnvironment(t *testing.T) {
	e := webtest.NewAPI(t)
	admin := webtest.JwtFor(t, e)
	sheet := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "one"})["id"],
		"sheets": []any{map[string]any{"name": "S", "slug": "s", "fields": []any{map[string]any{"key": "email", "type": "string"}}}}})["sheets"].([]any)[0].(map[string]any)["id"].(string)
	e.MustCall(t, "POST", "/v1/sheets/"+sheet+"/records", webtest.Secret, []any{map[string]any{"email": map[string]any{"value": "private@one.io"}}})
	e.MustCall(t, "POST", "/v1/secrets", webtest.Secret, map[string]any{"name": "CRM", "value": "env-one-secret", "environmentId": e.EnvID})

	env2, sk2, user2 := webtest.SecondEnvironment(t, e, admin)
	tok2 := func() string {
		_, out := e.Call(t, "POST", "/v1/auth", "", map[string]any{"clientId": env2, "secret": sk2})
		return out["accessToken"].(string)
	}()
	for _, tok := range []string{sk2, tok2} {
		if st, body := e.Request(t, "GET", "/v1/outbox", tok); !webtest.Refused(st) || strings.Contains(body, "/invite/") {
			t.Errorf("environment 2's key read the outbox: %d %.100s", st, body)
		}
	}
	adminID := webtest.ListOf(e.MustCall(t, "GET", "/v1/users?email="+url.QueryEscape(webtest.Email), admin, nil))[0].(map[string]any)["id"].(string)
	for _, tok := range []string{sk2, tok2, user2} {
		users := webtest.ListOf(e.MustCall(t, "GET", "/v1/users", tok, nil))
		if len(users) != 1 || users[0].(map[string]any)["email"] != "two@example.com" {
			t.Errorf("environment 2 lists users beyond it: %v", users)
		}
		for _, m := range []string{"GET", "PATCH", "DELETE"} {
			if st, _ := e.Request(t, m, "/v1/users/"+adminID, tok); st != http.StatusNotFound && !webtest.Refused(st) {
				t.Errorf("%s the account admin with environment 2's credential: %d", m, st)
			}
		}
	}
	for _, c := range []string{"/v1/sheets/" + sheet + "/records", "/v1/secrets?environmentId=" + e.EnvID, "/v1/auth/api-keys?environmentId=" + e.EnvID,
		"/v1/environments/" + e.EnvID, "/v1/spaces?environmentId=" + e.EnvID} {
		if st, body := e.Request(t, "GET", c, user2); st < 400 || strings.Contains(body, "private@one.io") || strings.Contains(body, "env-one-secret") || strings.Contains(body, webtest.Secret) {
			t.Errorf("GET %s as environment 2's user: %d %.120s", c, st, body)
		}
	}
	if st, _ := e.Request(t, "GET", "/v1/users/"+adminID, admin); st != http.StatusOK {
		t.Errorf("the admin is gone: %d", st)
	}
	// In the dashboard too, environment 1 does not exist for environment 2's user.
	b := webtest.LoggedOut(t, e)
	resp, _ := b.Do(t, "POST", "/login", url.Values{"email": {"two@example.com"}, "password": {"two's password"}, "_csrf": {b.Csrf}}, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("environment 2's user login: %d", resp.StatusCode)
	}
	if _, doc := b.Do(t, "GET", "/?env="+e.EnvID, nil, false); strings.Contains(doc.Text(), "one") && doc.Find(`a[href^="/space/"]`).Length() > 0 {
		t.Errorf("environment 2's user sees environment 1's spaces")
	}
	sp1 := webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces?environmentId="+e.EnvID, webtest.Secret, nil))[0].(map[string]any)["id"].(string)
	if resp, _ := b.Do(t, "GET", "/space/"+sp1, nil, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("environment 2's user opened environment 1's space: %d", resp.StatusCode)
	}
}

// C4: a deleted user's JWT, personal access token and dashboard session stop at once, and the
// JWT mints nothing.
func TestDeletedUserLosesEveryCredential(t *testing.T) {
	e := webtest.NewAPI(t)
	admin := webtest.JwtFor(t, e)
	u := webtest.DataOf(e.MustCall(t, "POST", "/v1/users/invite", admin, map[string]any{"email": "leaver@example.com", "name": "Leaver"}))
	link := webtest.LastInvite(t, e, "leaver@example.com")
	b := webtest.LoggedOut(t, e)
	b.Do(t, "GET", link, nil, false)
	if resp, _ := b.Do(t, "POST", link, url.Values{"password": {"leaver's password"}, "confirm": {"leaver's password"}, "_csrf": {b.Csrf}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("accept: %d", resp.StatusCode)
	}
	_, out := e.Call(t, "POST", "/v1/auth", "", map[string]any{"email": "leaver@example.com", "password": "leaver's password"})
	jwt := out["accessToken"].(string)
	pat := webtest.DataOf(e.MustCall(t, "POST", "/v1/auth/personal-access-tokens", jwt, map[string]any{"name": "mine"}))["token"].(string)
	if resp, _ := b.Do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusOK {
		t.Fatalf("the session before deletion: %d", resp.StatusCode)
	}

	e.MustCall(t, "DELETE", "/v1/users/"+u["id"].(string), admin, nil)
	for name, tok := range map[string]string{"JWT": jwt, "PAT": pat} {
		if st, _ := e.Request(t, "GET", "/v1/spaces", tok); st != http.StatusUnauthorized {
			t.Errorf("the deleted user's %s: got %d, want 401", name, st)
		}
	}
	if st, _ := e.Call(t, "POST", "/v1/auth/personal-access-tokens", jwt, map[string]any{"name": "forever"}); st != http.StatusUnauthorized {
		t.Errorf("the deleted user's JWT minted a PAT: %d", st)
	}
	if resp, _ := b.Do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("the deleted user's session: got %d %q, want a redirect to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
	if st, _ := e.Call(t, "POST", "/v1/auth", "", map[string]any{"email": "leaver@example.com", "password": "leaver's password"}); st != http.StatusUnauthorized {
		t.Errorf("the deleted user signed in again: %d", st)
	}
}

// H1: rotating the secret key ends the old key and every token exchanged from it; none of
// them reads the new key.
func TestRotationEndsExchangedTokens(t *testing.T) {
	e := webtest.NewAPI(t)
	_, out := e.Call(t, "POST", "/v1/auth", "", map[string]any{"clientId": e.EnvID, "secret": webtest.Secret})
	old := out["accessToken"].(string)
	if st, _ := e.Request(t, "GET", "/v1/spaces", old); st != http.StatusOK {
		t.Fatalf("exchanged token before rotation: %d", st)
	}
	b := webtest.LoggedIn(t, e)
	b.Do(t, "GET", "/admin/environment", nil, false)
	if resp, _ := b.Do(t, "POST", "/admin/environment/keys", url.Values{"type": {"SECRET"}}, true); resp.StatusCode != http.StatusOK {
		t.Fatalf("rotate: %d", resp.StatusCode)
	}
	for name, tok := range map[string]string{"old key": webtest.Secret, "token exchanged from it": old} {
		for _, path := range []string{"/v1/spaces", "/v1/auth/api-keys?environmentId=" + e.EnvID} {
			if st, body := e.Request(t, "GET", path, tok); st != http.StatusUnauthorized {
				t.Errorf("GET %s with the %s: got %d %.100s, want 401", path, name, st, body)
			}
		}
	}
}

// M1: logging out ends the session on the server: a copy of the cookie taken before does not
// work after.
func TestLogoutEndsTheSessionEverywhere(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	stolen := map[string]string{}
	for k, v := range b.Cookies {
		stolen[k] = v
	}
	if resp, _ := b.Do(t, "POST", "/logout", url.Values{"_csrf": {b.Csrf}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	thief := &webtest.BrowserSession{E: e, Cookies: stolen}
	if resp, _ := thief.Do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("a cookie copied before logout: got %d %q, want a redirect to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// L3: the CSRF token of the login page is not the one of the signed-in session.
func TestLoginRotatesTheCSRFToken(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedOut(t, e)
	before := b.Csrf
	b.Do(t, "POST", "/login", url.Values{"email": {webtest.Email}, "password": {webtest.Password}, "_csrf": {b.Csrf}}, false)
	b.Do(t, "GET", "/", nil, false)
	if b.Csrf == "" || b.Csrf == before {
		t.Fatalf("CSRF token after login: %q (before %q)", b.Csrf, before)
	}
	form := url.Values{"name": {"x"}, "_csrf": {before}}
	b.Cookies["sluice_csrf"] = before
	if resp, _ := b.Do(t, "POST", "/space", form, false); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the pre-login CSRF token still works: %d", resp.StatusCode)
	}
}

// L7: a guest token reads neither environments nor the account.
func TestGuestSeesNoEnvironmentOrAccount(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.BuildAuthzWorld(t, e)
	for _, path := range []string{"/v1/environments", "/v1/environments/" + e.EnvID, "/v1/accounts/current"} {
		if st, _ := e.Request(t, "GET", path, w.Tokens["guest of A"]); !webtest.Refused(st) {
			t.Errorf("GET %s as a guest: got %d, want 401/403", path, st)
		}
	}
}

// L6: API keys are stored as hashes. A new environment's secret key is in the first list of
// its keys and never again (the hint names it); publishable keys stay visible.
func TestKeysAreHashedAndShownOnce(t *testing.T) {
	e := webtest.NewAPI(t)
	admin := webtest.JwtFor(t, e)
	if n, err := e.DB.CountForTest(t.Context(), `SELECT COUNT(*) FROM api_keys WHERE raw LIKE 'sk_%' OR raw LIKE 'pk_%' OR raw NOT LIKE 'sha256:%'`); err != nil || n != 0 {
		t.Fatalf("keys in the clear: %d %v", n, err)
	}
	env := webtest.DataOf(e.MustCall(t, "POST", "/v1/environments", admin, map[string]any{"name": "Three", "isProd": false}))["id"].(string)
	keysOf := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, k := range webtest.ListOf(e.MustCall(t, "GET", "/v1/auth/api-keys?environmentId="+env, admin, nil)) {
			out[k.(map[string]any)["type"].(string)] = k.(map[string]any)
		}
		return out
	}
	first := keysOf()
	sk, _ := first["SECRET"]["rawKey"].(string)
	if !strings.HasPrefix(sk, "sk_") || !strings.HasPrefix(first["PUBLISHABLE"]["rawKey"].(string), "pk_") {
		t.Fatalf("first list: %v", first)
	}
	second := keysOf()
	if _, shown := second["SECRET"]["rawKey"]; shown {
		t.Errorf("the secret key was shown twice: %v", second["SECRET"])
	}
	if hint, _ := second["SECRET"]["secret"].(string); !strings.HasPrefix(hint, sk[:6]) || !strings.HasSuffix(hint, sk[len(sk)-4:]) || strings.Contains(hint, sk) {
		t.Errorf("the hint %q does not name %s without revealing it", hint, sk)
	}
	if second["PUBLISHABLE"]["rawKey"] != first["PUBLISHABLE"]["rawKey"] {
		t.Errorf("publishable key hidden: %v", second["PUBLISHABLE"])
	}
	if st, _ := e.Request(t, "GET", "/v1/spaces", sk); st != http.StatusOK {
		t.Errorf("the revealed key does not work: %d", st)
	}
}

// M6: an agent's webhook URL may not point at this machine or a private network (blind SSRF)
// unless SLUICE_ALLOW_PRIVATE_WEBHOOKS says so.
func TestPrivateWebhookURLsRefused(t *testing.T) {
	webtest.AllowPrivateWebhooks = false
	defer func() { webtest.AllowPrivateWebhooks = true }()
	e := webtest.NewAPI(t)
	for _, u := range []string{"http://127.0.0.1:9/x", "http://localhost/x", "http://10.1.2.3/", "http://169.254.169.254/latest/meta-data/",
		"http://[::1]/", "http://192.168.0.10/", "http://100.64.1.1/", "http://0.0.0.0/", "http://metadata.google.internal/"} {
		st, out := e.Call(t, "POST", "/v1/agents?environmentId="+e.EnvID, webtest.Secret, map[string]any{"topics": []any{"space:created"}, "url": u})
		if st != http.StatusBadRequest || !strings.Contains(webtest.ErrorMessage(out), "private network") {
			t.Errorf("agent with url %s: got %d %v, want 400 naming the private network", u, st, out)
		}
	}
	if st, out := e.Call(t, "POST", "/v1/agents?environmentId="+e.EnvID, webtest.Secret, map[string]any{"topics": []any{"space:created"}, "url": "https://hooks.example.com/in"}); st != http.StatusOK {
		t.Errorf("a public URL: %d %v", st, out)
	}
}
