package webtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const HostOrigin = "http://localhost:5173"

func (e *Env) AllowOrigins(t *testing.T, origins ...string) {
	t.Helper()
	list := make([]any, len(origins))
	for i, o := range origins {
		list[i] = o
	}
	got := DataOf(e.MustCall(t, "PATCH", "/v1/accounts/current", JwtFor(t, e), map[string]any{"embeddedDomainWhitelist": list}))
	if l, _ := got["embeddedDomainWhitelist"].([]any); len(l) != len(origins) {
		t.Fatalf("allowlist: %v", got)
	}
}

func (e *Env) Raw(t *testing.T, method, path string, headers map[string]string, body string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := e.App.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func JsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// InitSpace makes an embedded space through the init endpoint and returns its id, sheet id,
// access token and guest link.
func (e *Env) InitSpace(t *testing.T) (spaceID, sheetID, token, link string) {
	t.Helper()
	resp := e.Raw(t, "POST", "/v1/internal/spaces/init?publishableKey="+Public, map[string]string{"Content-Type": "text/plain"},
		`{"space":{"name":"Embedded","labels":["embedded"],"namespace":"portal","metadata":{"sidebarConfig":{"showSidebar":false}}},
		"workbook":{"name":"Contacts","sheets":[{"name":"Contacts","slug":"contacts","fields":[{"key":"email","type":"string"}]}],
		"actions":[{"operation":"simpleSubmitAction","mode":"foreground","label":"Submit","primary":true}]}}`)
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Data struct {
			Space    struct{ ID, AccessToken, GuestLink string }
			Workbook struct {
				Sheets []struct{ ID string }
			}
		}
	}
	if resp.StatusCode != 200 || json.Unmarshal(b, &out) != nil || len(out.Data.Workbook.Sheets) != 1 {
		t.Fatalf("init: %d %s", resp.StatusCode, b)
	}
	return out.Data.Space.ID, out.Data.Workbook.Sheets[0].ID, out.Data.Space.AccessToken, out.Data.Space.GuestLink
}
