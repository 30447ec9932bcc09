package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The chains of issue 19's black-box probe, each replayed against the fix. The permission
// table itself is checked route by route in TestAuthorizationMatrix; these follow one attacker
// from the first call to the last.

func refused(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

// C2: the token of a space made with the publishable key reads and writes no secret (nor keys
// nor users), while the secret key still does.
func TestSpaceTokenReachesNoSecrets(t *testing.T) {
	e := newAPI(t)
	e.mustCall(t, "POST", "/v1/secrets", testSecret, map[string]any{"name": "CRM", "value": "s3cr3t-value", "environmentId": e.envID})
	tok := dataOf(e.mustCall(t, "POST", "/v1/spaces", testPublic, map[string]any{"name": "embedded"}))["accessToken"].(string)
	sp := listOf(e.mustCall(t, "GET", "/v1/spaces", testSecret, nil))[0].(map[string]any)["id"].(string)
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/secrets?environmentId=" + e.envID}, {"GET", "/v1/secrets?spaceId=" + sp}, {"GET", "/v1/secrets"},
		{"GET", "/v1/auth/api-keys?environmentId=" + e.envID}, {"GET", "/v1/users"}, {"GET", "/v1/guests?environmentId=" + e.envID},
		{"GET", "/v1/agents?environmentId=" + e.envID},
	} {
		if st, body := e.request(t, c.method, c.path, tok); !refused(st) || strings.Contains(body, "s3cr3t") {
			t.Errorf("%s %s with a space token: got %d %.120s, want 401/403", c.method, c.path, st, body)
		}
	}
	if st, _ := e.call(t, "POST", "/v1/secrets", tok, map[string]any{"name": "CRM", "value": "overwritten", "environmentId": e.envID}); !refused(st) {
		t.Errorf("a space token overwrote an environment secret: %d", st)
	}
	got := listOf(e.mustCall(t, "GET", "/v1/secrets?environmentId="+e.envID, testSecret, nil))
	if len(got) != 1 || got[0].(map[string]any)["value"] != "s3cr3t-value" {
		t.Errorf("the secret changed: %v", got)
	}
}

// C3: environment 2's secret key invites a user who gets environment 2 alone; the key reads
// no invitation link and cannot see, change or remove account users.
func TestEnvironmentKeyStaysInItsEnvironment(t *testing.T) {
	e := newAPI(t)
	admin := jwtFor(t, e)
	sheet := e.mustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": e.mustCreateSpace(t, testSecret, map[string]any{"name": "one"})["id"],
		"sheets": []any{map[string]any{"name": "S", "slug": "s", "fields": []any{map[string]any{"key": "email", "type": "string"}}}}})["sheets"].([]any)[0].(map[string]any)["id"].(string)
	e.mustCall(t, "POST", "/v1/sheets/"+sheet+"/records", testSecret, []any{map[string]any{"email": map[string]any{"value": "private@one.io"}}})
	e.mustCall(t, "POST", "/v1/secrets", testSecret, map[string]any{"name": "CRM", "value": "env-one-secret", "environmentId": e.envID})

	env2, sk2, user2 := secondEnvironment(t, e, admin)
	tok2 := func() string {
		_, out := e.call(t, "POST", "/v1/auth", "", map[string]any{"clientId": env2, "secret": sk2})
		return out["accessToken"].(string)
	}()
	for _, tok := range []string{sk2, tok2} {
		if st, body := e.request(t, "GET", "/v1/outbox", tok); !refused(st) || strings.Contains(body, "/invite/") {
			t.Errorf("environment 2's key read the outbox: %d %.100s", st, body)
		}
	}
	adminID := listOf(e.mustCall(t, "GET", "/v1/users?email="+url.QueryEscape(testEmail), admin, nil))[0].(map[string]any)["id"].(string)
	for _, tok := range []string{sk2, tok2, user2} {
		users := listOf(e.mustCall(t, "GET", "/v1/users", tok, nil))
		if len(users) != 1 || users[0].(map[string]any)["email"] != "two@example.com" {
			t.Errorf("environment 2 lists users beyond it: %v", users)
		}
		for _, m := range []string{"GET", "PATCH", "DELETE"} {
			if st, _ := e.request(t, m, "/v1/users/"+adminID, tok); st != http.StatusNotFound && !refused(st) {
				t.Errorf("%s the account admin with environment 2's credential: %d", m, st)
			}
		}
	}
	for _, c := range []string{"/v1/sheets/" + sheet + "/records", "/v1/secrets?environmentId=" + e.envID, "/v1/auth/api-keys?environmentId=" + e.envID,
		"/v1/environments/" + e.envID, "/v1/spaces?environmentId=" + e.envID} {
		if st, body := e.request(t, "GET", c, user2); st < 400 || strings.Contains(body, "private@one.io") || strings.Contains(body, "env-one-secret") || strings.Contains(body, testSecret) {
			t.Errorf("GET %s as environment 2's user: %d %.120s", c, st, body)
		}
	}
	if st, _ := e.request(t, "GET", "/v1/users/"+adminID, admin); st != http.StatusOK {
		t.Errorf("the admin is gone: %d", st)
	}
	// In the dashboard too, environment 1 does not exist for environment 2's user.
	b := loggedOut(t, e)
	resp, _ := b.do(t, "POST", "/login", url.Values{"email": {"two@example.com"}, "password": {"two's password"}, "_csrf": {b.csrf}}, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("environment 2's user login: %d", resp.StatusCode)
	}
	if _, doc := b.do(t, "GET", "/?env="+e.envID, nil, false); strings.Contains(doc.Text(), "one") && doc.Find(`a[href^="/space/"]`).Length() > 0 {
		t.Errorf("environment 2's user sees environment 1's spaces")
	}
	sp1 := listOf(e.mustCall(t, "GET", "/v1/spaces?environmentId="+e.envID, testSecret, nil))[0].(map[string]any)["id"].(string)
	if resp, _ := b.do(t, "GET", "/space/"+sp1, nil, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("environment 2's user opened environment 1's space: %d", resp.StatusCode)
	}
}

