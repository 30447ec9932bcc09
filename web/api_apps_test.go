package web_test

import (
	"net/http"
	"testing"
)

func TestAppsAccess(t *testing.T) {
	e := newAPI(t)
	app := dataOf(e.mustCall(t, "POST", "/v1/apps", testSecret, map[string]any{"name": "Portal", "namespace": "portal", "type": "portal"}))
	if app["type"] != "PORTAL" {
		t.Errorf("got type %v, want it upper-cased", app["type"])
	}
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	spaceToken := sp["accessToken"].(string)
	for _, tok := range []string{testPublic, spaceToken} {
		if status, _ := e.call(t, "GET", "/v1/apps", tok, nil); status != http.StatusForbidden {
			t.Errorf("GET /v1/apps with a %.3s… token: got %d, want 403", tok, status)
		}
	}
	if status, out := e.call(t, "PATCH", "/v1/apps/"+app["id"].(string), testSecret, map[string]any{"type": "CUSTOM"}); status != http.StatusBadRequest || errorKey(t, out) != "type" {
		t.Errorf("changing the type: got %d %v, want 400 on type", status, out)
	}
	if status, out := e.call(t, "POST", "/v1/apps", testSecret, map[string]any{"namespace": "x", "type": "CUSTOM"}); status != http.StatusBadRequest || errorKey(t, out) != "name" {
		t.Errorf("no name: got %d %v, want 400 on name", status, out)
	}
	if status, _ := e.call(t, "GET", "/v1/apps/us_app_nothere/constraints", testSecret, nil); status != http.StatusNotFound {
		t.Errorf("constraints of a missing app: got %d, want 404", status)
	}
}
