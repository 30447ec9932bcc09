package web_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestPersonalAccessTokens(t *testing.T) {
	e := newAPI(t)
	if st, _ := e.call(t, "POST", "/v1/auth/personal-access-tokens", testSecret, map[string]any{"name": "ci"}); st != http.StatusForbidden {
		t.Fatalf("a secret key making a PAT: got %d, want 403", st)
	}
	jwt := jwtFor(t, e)
	created := dataOf(e.mustCall(t, "POST", "/v1/auth/personal-access-tokens", jwt, map[string]any{"name": "deploy bot"}))
	raw, _ := created["token"].(string)
	pat := created["personalAccessToken"].(map[string]any)
	if !strings.HasPrefix(raw, "pat_") || !strings.HasPrefix(pat["id"].(string), "us_pat_") || pat["name"] != "deploy bot" {
		t.Fatalf("got %v, want a pat_ value once and its record", created)
	}
	// Account-wide like its creator: every environment, events included.
	env2 := dataOf(e.mustCall(t, "POST", "/v1/environments", raw, map[string]any{"name": "Prod", "isProd": true}))
	if l := listOf(e.mustCall(t, "GET", "/v1/environments", raw, nil)); len(l) != 2 {
		t.Fatalf("PAT lists %d environments, want 2", len(l))
	}
	e.mustCreateSpace(t, raw, map[string]any{"name": "via pat", "environmentId": env2["id"]})
	list := listOf(e.mustCall(t, "GET", "/v1/auth/personal-access-tokens", jwt, nil))
	if len(list) != 1 || list[0].(map[string]any)["lastUsedAt"] == nil {
		t.Fatalf("got %v, want the token with its last use", list)
	}
	if _, has := list[0].(map[string]any)["token"]; has {
		t.Fatal("the token value is listed again")
	}
	e.mustCall(t, "DELETE", "/v1/auth/personal-access-tokens/"+pat["id"].(string), jwt, nil)
	if st, _ := e.call(t, "GET", "/v1/spaces", raw, nil); st != http.StatusUnauthorized {
		t.Fatalf("revoked token: got %d, want 401 at once", st)
	}
	if st, _ := e.call(t, "POST", "/v1/auth/personal-access-tokens", jwt, map[string]any{"name": " "}); st != http.StatusBadRequest {
		t.Fatalf("blank name: got %d, want 400", st)
	}
}