// C4: a deleted user's JWT, personal access token and dashboard session stop at once, and the
// JWT mints nothing.
func TestDeletedUserLosesEveryCredential(t *testing.T) {
	e := newAPI(t)
	admin := jwtFor(t, e)
	u := dataOf(e.mustCall(t, "POST", "/v1/users/invite", admin, map[string]any{"email": "leaver@example.com", "name": "Leaver"}))
	link := lastInvite(t, e, "leaver@example.com")
	b := loggedOut(t, e)
	b.do(t, "GET", link, nil, false)
	if resp, _ := b.do(t, "POST", link, url.Values{"password": {"leaver's password"}, "confirm": {"leaver's password"}, "_csrf": {b.csrf}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("accept: %d", resp.StatusCode)
	}
	_, out := e.call(t, "POST", "/v1/auth", "", map[string]any{"email": "leaver@example.com", "password": "leaver's password"})
	jwt := out["accessToken"].(string)
	pat := dataOf(e.mustCall(t, "POST", "/v1/auth/personal-access-tokens", jwt, map[string]any{"name": "mine"}))["token"].(string)
	if resp, _ := b.do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusOK {
		t.Fatalf("the session before deletion: %d", resp.StatusCode)
	}

	e.mustCall(t, "DELETE", "/v1/users/"+u["id"].(string), admin, nil)
	for name, tok := range map[string]string{"JWT": jwt, "PAT": pat} {
		if st, _ := e.request(t, "GET", "/v1/spaces", tok); st != http.StatusUnauthorized {
			t.Errorf("the deleted user's %s: got %d, want 401", name, st)
		}
	}
	if st, _ := e.call(t, "POST", "/v1/auth/personal-access-tokens", jwt, map[string]any{"name": "forever"}); st != http.StatusUnauthorized {
		t.Errorf("the deleted user's JWT minted a PAT: %d", st)
	}
	if resp, _ := b.do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("the deleted user's session: got %d %q, want a redirect to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
	if st, _ := e.call(t, "POST", "/v1/auth", "", map[string]any{"email": "leaver@example.com", "password": "leaver's password"}); st != http.StatusUnauthorized {
		t.Errorf("the deleted user signed in again: %d", st)
	}
}

// H1: rotating the secret key ends the old key and every token exchanged from it; none of
// them reads the new key.
func TestRotationEndsExchangedTokens(t *testing.T) {
	e := newAPI(t)
	_, out := e.call(t, "POST", "/v1/auth", "", map[string]any{"clientId": e.envID, "secret": testSecret})
	old := out["accessToken"].(string)
	if st, _ := e.request(t, "GET", "/v1/spaces", old); st != http.StatusOK {
		t.Fatalf("exchanged token before rotation: %d", st)
	}
	b := loggedIn(t, e)
	b.do(t, "GET", "/admin/environment", nil, false)
	if resp, _ := b.do(t, "POST", "/admin/environment/keys", url.Values{"type": {"SECRET"}}, true); resp.StatusCode != http.StatusOK {
		t.Fatalf("rotate: %d", resp.StatusCode)
	}
	for name, tok := range map[string]string{"old key": testSecret, "token exchanged from it": old} {
		for _, path := range []string{"/v1/spaces", "/v1/auth/api-keys?environmentId=" + e.envID} {
			if st, body := e.request(t, "GET", path, tok); st != http.StatusUnauthorized {
				t.Errorf("GET %s with the %s: got %d %.100s, want 401", path, name, st, body)
			}
		}
	}
}

// M1: logging out ends the session on the server: a copy of the cookie taken before does not
// work after.
func TestLogoutEndsTheSessionEverywhere(t *testing.T) {
	e := newAPI(t)
	b := loggedIn(t, e)
	stolen := map[string]string{}
	for k, v := range b.cookies {
		stolen[k] = v
	}
	if resp, _ := b.do(t, "POST", "/logout", url.Values{"_csrf": {b.csrf}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	thief := &browserSession{e: e, cookies: stolen}
	if resp, _ := thief.do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("a cookie copied before logout: got %d %q, want a redirect to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// L3: the CSRF token of the login page is not the one of the signed-in session.
func TestLoginRotatesTheCSRFToken(t *testing.T) {
	e := newAPI(t)
	b := loggedOut(t, e)
	before := b.csrf
	b.do(t, "POST", "/login", url.Values{"email": {testEmail}, "password": {testPassword}, "_csrf": {b.csrf}}, false)
	b.do(t, "GET", "/", nil, false)
	if b.csrf == "" || b.csrf == before {
		t.Fatalf("CSRF token after login: %q (before %q)", b.csrf, before)
	}
	form := url.Values{"name": {"x"}, "_csrf": {before}}
	b.cookies["sluice_csrf"] = before
	if resp, _ := b.do(t, "POST", "/space", form, false); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the pre-login CSRF token still works: %d", resp.StatusCode)
	}
}

// L7: a guest token reads neither environments nor the account.
func TestGuestSeesNoEnvironmentOrAccount(t *testing.T) {
	e := newAPI(t)
	w := buildAuthzWorld(t, e)
	for _, path := range []string{"/v1/environments", "/v1/environments/" + e.envID, "/v1/accounts/current"} {
		if st, _ := e.request(t, "GET", path, w.tokens["guest of A"]); !refused(st) {
			t.Errorf("GET %s as a guest: got %d, want 401/403", path, st)
		}
	}
}

// L6: API keys are stored as hashes. A new environment's secret key is in the first list of
// its keys and never again (the hint names it); publishable keys stay visible.
func TestKeysAreHashedAndShownOnce(t *testing.T) {
	e := newAPI(t)
	admin := jwtFor(t, e)
	if n, err := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM api_keys WHERE raw LIKE 'sk_%' OR raw LIKE 'pk_%' OR raw NOT LIKE 'sha256:%'`); err != nil || n != 0 {
		t.Fatalf("keys in the clear: %d %v", n, err)
	}
	env := dataOf(e.mustCall(t, "POST", "/v1/environments", admin, map[string]any{"name": "Three", "isProd": false}))["id"].(string)
	keysOf := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, k := range listOf(e.mustCall(t, "GET", "/v1/auth/api-keys?environmentId="+env, admin, nil)) {
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
	if st, _ := e.request(t, "GET", "/v1/spaces", sk); st != http.StatusOK {
		t.Errorf("the revealed key does not work: %d", st)
	}
}

// M6: an agent's webhook URL may not point at this machine or a private network (blind SSRF)
// unless SLUICE_ALLOW_PRIVATE_WEBHOOKS says so.
func TestPrivateWebhookURLsRefused(t *testing.T) {
	allowPrivateWebhooks = false
	defer func() { allowPrivateWebhooks = true }()
	e := newAPI(t)
	for _, u := range []string{"http://127.0.0.1:9/x", "http://localhost/x", "http://10.1.2.3/", "http://169.254.169.254/latest/meta-data/",
		"http://[::1]/", "http://192.168.0.10/", "http://100.64.1.1/", "http://0.0.0.0/", "http://metadata.google.internal/"} {
		st, out := e.call(t, "POST", "/v1/agents?environmentId="+e.envID, testSecret, map[string]any{"topics": []any{"space:created"}, "url": u})
		if st != http.StatusBadRequest || !strings.Contains(errorMessage(out), "private network") {
			t.Errorf("agent with url %s: got %d %v, want 400 naming the private network", u, st, out)
		}
	}
	if st, out := e.call(t, "POST", "/v1/agents?environmentId="+e.envID, testSecret, map[string]any{"topics": []any{"space:created"}, "url": "https://hooks.example.com/in"}); st != http.StatusOK {
		t.Errorf("a public URL: %d %v", st, out)
	}
}
