package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// H: administrative changes, by API and by page, land in the audit trail with actor, address,
// route and fields, never a secret value; the admin page lists and filters them for account
// users only.
func TestAuditTrail(t *testing.T) {
	e := webtest.NewAPI(t)
	admin := webtest.JwtFor(t, e)
	e.MustCall(t, "POST", "/v1/secrets", webtest.Secret, map[string]any{"name": "CRM token", "value": "super-secret-value", "environmentId": e.EnvID})
	e.MustCall(t, "POST", "/v1/users/invite", admin, map[string]any{"email": "new@example.com", "name": "New"})
	e.MustCall(t, "POST", "/v1/auth/personal-access-tokens", admin, map[string]any{"name": "ci"})
	e.MustCall(t, "PATCH", "/v1/environments/"+e.EnvID, admin, map[string]any{"name": "Renamed"})
	themed := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "themed"})
	e.MustCall(t, "PATCH", "/v1/spaces/"+themed["id"].(string), webtest.Secret, map[string]any{"metadata": map[string]any{"theme": map[string]any{"root": map[string]any{"primaryColor": "#0f766e"}}}})
	sp := e.MustCreateSpace(t, webtest.Public, map[string]any{"name": "embedded"})
	if st, _ := e.Call(t, "GET", "/v1/secrets", sp["accessToken"].(string), nil); st != http.StatusForbidden {
		t.Fatalf("space token reading secrets: %d", st)
	}
	if st, _ := e.Call(t, "POST", "/v1/secrets", sp["accessToken"].(string), map[string]any{"name": "x", "value": "refused-value", "environmentId": e.EnvID}); st != http.StatusForbidden {
		t.Fatalf("space token writing a secret: %d", st)
	}
	b := webtest.LoggedIn(t, e)
	b.Do(t, "GET", "/admin/secrets", nil, false)
	b.Do(t, "POST", "/admin/secrets", url.Values{"name": {"page secret"}, "value": {"page-secret-value"}, "env": {e.EnvID}, "_csrf": {b.Csrf}}, true)

	list, err := e.DB.ListAudit(t.Context(), store.AuditFilter{AccountID: e.Account, Page: model.Page{Size: 100, Number: 1}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]*store.AuditEntry{}
	for _, a := range list {
		if a.Status < 400 {
			seen[a.Action] = a
		}
		for _, secret := range []string{"super-secret-value", "page-secret-value", "refused-value", webtest.Secret} {
			if strings.Contains(a.Details, secret) || strings.Contains(a.Target, secret) {
				t.Errorf("audit entry %s records a secret: %s", a.Action, a.Details)
			}
		}
	}
	for action, want := range map[string]string{"POST /v1/secrets": "CRM token", "POST /v1/users/invite": "new@example.com",
		"POST /v1/auth/personal-access-tokens": "ci", "PATCH /v1/environments/:environmentId": "Renamed", "POST /admin/secrets": "page secret",
		"PATCH /v1/spaces/:spaceId": "metadata"} {
		a := seen[action]
		if a == nil {
			t.Errorf("no audit entry for %s (have %v)", action, webtest.Keys(seen))
			continue
		}
		if !strings.Contains(a.Details, want) || a.ActorID == "" || a.ClientAddr == "" {
			t.Errorf("%s: %+v, want details naming %q, an actor and an address", action, a, want)
		}
	}
	refused := 0
	for _, a := range list {
		if a.Action == "POST /v1/secrets" && a.Status == http.StatusForbidden && a.ActorKind == "space token" {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("the refused secret write is not in the trail")
	}
	if _, ok := seen["GET /v1/secrets"]; ok {
		t.Error("reads are in the audit trail")
	}

	// The page shows it, filtered.
	resp, doc := b.Do(t, "GET", "/admin/audit?area=users", nil, false)
	if resp.StatusCode != 200 || doc.Find(`[data-testid=audit-row]`).Length() != 1 || !strings.Contains(doc.Find(`[data-testid=audit-log]`).Text(), "/v1/users/invite") {
		t.Errorf("audit page filtered by area: %d, %d rows", resp.StatusCode, doc.Find(`[data-testid=audit-row]`).Length())
	}
	if _, doc := b.Do(t, "GET", "/admin/audit?q=secrets", nil, false); doc.Find(`[data-testid=audit-row]`).Length() < 3 {
		t.Errorf("audit page searched for secrets: %d rows", doc.Find(`[data-testid=audit-row]`).Length())
	}
}
