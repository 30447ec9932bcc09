package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/PuerkitoBio/goquery"
	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/web"
)

// The findings of issue 38's outside probe, each replayed by name: what a credential anyone
// can get (a space token from the public publishable key, a guest, a public clip link) or one
// of another environment tried, and what must hold afterwards.

// Critical: map and delete-records jobs take the sheets their config names only inside the
// job's own space, whoever asks.
func TestJobConfigIdsStayInTheJobsSpace(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	for _, c := range []struct {
		name string
		body map[string]any
	}{
		{"map from space A into the visitor's sheet", map[string]any{"type": "workbook", "operation": "map", "source": w.SheetV, "destination": w.SheetV,
			"config": map[string]any{"sourceSheetId": w.SheetA, "destinationSheetId": w.SheetV}}},
		{"map into space A", map[string]any{"type": "workbook", "operation": "map", "source": w.SheetV,
			"config": map[string]any{"sourceSheetId": w.SheetV, "destinationSheetId": w.SheetA}}},
		{"delete-records of space A", map[string]any{"type": "sheet", "operation": "delete-records", "source": w.SheetV, "trigger": "immediate",
			"config": map[string]any{"sheet": w.SheetA, "filter": "all"}}},
	} {
		if st, out := e.Call(t, "POST", "/v1/jobs", w.Visitor, c.body); st != http.StatusNotFound {
			t.Errorf("%s with the visitor's token: got %d %v, want 404", c.name, st, out)
		}
	}
	// The secret key may not aim a job of one space at another either: a job acts in its space.
	if st, _ := e.Call(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "sheet", "operation": "delete-records", "source": w.SheetB,
		"trigger": "immediate", "config": map[string]any{"sheet": w.SheetA, "filter": "all"}}); st != http.StatusNotFound {
		t.Errorf("a delete-records job of space B naming space A's sheet: got %d, want 404", st)
	}
	// Nor may a job be pointed elsewhere afterwards.
	j := webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs", w.Visitor, map[string]any{"type": "sheet", "operation": "delete-records", "source": w.SheetV,
		"config": map[string]any{"sheet": w.SheetV, "filter": "none"}}))
	if st, _ := e.Call(t, "PATCH", "/v1/jobs/"+j["id"].(string), w.Visitor, map[string]any{"config": map[string]any{"sheet": w.SheetA, "filter": "all"}}); st != http.StatusNotFound {
		t.Errorf("re-aiming a job's config at space A: got %d, want 404", st)
	}
	if n := e.RecordCount(t, w.SheetA); n != 1 {
		t.Errorf("space A's sheet has %d records, want 1", n)
	}
}

// Critical: a file's workbookId names a workbook of its own space only, so a failed
// extraction can never delete another space's workbook.
func TestFileWorkbookIdStaysInItsSpace(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	file := e.UploadAs(t, w.Visitor, w.SpaceV, "v.csv", "email\nx@y.io\n")
	if st, out := e.Call(t, "PATCH", "/v1/files/"+file, w.Visitor, map[string]any{"workbookId": w.WbA}); st != http.StatusNotFound {
		t.Fatalf("PATCH a file's workbookId to space A's workbook: got %d %v, want 404", st, out)
	}
	if got := webtest.DataOf(e.MustCall(t, "GET", "/v1/files/"+file, webtest.Secret, nil))["workbookId"]; got == w.WbA {
		t.Fatal("the file names space A's workbook")
	}
	if st, _ := e.Call(t, "GET", "/v1/workbooks/"+w.WbA, webtest.Secret, nil); st != http.StatusOK {
		t.Fatalf("space A's workbook: %d", st)
	}
}

// Critical: reading a space hands no space token to guests or clip links, and a space token
// gets back its own token, not a renewed one.
func TestSpaceTokensAreNotHandedOut(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	gid, guest := e.GuestToken(t, w.SpaceA, "guest@partner.io")
	if got := webtest.DataOf(e.MustCall(t, "GET", "/v1/spaces/"+w.SpaceA, guest, nil))["accessToken"]; got != nil {
		t.Fatalf("a guest got a space token: %v", got)
	}
	if got := webtest.DataOf(e.MustCall(t, "GET", "/v1/spaces/"+w.SpaceV, w.Visitor, nil))["accessToken"]; got != w.Visitor {
		t.Fatalf("a space token got another token back: %v", got)
	}
	e.MustCall(t, "DELETE", "/v1/guests/"+gid, webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", "/v1/spaces/"+w.SpaceA, guest, nil); st != http.StatusUnauthorized {
		t.Fatalf("a removed guest reads the space: %d", st)
	}
}

