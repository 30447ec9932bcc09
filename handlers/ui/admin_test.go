package ui_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestAdminPages(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "admin space"})
	spaceID := sp["id"].(string)
	b := webtest.LoggedIn(t, e)
	e.MustCall(t, "POST", "/v1/apps", webtest.Secret, map[string]any{"name": "Vendor portal", "namespace": "vendors", "type": "PORTAL"})
	for _, path := range []string{"/admin/events", "/admin/jobs", "/admin/guests", "/admin/tokens", "/admin/secrets", "/admin/environment", "/admin/theme",
		"/admin/agents", "/admin/apps", "/admin/translations"} {
		if resp, doc := b.Do(t, "GET", path, nil, false); resp.StatusCode != 200 || doc.Find(`[data-testid=admin-title]`).Length() != 1 {
			t.Errorf("%s: got %d", path, resp.StatusCode)
		}
	}
	if _, doc := b.Do(t, "GET", "/admin/apps", nil, false); !strings.Contains(doc.Find(`[data-testid=app-list]`).Text(), "Vendor portal") {
		t.Error("apps page lacks the app")
	}
	// The event log names the actor.
	_, doc := b.Do(t, "GET", "/admin/events?topic=space:created", nil, false)
	if got := doc.Find(`[data-testid=event-row]`).Length(); got != 1 {
		t.Errorf("event log filtered to space:created: got %d rows", got)
	}
	// Personal access tokens: shown once, listed, revoked.
	_, part := b.Do(t, "POST", "/admin/tokens", url.Values{"name": {"ci"}}, true)
	raw, _ := part.Find(`[data-testid=secret-value]`).Attr("value")
	if !strings.HasPrefix(raw, "pat_") {
		t.Fatalf("token: got %q", raw)
	}
	if st, _ := e.Call(t, "GET", "/v1/spaces", raw, nil); st != 200 {
		t.Errorf("the new token: got %d", st)
	}
	_, doc = b.Do(t, "GET", "/admin/tokens", nil, false)
	if !strings.Contains(doc.Find(`[data-testid=token-list]`).Text(), "ci") || strings.Contains(doc.Text(), raw) {
		t.Error("token list: missing the token, or showing its value again")
	}
	revoke, _ := doc.Find(`[data-testid=token-list] button`).Attr("hx-post")
	b.Do(t, "POST", revoke, nil, true)
	if st, _ := e.Call(t, "GET", "/v1/spaces", raw, nil); st != 401 {
		t.Errorf("revoked token: got %d, want 401", st)
	}
	// Secrets: names, never values.
	b.Do(t, "POST", "/admin/secrets", url.Values{"name": {"ERP password"}, "value": {"hunter2"}}, true)
	_, doc = b.Do(t, "GET", "/admin/secrets", nil, false)
	if !strings.Contains(doc.Text(), "ERP password") || strings.Contains(doc.Text(), "hunter2") {
		t.Error("secrets page: missing the name, or showing the value")
	}
	// Environment: showSpaceInfo off.
	b.Do(t, "POST", "/admin/environment", url.Values{"namespaces": {"crm, erp"}}, true)
	env := webtest.DataOf(e.MustCall(t, "GET", "/v1/environments/"+e.EnvID, webtest.JwtFor(t, e), nil))
	if env["metadata"].(map[string]any)["showSpaceInfo"] != false || len(env["namespaces"].([]any)) != 2 {
		t.Errorf("environment after save: %v", env)
	}
	// Theme: a bad value is refused and named; good ones are stored on the space.
	resp, part := b.Do(t, "POST", "/admin/theme", url.Values{"space": {spaceID}, "root.borderColor": {"red;}"}}, true)
	if resp.StatusCode != 400 || !strings.Contains(part.Text(), "root.borderColor") {
		t.Errorf("bad theme: got %d %q", resp.StatusCode, part.Text())
	}
	b.Do(t, "POST", "/admin/theme", url.Values{"space": {spaceID}, "root.borderColor": {"#0f766e"}, "table.cell.active.borderWidth": {"3px"}}, true)
	meta := webtest.DataOf(e.MustCall(t, "GET", "/v1/spaces/"+spaceID, webtest.Secret, nil))["metadata"].(map[string]any)
	th := meta["theme"].(map[string]any)
	if th["root"].(map[string]any)["borderColor"] != "#0f766e" || th["table"].(map[string]any)["cell.active.borderWidth"] != "3px" {
		t.Errorf("stored theme: %v", th)
	}
	_, doc = b.Do(t, "GET", "/admin/theme?space="+spaceID, nil, false)
	if v, _ := doc.Find(`input[name="root.borderColor"]`).Attr("value"); v != "#0f766e" {
		t.Errorf("editor shows %q", v)
	}
	// Guests: added, a link issued, then a guest's session cannot open the admin pages.
	b.Do(t, "POST", "/admin/guests", url.Values{"email": {"pat@partner.io"}, "name": {"Pat"}, "space": {spaceID}}, true)
	_, doc = b.Do(t, "GET", "/admin/guests", nil, false)
	link, _ := doc.Find(`[data-testid=guest-link]`).Attr("hx-post")
	_, part = b.Do(t, "POST", link, url.Values{"space": {spaceID}}, true)
	guestURL, _ := part.Find(`[data-testid=secret-value]`).Attr("value")
	if !strings.Contains(guestURL, "/space/"+spaceID+"?token=") {
		t.Fatalf("guest link: got %q", guestURL)
	}
	g := webtest.LoggedOut(t, e)
	u, _ := url.Parse(guestURL)
	if resp, _ := g.Do(t, "GET", u.RequestURI(), nil, false); resp.StatusCode != 303 {
		t.Fatalf("opening the guest link: got %d", resp.StatusCode)
	}
	if resp, _ := g.Do(t, "GET", "/admin/events", nil, false); resp.StatusCode != 403 {
		t.Errorf("a guest opening the admin: got %d, want 403", resp.StatusCode)
	}
	// Rotating the secret key: the new value is shown once and the old one stops working.
	_, part = b.Do(t, "POST", "/admin/environment/keys", url.Values{"type": {"SECRET"}}, true)
	newKey, _ := part.Find(`[data-testid=secret-value]`).Attr("value")
	if !strings.HasPrefix(newKey, "sk_") {
		t.Fatalf("rotate: got %q", newKey)
	}
	if st, _ := e.Call(t, "GET", "/v1/spaces", webtest.Secret, nil); st != 401 {
		t.Errorf("the old secret key after rotation: got %d, want 401", st)
	}
	if st, _ := e.Call(t, "GET", "/v1/spaces", newKey, nil); st != 200 {
		t.Errorf("the new secret key: got %d", st)
	}
	e.MustCall(t, "GET", "/v1/spaces", newKey, nil)
}

