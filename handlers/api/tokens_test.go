package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestPersonalAccessTokens(t *testing.T) {
	e := webtest.NewAPI(t)
	if st, _ := e.Call(t, "POST", "/v1/auth/personal-access-tokens", webtest.Secret, map[string]any{"name": "ci"}); st != http.StatusForbidden {
		t.Fatalf("a secret key making a PAT: got %d, want 403", st)
	}
	jwt := webtest.JwtFor(t, e)
	created := webtest.DataOf(e.MustCall(t, "POST", "/v1/auth/personal-access-tokens", jwt, map[string]any{"name": "deploy bot"}))
	raw, _ := created["token"].(string)
	pat := created["personalAccessToken"].(map[string]any)
	if !strings.HasPrefix(raw, "pat_") || !strings.HasPrefix(pat["id"].(string), "us_pat_") || pat["name"] != "deploy bot" {
		t.Fatalf("got %v, want a pat_ value once and its record", created)
	}
	// Account-wide like its creator: every environment, events included.
	env2 := webtest.DataOf(e.MustCall(t, "POST", "/v1/environments", raw, map[string]any{"name": "Prod", "isProd": true}))
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/environments", raw, nil)); len(l) != 2 {
		t.Fatalf("PAT lists %d environments, want 2", len(l))
	}
	e.MustCreateSpace(t, raw, map[string]any{"name": "via pat", "environmentId": env2["id"]})
	list := webtest.ListOf(e.MustCall(t, "GET", "/v1/auth/personal-access-tokens", jwt, nil))
	if len(list) != 1 || list[0].(map[string]any)["lastUsedAt"] == nil {
		t.Fatalf("got %v, want the token with its last use", list)
	}
	if _, has := list[0].(map[string]any)["token"]; has {
		t.Fatal("the token value is listed again")
	}
	e.MustCall(t, "DELETE", "/v1/auth/personal-access-tokens/"+pat["id"].(string), jwt, nil)
	if st, _ := e.Call(t, "GET", "/v1/spaces", raw, nil); st != http.StatusUnauthorized {
		t.Fatalf("revoked token: got %d, want 401 at once", st)
	}
	if st, _ := e.Call(t, "POST", "/v1/auth/personal-access-tokens", jwt, map[string]any{"name": " "}); st != http.StatusBadRequest {
		t.Fatalf("blank name: got %d, want 400", st)
	}
}