// High: guests may not delete, archive or reconfigure their space.
func TestGuestsCannotManageTheirSpace(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	_, guest := e.GuestToken(t, w.SpaceA, "guest@partner.io")
	before := webtest.DataOf(e.MustCall(t, "GET", "/v1/spaces/"+w.SpaceA, webtest.Secret, nil))
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"DELETE", "/v1/spaces/" + w.SpaceA, nil},
		{"POST", "/v1/spaces/" + w.SpaceA + "/archive", nil},
		{"PATCH", "/v1/spaces/" + w.SpaceA, map[string]any{"access": []string{"upload"}, "guestAuthentication": []string{"magic_link"}}},
		{"PATCH", "/v1/spaces/" + w.SpaceA, map[string]any{"metadata": map[string]any{"theme": map[string]any{"root": map[string]any{"primaryColor": "red"}}}}},
	} {
		if st, _ := e.Call(t, c.method, c.path, guest, c.body); st != http.StatusForbidden {
			t.Errorf("%s %s as a guest: got %d, want 403", c.method, c.path, st)
		}
	}
	sp := webtest.DataOf(e.MustCall(t, "GET", "/v1/spaces/"+w.SpaceA, webtest.Secret, nil))
	if sp["archivedAt"] != nil || fmt.Sprint(sp["guestAuthentication"], sp["access"], sp["metadata"]) != fmt.Sprint(before["guestAuthentication"], before["access"], before["metadata"]) {
		t.Fatalf("the space changed: %v", sp)
	}
	// Their space's data stays theirs to work on.
	if st, _ := e.Call(t, "POST", "/v1/sheets/"+w.SheetA+"/records", guest, []any{map[string]any{"email": map[string]any{"value": "g@x.io"}}}); st != http.StatusOK {
		t.Errorf("a guest adding a record: %d", st)
	}
}

