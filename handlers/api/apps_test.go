package api_test

import (
	"net/http"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestAppsAccess(t *testing.T) {
	e := webtest.NewAPI(t)
	app := webtest.DataOf(e.MustCall(t, "POST", "/v1/apps", webtest.Secret, map[string]any{"name": "Portal", "namespace": "portal", "type": "portal"}))
	if app["type"] != "PORTAL" {
		t.Errorf("got type %v, want it upper-cased", app["type"])
	}
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	spaceToken := sp["accessToken"].(string)
	for _, tok := range []string{webtest.Public, spaceToken} {
		if status, _ := e.Call(t, "GET", "/v1/apps", tok, nil); status != http.StatusForbidden {
			t.Errorf("GET /v1/apps with a %.3s… token: got %d, want 403", tok, status)
		}
	}
	if status, out := e.Call(t, "PATCH", "/v1/apps/"+app["id"].(string), webtest.Secret, map[string]any{"type": "CUSTOM"}); status != http.StatusBadRequest || webtest.ErrorKey(t, out) != "type" {
		t.Errorf("changing the type: got %d %v, want 400 on type", status, out)
	}
	if status, out := e.Call(t, "POST", "/v1/apps", webtest.Secret, map[string]any{"namespace": "x", "type": "CUSTOM"}); status != http.StatusBadRequest || webtest.ErrorKey(t, out) != "name" {
		t.Errorf("no name: got %d %v, want 400 on name", status, out)
	}
	if status, _ := e.Call(t, "GET", "/v1/apps/us_app_nothere/constraints", webtest.Secret, nil); status != http.StatusNotFound {
		t.Errorf("constraints of a missing app: got %d, want 404", status)
	}
}
