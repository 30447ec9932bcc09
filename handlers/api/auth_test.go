package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestBearerTokens(t *testing.T) {
	e := webtest.NewAPI(t)
	tests := []struct {
		name   string
		header string
		want   int
	}{
		{"no header", "", http.StatusUnauthorized},
		{"not bearer", "Basic abc", http.StatusUnauthorized},
		{"unknown secret key", "Bearer sk_nope", http.StatusUnauthorized},
		{"garbage jwt", "Bearer eyJ.garbage.x", http.StatusUnauthorized},
		{"personal token not issued", "Bearer pat_whatever", http.StatusUnauthorized},
		{"secret key", "Bearer " + webtest.Secret, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", "/v1/spaces", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			resp, err := e.App.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.want {
				t.Fatalf("got %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

func TestTokenExchange(t *testing.T) {
	e := webtest.NewAPI(t)
	for _, path := range []string{"/api/v1/auth", "/v1/auth"} {
		t.Run(path, func(t *testing.T) {
			status, out := e.Call(t, "POST", path, "", map[string]any{"email": webtest.Email, "password": webtest.Password})
			if status != http.StatusOK {
				t.Fatalf("got %d %v, want 200", status, out)
			}
			tok, _ := out["accessToken"].(string)
			if tok == "" || out["expiresIn"] == nil || out["expires"] == nil || out["userId"] == nil {
				t.Fatalf("got %v, want a bare access token with expiresIn, expires and userId", out)
			}
			e.MustCall(t, "GET", "/v1/environments", tok, nil)
			e.MustCreateSpace(t, tok, map[string]any{"name": "via jwt", "environmentId": e.EnvID})
		})
	}
	t.Run("wrong password", func(t *testing.T) {
		status, out := e.Call(t, "POST", "/v1/auth", "", map[string]any{"type": "userCredentials", "email": webtest.Email, "password": "nope"})
		if status != http.StatusUnauthorized {
			t.Fatalf("got %d %v, want 401", status, out)
		}
	})
	t.Run("unknown user", func(t *testing.T) {
		status, _ := e.Call(t, "POST", "/api/v1/auth", "", map[string]any{"email": "x@y.z", "password": "whatever1"})
		if status != http.StatusUnauthorized {
			t.Fatalf("got %d, want 401", status)
		}
	})
	t.Run("api credentials", func(t *testing.T) {
		status, out := e.Call(t, "POST", "/v1/auth", "", map[string]any{"type": "apiCredentials", "clientId": e.EnvID, "secret": webtest.Secret})
		if status != http.StatusOK {
			t.Fatalf("got %d %v, want 200", status, out)
		}
		tok := out["accessToken"].(string)
		if st, out := e.Call(t, "POST", "/v1/environments", tok, map[string]any{"name": "x", "isProd": false}); st != http.StatusForbidden {
			t.Fatalf("environment-scoped token creating an environment: got %d %v, want 403", st, out)
		}
		e.MustCreateSpace(t, tok, map[string]any{"name": "via api credentials"})
	})
	t.Run("api credentials with a publishable key", func(t *testing.T) {
		status, _ := e.Call(t, "POST", "/v1/auth", "", map[string]any{"clientId": e.EnvID, "secret": webtest.Public})
		if status != http.StatusUnauthorized {
			t.Fatalf("got %d, want 401", status)
		}
	})
	t.Run("malformed body", func(t *testing.T) {
		status, out := e.Call(t, "POST", "/v1/auth", "", `{"email":`)
		if status != http.StatusBadRequest || webtest.ErrorKey(t, out) != "body" {
			t.Fatalf("got %d %v, want 400 about body", status, out)
		}
	})
	t.Run("expired token", func(t *testing.T) {
		_, out := e.Call(t, "POST", "/v1/auth", "", map[string]any{"email": webtest.Email, "password": webtest.Password})
		tok := out["accessToken"].(string)
		e.Now = e.Now.Add(2 * 3600e9)
		if st, _ := e.Call(t, "GET", "/v1/spaces", tok, nil); st != http.StatusUnauthorized {
			t.Fatalf("got %d, want 401 for an expired token", st)
		}
	})
}

func TestPublishableKeyOnlyCreatesSpaces(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Public, map[string]any{"name": "embedded"})
	tok, _ := sp["accessToken"].(string)
	if tok == "" {
		t.Fatalf("got %v, want an accessToken on the created space", sp)
	}
	for _, path := range []string{"/v1/spaces", "/v1/environments", "/v1/events", "/v1/spaces/" + sp["id"].(string)} {
		if st, _ := e.Call(t, "GET", path, webtest.Public, nil); st != http.StatusForbidden {
			t.Errorf("GET %s with a publishable key: got %d, want 403", path, st)
		}
	}
	// The space token reaches its own space and nothing else.
	got := webtest.DataOf(e.MustCall(t, "GET", "/v1/spaces/"+sp["id"].(string), tok, nil))
	if got["name"] != "embedded" {
		t.Fatalf("got %v, want the embedded space", got)
	}
	e.MustCall(t, "PATCH", "/v1/spaces/"+sp["id"].(string), tok, map[string]any{"name": "renamed"})
	other := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "other"})
	if st, _ := e.Call(t, "GET", "/v1/spaces/"+other["id"].(string), tok, nil); st != http.StatusNotFound {
		t.Fatalf("space token reading another space: got %d, want 404", st)
	}
	if st, _ := e.Call(t, "GET", "/v1/spaces", tok, nil); st != http.StatusForbidden {
		t.Fatalf("space token listing spaces: got %d, want 403", st)
	}
}

func TestOtherEnvironmentIsInvisible(t *testing.T) {
	e := webtest.NewAPI(t)
	_, out := e.Call(t, "POST", "/v1/auth", "", map[string]any{"email": webtest.Email, "password": webtest.Password})
	jwt := out["accessToken"].(string)
	env2 := webtest.DataOf(e.MustCall(t, "POST", "/v1/environments", jwt, map[string]any{"name": "Prod", "isProd": true}))
	keys := webtest.ListOf(e.MustCall(t, "GET", "/v1/auth/api-keys?environmentId="+env2["id"].(string), jwt, nil))
	var secret2 string
	for _, k := range keys {
		km := k.(map[string]any)
		if km["type"] == "SECRET" {
			secret2, _ = km["rawKey"].(string)
		}
	}
	if !strings.HasPrefix(secret2, "sk_") {
		t.Fatalf("got keys %v, want a secret key for the new environment", keys)
	}
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "env one"})
	if st, _ := e.Call(t, "GET", "/v1/spaces/"+sp["id"].(string), secret2, nil); st != http.StatusNotFound {
		t.Fatalf("key of env two reading a space of env one: got %d, want 404", st)
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces", secret2, nil)); len(l) != 0 {
		t.Fatalf("key of env two listing spaces: got %d spaces, want 0", len(l))
	}
	if st, _ := e.Call(t, "GET", "/v1/spaces?environmentId="+e.EnvID, secret2, nil); st != http.StatusForbidden {
		t.Fatalf("key of env two asking for env one: got %d, want 403", st)
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces", jwt, nil)); len(l) != 1 {
		t.Fatalf("account token: got %d spaces, want 1", len(l))
	}
}