// High: a public clip link reaches its clip sheet only, read-only unless the clip says so;
// it expires, and renewing it ends the old one.
func TestClipLinkReachesItsSheetOnly(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	rec := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+w.SheetA+"/records", webtest.Secret, nil))[0]["id"].(string)
	clip := e.MustCallRaw(t, "POST", "/v1/data-clips", map[string]any{"name": "share", "sourceSheetId": w.SheetA, "sharedLink": "public"})
	e.MustCallRaw(t, "POST", "/v1/data-clips/"+clip["id"].(string)+"/add-records", map[string]any{"recordIds": []string{rec}})
	tok, clipSheet := clip["accessToken"].(string), clip["clipSheetId"].(string)
	if tok == "" || !strings.Contains(clip["guestLinkUrl"].(string), "/sheet/"+clipSheet+"?token=") {
		t.Fatalf("a public clip has no link to its sheet: %v", clip)
	}
	exp, err := time.Parse(time.RFC3339, clip["sharedLinkExpiresAt"].(string))
	if want := e.Now.Add(30 * 24 * time.Hour); err != nil || exp.Sub(want).Abs() > time.Minute {
		t.Errorf("the link expires at %v, want 30 days from now (%v)", clip["sharedLinkExpiresAt"], want)
	}
	if st, _ := e.Call(t, "GET", "/v1/sheets/"+clipSheet+"/records", tok, nil); st != http.StatusOK {
		t.Fatalf("the clip link reading its sheet: %d", st)
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/sheets/" + w.SheetA + "/records"}, {"GET", "/v1/sheets/" + w.SheetA + "/download"}, {"DELETE", "/v1/workbooks/" + w.WbA},
		{"GET", "/v1/events?spaceId=" + w.SpaceA}, {"GET", "/v1/jobs"}, {"GET", "/v1/spaces/" + w.SpaceA + "/documents"}, {"GET", "/v1/spaces/" + w.SpaceA},
		{"DELETE", "/v1/spaces/" + w.SpaceA}, {"POST", "/v1/sheets/" + clipSheet + "/records"}, {"PATCH", "/v1/sheets/" + clipSheet},
	} {
		if st, body := e.Request(t, c.method, c.path, tok); st != http.StatusForbidden && st != http.StatusNotFound {
			t.Errorf("%s %s with the clip link: got %d %.120s, want 403/404", c.method, c.path, st, body)
		}
	}
	// A well-formed write is refused too (the policy is asked inside the write, on the
	// sheet it loads), and writes nothing.
	valid := []any{map[string]any{"email": map[string]any{"value": "x@x.io"}}}
	for _, sheet := range []string{clipSheet, w.SheetA} {
		before := len(webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheet+"/records", webtest.Secret, nil)))
		if st, body := e.Call(t, "POST", "/v1/sheets/"+sheet+"/records", tok, valid); st != http.StatusForbidden && st != http.StatusNotFound {
			t.Errorf("a read-only clip link adding a record to %s: got %d %.120s, want 403/404", sheet, st, body)
		}
		if after := len(webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheet+"/records", webtest.Secret, nil))); after != before {
			t.Errorf("a refused write changed %s: %d records, then %d", sheet, before, after)
		}
	}
	// An editable link writes its clip sheet; renewing the link ends the old one.
	edit := webtest.DataOf(e.MustCall(t, "PATCH", "/v1/data-clips/"+clip["id"].(string), webtest.Secret, map[string]any{"sharedLinkEdit": true}))
	if st, _ := e.Call(t, "GET", "/v1/sheets/"+clipSheet+"/records", tok, nil); st != http.StatusUnauthorized {
		t.Errorf("the read-only link still works after the clip became editable: %d", st)
	}
	etok := edit["accessToken"].(string)
	if st, _ := e.Call(t, "POST", "/v1/sheets/"+clipSheet+"/records", etok, []any{map[string]any{"email": map[string]any{"value": "n@x.io"}}}); st != http.StatusOK {
		t.Errorf("an editable clip link adding a record to its sheet: %d", st)
	}
	renewed := webtest.DataOf(e.MustCall(t, "PATCH", "/v1/data-clips/"+clip["id"].(string), webtest.Secret, map[string]any{"renewSharedLink": true}))
	if renewed["accessToken"] == etok {
		t.Fatal("renewing kept the link")
	}
	if st, _ := e.Call(t, "GET", "/v1/sheets/"+clipSheet+"/records", etok, nil); st != http.StatusUnauthorized {
		t.Errorf("the old link works after renewal: %d", st)
	}
	// The link opens the clip sheet's page, and nothing else of the space.
	b := webtest.LoggedOut(t, e)
	resp, doc := b.Do(t, "GET", strings.TrimPrefix(renewed["guestLinkUrl"].(string), webtest.BaseURL), nil, false)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("opening the clip link: %d", resp.StatusCode)
	}
	// Its page shows the clip sheet alone: no files, no other workbook, no actions.
	// (The source workbook is named "WA"; look for it as a text of its own,
	// since random tokens in attributes may contain those two letters.)
	html, _ := doc.Html()
	namesWA := doc.Find("a, p, span, h1, h2, h3, li").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.TrimSpace(s.Text()) == "WA"
	}).Length()
	if doc.Find(`[data-testid="sidebar-files"]`).Length() != 0 || namesWA != 0 || strings.Contains(html, "/actions?") {
		t.Errorf("the clip link's page shows more than its sheet: files %d, WA %d, actions %v", doc.Find(`[data-testid="sidebar-files"]`).Length(), namesWA, strings.Contains(html, "/actions?"))
	}
	if resp, _ := b.Do(t, "GET", "/space/"+w.SpaceA+"/sheet/"+w.SheetA+"?token="+renewed["accessToken"].(string), nil, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the clip link opening the source sheet's page: %d, want 404", resp.StatusCode)
	}
}

// High: another environment's key neither deletes nor reads this environment's secrets.
func TestSecretsStayInTheirEnvironment(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	e.MustCall(t, "POST", "/v1/secrets", webtest.Secret, map[string]any{"name": "CRM", "value": "env-one-value", "environmentId": e.EnvID})
	id := webtest.ListOf(e.MustCall(t, "GET", "/v1/secrets?environmentId="+e.EnvID, webtest.Secret, nil))[0].(map[string]any)["id"].(string)
	if st, body := e.Request(t, "DELETE", "/v1/secrets/"+id, w.Sk2); st != http.StatusNotFound || strings.Contains(body, "env-one-value") {
		t.Fatalf("environment 2's key deleting environment 1's secret: %d %.120s", st, body)
	}
	if got := webtest.ListOf(e.MustCall(t, "GET", "/v1/secrets?environmentId="+e.EnvID, webtest.Secret, nil)); len(got) != 1 {
		t.Fatalf("the secret is gone: %v", got)
	}
}