func TestTranslationOverrides(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "wording"})
	b := webtest.LoggedIn(t, e)
	_, doc := b.Do(t, "GET", "/admin/translations?lang=en&q=upload.choose", nil, false)
	if v, ok := doc.Find(`input[name="o:upload.choose"]`).Attr("value"); !ok || v != "" {
		t.Fatalf("overrides page: %q %v", v, ok)
	}
	long := strings.Repeat("x", 501)
	if resp, _ := b.Do(t, "POST", "/admin/translations", url.Values{"lang": {"en"}, "o:upload.choose": {long}}, true); resp.StatusCode != 400 {
		t.Errorf("a too long wording: got %d", resp.StatusCode)
	}
	b.Do(t, "POST", "/admin/translations", url.Values{"lang": {"en"}, "o:upload.choose": {"Pick your spreadsheet"}, "o:not.an.id": {"x"}, "o:grid.notice_deleted": {"Gone: {{.Count}}"}}, true)
	_, doc = b.Do(t, "GET", "/space/"+sp["id"].(string), nil, false)
	if got := doc.Find(`[data-testid=upload-form] label`).Text(); !strings.Contains(got, "Pick your spreadsheet") {
		t.Errorf("space page with the override: %q", got)
	}
	env := webtest.DataOf(e.MustCall(t, "GET", "/v1/environments/"+e.EnvID, webtest.JwtFor(t, e), nil))
	tr := env["metadata"].(map[string]any)["translations"].(map[string]any)["en"].(map[string]any)
	if len(tr) != 2 || tr["upload.choose"] != "Pick your spreadsheet" {
		t.Errorf("stored overrides: %v (unknown ids must be dropped)", tr)
	}
	// Emptying the field returns to the shipped wording.
	b.Do(t, "POST", "/admin/translations", url.Values{"lang": {"en"}, "o:upload.choose": {""}}, true)
	_, doc = b.Do(t, "GET", "/space/"+sp["id"].(string), nil, false)
	if got := doc.Find(`[data-testid=upload-form] label`).Text(); !strings.Contains(got, "Choose a file") {
		t.Errorf("after clearing the override: %q", got)
	}
}

func TestAdminAgentsRevert(t *testing.T) {
	e := webtest.NewAPI(t)
	path := "/v1/agents?environmentId=" + e.EnvID
	e.MustCall(t, "POST", path, webtest.Secret, map[string]any{"topics": []string{"job:ready"}, "compiler": "js", "source": "module.exports = 1", "slug": "hooks"})
	a := webtest.DataOf(e.MustCall(t, "POST", path, webtest.Secret, map[string]any{"topics": []string{"job:ready"}, "compiler": "js", "source": "module.exports = 2", "slug": "hooks"}))
	b := webtest.LoggedIn(t, e)
	_, doc := b.Do(t, "GET", "/admin/agents", nil, false)
	agent := doc.Find(`[data-testid=agent]`)
	if !strings.Contains(agent.Text(), "hooks") || agent.Find(`select[name=version] option`).Length() != 2 {
		t.Fatalf("agents page: %q", agent.Text())
	}
	versions := webtest.ListOf(e.MustCall(t, "GET", "/v1/agents/"+a["id"].(string)+"/versions", webtest.Secret, nil))
	v1 := versions[0].(map[string]any)["id"].(string)
	b.Do(t, "POST", "/admin/agents/"+a["id"].(string)+"/revert", url.Values{"version": {v1}}, true)
	got := webtest.DataOf(e.MustCall(t, "GET", "/v1/agents/"+a["id"].(string), webtest.Secret, nil))
	if got["source"] != "module.exports = 1" || got["version"] != 3.0 {
		t.Errorf("after revert from the admin: %v", got)
	}
}