// High: environment-wide configuration is not for space tokens or guests: mapping programs,
// the shared mapping history, instructions, app templates.
func TestEnvironmentConfigIsNotForVisitorsOrGuests(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	_, guest := e.GuestToken(t, w.SpaceA, "guest@partner.io")
	cfg := map[string]any{"name": "S", "fields": []any{map[string]any{"key": "email", "type": "string"}}}
	prog := webtest.DataOf(e.MustCall(t, "POST", "/v1/mapping?environmentId="+e.EnvID, webtest.Secret, map[string]any{"source": cfg, "destination": cfg}))["id"].(string)
	ins := webtest.DataOf(e.MustCall(t, "POST", "/v1/instructions?environmentId="+e.EnvID, webtest.Secret, map[string]any{"instructions": "Use work e-mails", "fieldKeys": []string{"email"}}))["id"].(string)
	for name, tok := range map[string]string{"visitor": w.Visitor, "guest": guest} {
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/v1/mapping", nil}, {"POST", "/v1/mapping?environmentId=" + e.EnvID, map[string]any{"source": cfg, "destination": cfg}},
			{"PATCH", "/v1/mapping/" + prog, map[string]any{"rules": []any{}}}, {"DELETE", "/v1/mapping/" + prog, nil},
			{"POST", "/v1/instructions?environmentId=" + e.EnvID, map[string]any{"instructions": "x", "fieldKeys": []string{"email"}}},
			{"PATCH", "/v1/instructions/" + ins, map[string]any{"instructions": "defaced"}}, {"DELETE", "/v1/instructions/" + ins, nil},
		} {
			if st, _ := e.Call(t, c.method, c.path, tok, c.body); st != http.StatusForbidden {
				t.Errorf("%s %s as the %s: got %d, want 403", c.method, c.path, name, st)
			}
		}
		// Forgetting is one's own history only: the environment's programs stay.
		e.MustCall(t, "DELETE", "/v1/mapping", tok, nil)
	}
	if st, _ := e.Call(t, "GET", "/v1/mapping/"+prog, webtest.Secret, nil); st != http.StatusOK {
		t.Errorf("the mapping program is gone: %d", st)
	}
	// Instructions still show on the guest's sheet.
	if st, _ := e.Call(t, "GET", "/v1/instructions/sheet/"+w.SheetA, guest, nil); st != http.StatusOK {
		t.Errorf("a guest reading its sheet's instructions: %d", st)
	}
	if st, _ := e.Call(t, "POST", "/v1/spaces", webtest.Public, map[string]any{"name": "x", "isAppTemplate": true}); st != http.StatusForbidden {
		t.Errorf("the publishable key making an app template: %d, want 403", st)
	}
}

// High: a space token or guest posts custom topics only, with a context inside its space.
func TestForgedSystemEventsAreRefused(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	_, guest := e.GuestToken(t, w.SpaceA, "guest@partner.io")
	for name, tok := range map[string]string{"visitor": w.Visitor, "guest": guest} {
		for _, topic := range []string{"job:ready", "records:created", "space:configure", "workbook:submitActionFg"} {
			body := map[string]any{"topic": topic, "domain": "job", "context": map[string]any{"environmentId": e.EnvID, "sheetId": w.SheetB}}
			if st, _ := e.Call(t, "POST", "/v1/events", tok, body); st != http.StatusForbidden {
				t.Errorf("%s posting %s: got %d, want 403", name, topic, st)
			}
		}
		body := map[string]any{"topic": "acme:ping", "domain": "acme", "context": map[string]any{"environmentId": e.EnvID, "sheetId": w.SheetB, "workbookId": w.WbB}}
		if st, _ := e.Call(t, "POST", "/v1/events", tok, body); st != http.StatusNotFound {
			t.Errorf("%s posting a custom event naming space B's sheet: got %d, want 404", name, st)
		}
	}
	if st, _ := e.Call(t, "POST", "/v1/events", guest, map[string]any{"topic": "acme:ping", "domain": "acme", "context": map[string]any{"environmentId": e.EnvID, "sheetId": w.SheetA}}); st != http.StatusOK {
		t.Errorf("a guest posting a custom event in its space: %d", st)
	}
	// The secret key (agents) still posts system topics.
	if st, _ := e.Call(t, "POST", "/v1/events", webtest.Secret, map[string]any{"topic": "records:created", "domain": "workbook", "context": map[string]any{"environmentId": e.EnvID, "sheetId": w.SheetA}}); st != http.StatusOK {
		t.Errorf("the secret key posting a system topic: %d", st)
	}
}

// Guests do not read other guests' e-mail addresses in the event log.
func TestGuestsSeeNoGuestEmails(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	_, guest := e.GuestToken(t, w.SpaceA, "first@partner.io")
	e.GuestToken(t, w.SpaceA, "second@partner.io")
	_, body := e.Request(t, "GET", "/v1/events?spaceId="+w.SpaceA+"&pageSize=100&includeAcknowledged=true", guest)
	if strings.Contains(body, "second@partner.io") {
		t.Fatal("a guest read another guest's e-mail in the event log")
	}
}

// High: admin-like calls of one environment do not reach another's guests: no invitation
// mail to them, no links, no grants to another environment's spaces.
func TestGuestAdminStaysInItsEnvironment(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	gid, _ := e.GuestToken(t, w.SpaceA, "guest@partner.io")
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/v1/invitations", []any{map[string]any{"guestId": gid, "spaceId": w.SpaceA, "message": "click here"}}},
		{"GET", "/v1/guests/" + gid + "/token?spaceId=" + w.SpaceA, nil},
		{"DELETE", "/v1/guests/" + gid, nil},
		{"POST", "/v1/guests", []any{map[string]any{"environmentId": w.Env2, "email": "x@y.io", "spaces": []any{map[string]any{"id": w.SpaceA}}}}},
		{"GET", "/v1/guests?environmentId=" + e.EnvID, nil},
		{"GET", "/v1/users?environmentId=" + e.EnvID, nil},
	} {
		if st, _ := e.Call(t, c.method, c.path, w.Sk2, c.body); st != http.StatusNotFound && st != http.StatusForbidden {
			t.Errorf("%s %s with environment 2's key: got %d, want 403/404", c.method, c.path, st)
		}
	}
	if st, _ := e.Call(t, "GET", "/v1/guests/"+gid, webtest.Secret, nil); st != http.StatusOK {
		t.Errorf("the guest is gone: %d", st)
	}
}

// Apps limited to one environment are that environment's; the others are the account's.
func TestEnvironmentKeysManageOnlyTheirApps(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	admin := webtest.JwtFor(t, e)
	shared := webtest.DataOf(e.MustCall(t, "POST", "/v1/apps", admin, map[string]any{"name": "Shared", "namespace": "shared", "type": "CUSTOM"}))["id"].(string)
	mine := webtest.DataOf(e.MustCall(t, "POST", "/v1/apps", webtest.Secret, map[string]any{"name": "Mine", "namespace": "mine", "type": "CUSTOM", "environmentFilters": map[string]any{"environmentIds": []string{e.EnvID}}}))["id"].(string)
	wide := map[string]any{"name": "Wide", "namespace": "wide", "type": "CUSTOM", "environmentFilters": map[string]any{"environmentIds": []string{e.EnvID, w.Env2}}}
	if st, _ := e.Call(t, "POST", "/v1/apps", webtest.Secret, wide); st != http.StatusNotFound {
		t.Errorf("a key making an app for two environments: %d, want 404", st)
	}
	if got := webtest.DataOf(e.MustCall(t, "POST", "/v1/apps", webtest.Secret, map[string]any{"name": "Own", "namespace": "own", "type": "CUSTOM"}))["environmentFilters"]; fmt.Sprint(got) != fmt.Sprint(map[string]any{"environmentIds": []any{e.EnvID}}) {
		t.Errorf("a key's app without filters: environmentFilters %v, want its own environment", got)
	}
	for _, id := range []string{shared, mine} {
		if st, _ := e.Call(t, "PATCH", "/v1/apps/"+id, w.Sk2, map[string]any{"name": "pwned"}); st != http.StatusNotFound {
			t.Errorf("environment 2's key changing app %s: %d, want 404", id, st)
		}
	}
	if _, body := e.Request(t, "GET", "/v1/apps", w.Sk2); strings.Contains(body, mine) || strings.Contains(body, shared) {
		t.Errorf("environment 2's key lists other apps: %.200s", body)
	}
	if st, _ := e.Call(t, "PATCH", "/v1/apps/"+mine, webtest.Secret, map[string]any{"name": "Mine 2"}); st != http.StatusOK {
		t.Errorf("a key changing its environment's app: %d", st)
	}
}

// A revoked credential's event stream ends at the next check, with an error event.
func TestEventStreamEndsWhenTheGuestIsRemoved(t *testing.T) {
	s := webtest.NewStreamServer(t)
	e := s.Env
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "A"})["id"].(string)
	gid, guest := e.GuestToken(t, sp, "guest@partner.io")
	c := s.Open(t, "?spaceId="+sp, guest, nil)
	e.MustCall(t, "DELETE", "/v1/guests/"+gid, webtest.Secret, nil)
	deadline := time.After(3 * time.Second)
	for {
		select {
		case m := <-c.Msgs:
			if m.Event["errors"] != nil {
				select {
				case <-c.Done:
				case <-time.After(2 * time.Second):
					t.Fatal("the stream stayed open after its error event")
				}
				return
			}
		case <-c.Done:
			t.Fatal("the stream closed without an error event")
		case <-deadline:
			t.Fatal("a removed guest's stream is still open after 3 s")
		}
	}
}

// Dashboard forms of environment 2's user take no id of environment 1.
func TestAdminFormsStayInTheirEnvironment(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	e.MustCall(t, "POST", "/v1/secrets", webtest.Secret, map[string]any{"name": "CRM", "value": "v", "environmentId": e.EnvID})
	secret := webtest.ListOf(e.MustCall(t, "GET", "/v1/secrets?environmentId="+e.EnvID, webtest.Secret, nil))[0].(map[string]any)["id"].(string)
	gid, _ := e.GuestToken(t, w.SpaceA, "guest@partner.io")
	b := webtest.LoggedOut(t, e)
	b.Do(t, "GET", "/login", nil, false)
	if resp, _ := b.Do(t, "POST", "/login", url.Values{"email": {"two@example.com"}, "password": {"two's password"}, "_csrf": {b.Csrf}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("environment 2's user signing in: %d", resp.StatusCode)
	}
	for _, c := range []struct {
		path string
		form url.Values
	}{
		{"/admin/secrets/" + secret + "/delete", url.Values{}},
		{"/admin/guests/" + gid + "/remove", url.Values{}},
		{"/admin/guests/" + gid + "/link", url.Values{"space": {w.SpaceA}}},
		{"/admin/theme", url.Values{"space": {w.SpaceA}, "root.primaryColor": {"red"}}},
		{"/admin/guests", url.Values{"email": {"x@y.io"}, "space": {w.SpaceA}, "env": {w.Env2}}},
	} {
		c.form.Set("_csrf", b.Csrf)
		if resp, _ := b.Do(t, "POST", c.path, c.form, true); resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s as environment 2's user: got %d, want 403/404", c.path, resp.StatusCode)
		}
	}
	if got := webtest.ListOf(e.MustCall(t, "GET", "/v1/secrets?environmentId="+e.EnvID, webtest.Secret, nil)); len(got) != 1 {
		t.Errorf("environment 1's secret is gone")
	}
	if st, _ := e.Call(t, "GET", "/v1/guests/"+gid, webtest.Secret, nil); st != http.StatusOK {
		t.Errorf("environment 1's guest is gone: %d", st)
	}
}

// CSV exports neutralise cells that a spreadsheet would run as formulas, unless asked not to;
// numbers stay numbers and XLSX cells are text anyway.
func TestCSVExportNeutralisesFormulas(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "A"})["id"].(string)
	sheet := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": sp, "sheets": []any{map[string]any{"name": "S", "slug": "s",
		"fields": []any{map[string]any{"key": "a", "type": "string"}, map[string]any{"key": "n", "type": "number"}}}}})["sheets"].([]any)[0].(map[string]any)["id"].(string)
	var rows []any
	for _, v := range []string{`=HYPERLINK("http://evil.example","x")`, "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "plain"} {
		rows = append(rows, map[string]any{"a": map[string]any{"value": v}, "n": map[string]any{"value": -5}})
	}
	e.MustCall(t, "POST", "/v1/sheets/"+sheet+"/records", webtest.Secret, rows)
	_, body := e.Request(t, "GET", "/v1/sheets/"+sheet+"/download", webtest.Secret)
	for _, want := range []string{`"'=HYPERLINK(""http://evil.example"",""x"")"`, "'+1+cmd", "'-2+3", "'@SUM(A1)", "plain,-5"} {
		if !strings.Contains(body, want) {
			t.Errorf("the CSV lacks %q:\n%s", want, body)
		}
	}
	if _, body := e.Request(t, "GET", "/v1/sheets/"+sheet+"/download?keepFormulas=true", webtest.Secret); !strings.Contains(body, `"=HYPERLINK(`) {
		t.Errorf("keepFormulas=true still changed the cells:\n%s", body)
	}
}

// Pages load images from Sluice and data: URLs only (no tracking pixels in documents).
func TestPagesLoadNoThirdPartyImages(t *testing.T) {
	e := webtest.NewAPI(t)
	resp := e.Raw(t, "GET", "/login", nil, "")
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data:;") {
		t.Fatalf("CSP %q lets images come from elsewhere", csp)
	}
}

// A replaced invitation link says so when it is opened, without a password form.
func TestReplacedInvitationLinkSaysSo(t *testing.T) {
	e := webtest.NewAPI(t)
	e.MustCall(t, "POST", "/v1/users/invite", webtest.Secret, map[string]any{"email": "new@example.com", "name": "New"})
	first := webtest.LastInvite(t, e, "new@example.com")
	id := webtest.ListOf(e.MustCall(t, "GET", "/v1/users?email=new%40example.com", webtest.Secret, nil))[0].(map[string]any)["id"].(string)
	e.MustCall(t, "POST", "/v1/users/"+id+"/resend-invite", webtest.Secret, nil)
	b := webtest.LoggedOut(t, e)
	resp, doc := b.Do(t, "GET", first, nil, false)
	if resp.StatusCode != http.StatusNotFound || doc.Find(`[data-testid="invite-form"]`).Length() != 0 || doc.Find(`[data-testid="invite-dead"]`).Length() != 1 {
		t.Fatalf("the replaced link: %d, form shown %v", resp.StatusCode, doc.Find(`[data-testid="invite-form"]`).Length() > 0)
	}
	if resp, doc := b.Do(t, "GET", webtest.LastInvite(t, e, "new@example.com"), nil, false); resp.StatusCode != http.StatusOK || doc.Find(`[data-testid="invite-form"]`).Length() != 1 {
		t.Fatalf("the new link: %d", resp.StatusCode)
	}
}

// A PAT cannot mint PATs (revoking a stolen one ends its access), and may expire.
func TestPATsComeFromPasswordsAndMayExpire(t *testing.T) {
	e := webtest.NewAPI(t)
	admin := webtest.JwtFor(t, e)
	pat := webtest.DataOf(e.MustCall(t, "POST", "/v1/auth/personal-access-tokens", admin, map[string]any{"name": "ci", "expiresInDays": 7}))
	tok := pat["token"].(string)
	if st, _ := e.Call(t, "POST", "/v1/auth/personal-access-tokens", tok, map[string]any{"name": "spawn"}); st != http.StatusForbidden {
		t.Fatalf("a PAT minting a PAT: %d, want 403", st)
	}
	if exp, _ := pat["personalAccessToken"].(map[string]any)["expiresAt"].(string); !strings.HasPrefix(exp, "2026-01-09") {
		t.Errorf("expiresAt %q, want 7 days after 2026-01-02", exp)
	}
	if st, _ := e.Call(t, "GET", "/v1/spaces", tok, nil); st != http.StatusOK {
		t.Fatalf("the PAT before it expires: %d", st)
	}
	if st, _ := e.Call(t, "POST", "/v1/auth/personal-access-tokens", admin, map[string]any{"name": "x", "expiresInDays": 0}); st != http.StatusBadRequest {
		t.Errorf("expiresInDays 0: %d, want 400", st)
	}
	e.Now = e.Now.Add(8 * 24 * time.Hour)
	if st, _ := e.Call(t, "GET", "/v1/spaces", tok, nil); st != http.StatusUnauthorized {
		t.Fatalf("the PAT after it expired: %d, want 401", st)
	}
}

// One request's cost is bounded: record writes by count (with a 400 naming the cap and its
// setting), FFQL filters by their conditions, every read by SLUICE_QUERY_TIMEOUT.
func TestRequestCostIsBounded(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	_, guest := e.GuestToken(t, w.SpaceA, "guest@partner.io")
	many := make([]any, 10_001)
	for i := range many {
		many[i] = map[string]any{}
	}
	st, out := e.Call(t, "POST", "/v1/sheets/"+w.SheetA+"/records", guest, many)
	if st != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out), "SLUICE_MAX_RECORDS_PER_REQUEST") {
		t.Fatalf("10,001 records in one insert: %d %v", st, out)
	}
	if n := e.RecordCount(t, w.SheetA); n != 1 {
		t.Fatalf("the refused insert wrote: %d records", n)
	}
	terms := make([]string, 60)
	for i := range terms {
		terms[i] = fmt.Sprintf(`email like "%%x%d%%"`, i)
	}
	st, out = e.Call(t, "GET", "/v1/sheets/"+w.SheetA+"/records?q="+url.QueryEscape(strings.Join(terms, " or ")), guest, nil)
	if st != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out), "SLUICE_MAX_FFQL_TERMS") {
		t.Fatalf("a 60-condition filter: %d %v", st, out)
	}
	// A read that outlasts the deadline is stopped with a 503 that says why.
	e.Tune = func(d *web.Deps) { d.QueryTimeout = time.Nanosecond }
	e.App = e.NewApp(e.DB.Sealer.(*auth.Sealer))
	st, out = e.Call(t, "GET", "/v1/sheets/"+w.SheetA+"/records?q="+url.QueryEscape(`email like "%victim%"`), guest, nil)
	if st != http.StatusServiceUnavailable || !strings.Contains(fmt.Sprint(out), "SLUICE_QUERY_TIMEOUT") {
		t.Fatalf("a read past the deadline: %d %v", st, out)
	}
}

// An upload's form may not carry a million fields beside its file.
func TestUploadFormFieldsAreCapped(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "A"})["id"].(string)
	var body strings.Builder
	body.WriteString("--b\r\nContent-Disposition: form-data; name=\"spaceId\"\r\n\r\n" + sp + "\r\n")
	for range 200 {
		body.WriteString("--b\r\nContent-Disposition: form-data; name=\"actions\"\r\n\r\n{}\r\n")
	}
	body.WriteString("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\na\n1\n\r\n--b--\r\n")
	resp := e.Raw(t, "POST", "/v1/files", map[string]string{"Content-Type": "multipart/form-data; boundary=b", "Authorization": "Bearer " + webtest.Secret}, body.String())
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "more than 100 fields") {
		t.Fatalf("an upload with 200 fields: %d %s", resp.StatusCode, b)
	}
}

// A visitor's space token may clip its own sheet for collaborators, but not hand the open web
// a link to it.
func TestVisitorsCannotShareClipsPublicly(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	n := len(webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks?spaceId="+w.SpaceV, webtest.Secret, nil)))
	if st, _ := e.Call(t, "POST", "/v1/data-clips", w.Visitor, map[string]any{"name": "open", "sourceSheetId": w.SheetV, "sharedLinkAccess": "public"}); st != http.StatusForbidden {
		t.Fatalf("a visitor making a public clip: %d, want 403", st)
	}
	if got := len(webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks?spaceId="+w.SpaceV, webtest.Secret, nil))); got != n {
		t.Fatalf("the refused clip left a workbook behind (%d → %d)", n, got)
	}
	st, out := e.CallAny(t, "POST", "/v1/data-clips", w.Visitor, map[string]any{"name": "team", "sourceSheetId": w.SheetV})
	if st != http.StatusOK {
		t.Fatalf("a visitor making a restricted clip: %d %v", st, out)
	}
	id := out.(map[string]any)["id"].(string)
	if st, _ := e.Call(t, "PATCH", "/v1/data-clips/"+id, w.Visitor, map[string]any{"sharedLinkAccess": "public"}); st != http.StatusForbidden {
		t.Fatalf("a visitor making its clip public: %d, want 403", st)
	}
}

// A guest's requests beyond its fair share wait their turn; past the deadline they are told
// to slow down, not left hanging.
func TestGuestRequestsQueueBeyondTheirShare(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.NewResWorld(t, e)
	_, guest := e.GuestToken(t, w.SpaceA, "guest@partner.io")
	e.Tune = func(d *web.Deps) { d.QueryTimeout = 2 * time.Second }
	e.App = e.NewApp(e.DB.Sealer.(*auth.Sealer))
	var wg sync.WaitGroup
	codes := make([]int, 12)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = e.Request(t, "GET", "/v1/sheets/"+w.SheetA+"/records", guest)
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("request %d of 12 parallel guest reads: %d", i, c)
		}
	}
}
