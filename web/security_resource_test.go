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

	"github.com/PuerkitoBio/goquery"
	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/web"
)

// The findings of issue 38's outside probe, each replayed by name: what a credential anyone
// can get (a space token from the public publishable key, a guest, a public clip link) or one
// of another environment tried, and what must hold afterwards.

// resWorld is two spaces of environment 1 with a sheet and a record each, and environment 2.
type resWorld struct {
	spaceA, sheetA, wbA string
	spaceB, sheetB, wbB string
	visitor             string // the token of a space made with the publishable key (space V)
	spaceV, sheetV      string
	env2, sk2, user2    string
}

func newResWorld(t *testing.T, e *apiEnv) *resWorld {
	t.Helper()
	w := &resWorld{}
	mk := func(name string) (string, string, string) {
		sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": name})["id"].(string)
		wb := e.mustCreateWorkbook(t, map[string]any{"name": "W" + name, "spaceId": sp, "sheets": []any{map[string]any{"name": "S", "slug": "s",
			"fields": []any{map[string]any{"key": "email", "type": "string"}}}}})
		sh := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
		e.mustCall(t, "POST", "/v1/sheets/"+sh+"/records", testSecret, []any{map[string]any{"email": map[string]any{"value": name + "@victim.io"}}})
		return sp, wb["id"].(string), sh
	}
	w.spaceA, w.wbA, w.sheetA = mk("A")
	w.spaceB, w.wbB, w.sheetB = mk("B")
	v := dataOf(e.mustCall(t, "POST", "/v1/spaces", testPublic, map[string]any{"name": "visitor"}))
	w.visitor, w.spaceV = v["accessToken"].(string), v["id"].(string)
	wb := dataOf(e.mustCall(t, "POST", "/v1/workbooks", w.visitor, map[string]any{"name": "mine", "spaceId": w.spaceV, "sheets": []any{map[string]any{"name": "S", "slug": "s",
		"fields": []any{map[string]any{"key": "email", "type": "string"}}}}}))
	w.sheetV = wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	w.env2, w.sk2, w.user2 = secondEnvironment(t, e, jwtFor(t, e))
	return w
}

func (e *apiEnv) recordCount(t *testing.T, sheetID string) int {
	t.Helper()
	return len(recordsOf(t, e.mustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", testSecret, nil)))
}

func (e *apiEnv) guestToken(t *testing.T, spaceID, email string) (guestID, token string) {
	t.Helper()
	g := listOf(e.mustCall(t, "POST", "/v1/guests", testSecret, []any{map[string]any{"environmentId": e.envID, "email": email, "name": "G",
		"spaces": []any{map[string]any{"id": spaceID}}}}))[0].(map[string]any)
	tok := dataOf(e.mustCall(t, "GET", "/v1/guests/"+g["id"].(string)+"/token?spaceId="+spaceID, testSecret, nil))["token"].(string)
	return g["id"].(string), tok
}

// Critical: map and delete-records jobs take the sheets their config names only inside the
// job's own space, whoever asks.
func TestJobConfigIdsStayInTheJobsSpace(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	for _, c := range []struct {
		name string
		body map[string]any
	}{
		{"map from space A into the visitor's sheet", map[string]any{"type": "workbook", "operation": "map", "source": w.sheetV, "destination": w.sheetV,
			"config": map[string]any{"sourceSheetId": w.sheetA, "destinationSheetId": w.sheetV}}},
		{"map into space A", map[string]any{"type": "workbook", "operation": "map", "source": w.sheetV,
			"config": map[string]any{"sourceSheetId": w.sheetV, "destinationSheetId": w.sheetA}}},
		{"delete-records of space A", map[string]any{"type": "sheet", "operation": "delete-records", "source": w.sheetV, "trigger": "immediate",
			"config": map[string]any{"sheet": w.sheetA, "filter": "all"}}},
	} {
		if st, out := e.call(t, "POST", "/v1/jobs", w.visitor, c.body); st != http.StatusNotFound {
			t.Errorf("%s with the visitor's token: got %d %v, want 404", c.name, st, out)
		}
	}
	// The secret key may not aim a job of one space at another either: a job acts in its space.
	if st, _ := e.call(t, "POST", "/v1/jobs", testSecret, map[string]any{"type": "sheet", "operation": "delete-records", "source": w.sheetB,
		"trigger": "immediate", "config": map[string]any{"sheet": w.sheetA, "filter": "all"}}); st != http.StatusNotFound {
		t.Errorf("a delete-records job of space B naming space A's sheet: got %d, want 404", st)
	}
	// Nor may a job be pointed elsewhere afterwards.
	j := dataOf(e.mustCall(t, "POST", "/v1/jobs", w.visitor, map[string]any{"type": "sheet", "operation": "delete-records", "source": w.sheetV,
		"config": map[string]any{"sheet": w.sheetV, "filter": "none"}}))
	if st, _ := e.call(t, "PATCH", "/v1/jobs/"+j["id"].(string), w.visitor, map[string]any{"config": map[string]any{"sheet": w.sheetA, "filter": "all"}}); st != http.StatusNotFound {
		t.Errorf("re-aiming a job's config at space A: got %d, want 404", st)
	}
	if n := e.recordCount(t, w.sheetA); n != 1 {
		t.Errorf("space A's sheet has %d records, want 1", n)
	}
}

// Critical: a file's workbookId names a workbook of its own space only, so a failed
// extraction can never delete another space's workbook.
func TestFileWorkbookIdStaysInItsSpace(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	file := e.uploadAs(t, w.visitor, w.spaceV, "v.csv", "email\nx@y.io\n")
	if st, out := e.call(t, "PATCH", "/v1/files/"+file, w.visitor, map[string]any{"workbookId": w.wbA}); st != http.StatusNotFound {
		t.Fatalf("PATCH a file's workbookId to space A's workbook: got %d %v, want 404", st, out)
	}
	if got := dataOf(e.mustCall(t, "GET", "/v1/files/"+file, testSecret, nil))["workbookId"]; got == w.wbA {
		t.Fatal("the file names space A's workbook")
	}
	if st, _ := e.call(t, "GET", "/v1/workbooks/"+w.wbA, testSecret, nil); st != http.StatusOK {
		t.Fatalf("space A's workbook: %d", st)
	}
}

// uploadAs sends a file with a given token and returns its id.
func (e *apiEnv) uploadAs(t *testing.T, token, spaceID, name, content string) string {
	t.Helper()
	id := e.uploadWith(t, token, spaceID, name, content)
	if id == "" {
		t.Fatal("upload failed")
	}
	return id
}

// Critical: reading a space hands no space token to guests or clip links, and a space token
// gets back its own token, not a renewed one.
func TestSpaceTokensAreNotHandedOut(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	gid, guest := e.guestToken(t, w.spaceA, "guest@partner.io")
	if got := dataOf(e.mustCall(t, "GET", "/v1/spaces/"+w.spaceA, guest, nil))["accessToken"]; got != nil {
		t.Fatalf("a guest got a space token: %v", got)
	}
	if got := dataOf(e.mustCall(t, "GET", "/v1/spaces/"+w.spaceV, w.visitor, nil))["accessToken"]; got != w.visitor {
		t.Fatalf("a space token got another token back: %v", got)
	}
	e.mustCall(t, "DELETE", "/v1/guests/"+gid, testSecret, nil)
	if st, _ := e.call(t, "GET", "/v1/spaces/"+w.spaceA, guest, nil); st != http.StatusUnauthorized {
		t.Fatalf("a removed guest reads the space: %d", st)
	}
}

// High: guests may not delete, archive or reconfigure their space.
func TestGuestsCannotManageTheirSpace(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	_, guest := e.guestToken(t, w.spaceA, "guest@partner.io")
	before := dataOf(e.mustCall(t, "GET", "/v1/spaces/"+w.spaceA, testSecret, nil))
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"DELETE", "/v1/spaces/" + w.spaceA, nil},
		{"POST", "/v1/spaces/" + w.spaceA + "/archive", nil},
		{"PATCH", "/v1/spaces/" + w.spaceA, map[string]any{"access": []string{"upload"}, "guestAuthentication": []string{"magic_link"}}},
		{"PATCH", "/v1/spaces/" + w.spaceA, map[string]any{"metadata": map[string]any{"theme": map[string]any{"root": map[string]any{"primaryColor": "red"}}}}},
	} {
		if st, _ := e.call(t, c.method, c.path, guest, c.body); st != http.StatusForbidden {
			t.Errorf("%s %s as a guest: got %d, want 403", c.method, c.path, st)
		}
	}
	sp := dataOf(e.mustCall(t, "GET", "/v1/spaces/"+w.spaceA, testSecret, nil))
	if sp["archivedAt"] != nil || fmt.Sprint(sp["guestAuthentication"], sp["access"], sp["metadata"]) != fmt.Sprint(before["guestAuthentication"], before["access"], before["metadata"]) {
		t.Fatalf("the space changed: %v", sp)
	}
	// Their space's data stays theirs to work on.
	if st, _ := e.call(t, "POST", "/v1/sheets/"+w.sheetA+"/records", guest, []any{map[string]any{"email": map[string]any{"value": "g@x.io"}}}); st != http.StatusOK {
		t.Errorf("a guest adding a record: %d", st)
	}
}

// High: a public clip link reaches its clip sheet only, read-only unless the clip says so;
// it expires, and renewing it ends the old one.
func TestClipLinkReachesItsSheetOnly(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	rec := recordsOf(t, e.mustCall(t, "GET", "/v1/sheets/"+w.sheetA+"/records", testSecret, nil))[0]["id"].(string)
	clip := e.mustCallRaw(t, "POST", "/v1/data-clips", map[string]any{"name": "share", "sourceSheetId": w.sheetA, "sharedLink": "public"})
	e.mustCallRaw(t, "POST", "/v1/data-clips/"+clip["id"].(string)+"/add-records", map[string]any{"recordIds": []string{rec}})
	tok, clipSheet := clip["accessToken"].(string), clip["clipSheetId"].(string)
	if tok == "" || !strings.Contains(clip["guestLinkUrl"].(string), "/sheet/"+clipSheet+"?token=") {
		t.Fatalf("a public clip has no link to its sheet: %v", clip)
	}
	exp, err := time.Parse(time.RFC3339, clip["sharedLinkExpiresAt"].(string))
	if want := e.now.Add(30 * 24 * time.Hour); err != nil || exp.Sub(want).Abs() > time.Minute {
		t.Errorf("the link expires at %v, want 30 days from now (%v)", clip["sharedLinkExpiresAt"], want)
	}
	if st, _ := e.call(t, "GET", "/v1/sheets/"+clipSheet+"/records", tok, nil); st != http.StatusOK {
		t.Fatalf("the clip link reading its sheet: %d", st)
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/sheets/" + w.sheetA + "/records"}, {"GET", "/v1/sheets/" + w.sheetA + "/download"}, {"DELETE", "/v1/workbooks/" + w.wbA},
		{"GET", "/v1/events?spaceId=" + w.spaceA}, {"GET", "/v1/jobs"}, {"GET", "/v1/spaces/" + w.spaceA + "/documents"}, {"GET", "/v1/spaces/" + w.spaceA},
		{"DELETE", "/v1/spaces/" + w.spaceA}, {"POST", "/v1/sheets/" + clipSheet + "/records"}, {"PATCH", "/v1/sheets/" + clipSheet},
	} {
		if st, body := e.request(t, c.method, c.path, tok); st != http.StatusForbidden && st != http.StatusNotFound {
			t.Errorf("%s %s with the clip link: got %d %.120s, want 403/404", c.method, c.path, st, body)
		}
	}
	// An editable link writes its clip sheet; renewing the link ends the old one.
	edit := dataOf(e.mustCall(t, "PATCH", "/v1/data-clips/"+clip["id"].(string), testSecret, map[string]any{"sharedLinkEdit": true}))
	if st, _ := e.call(t, "GET", "/v1/sheets/"+clipSheet+"/records", tok, nil); st != http.StatusUnauthorized {
		t.Errorf("the read-only link still works after the clip became editable: %d", st)
	}
	etok := edit["accessToken"].(string)
	if st, _ := e.call(t, "POST", "/v1/sheets/"+clipSheet+"/records", etok, []any{map[string]any{"email": map[string]any{"value": "n@x.io"}}}); st != http.StatusOK {
		t.Errorf("an editable clip link adding a record to its sheet: %d", st)
	}
	renewed := dataOf(e.mustCall(t, "PATCH", "/v1/data-clips/"+clip["id"].(string), testSecret, map[string]any{"renewSharedLink": true}))
	if renewed["accessToken"] == etok {
		t.Fatal("renewing kept the link")
	}
	if st, _ := e.call(t, "GET", "/v1/sheets/"+clipSheet+"/records", etok, nil); st != http.StatusUnauthorized {
		t.Errorf("the old link works after renewal: %d", st)
	}
	// The link opens the clip sheet's page, and nothing else of the space.
	b := loggedOut(t, e)
	resp, doc := b.do(t, "GET", strings.TrimPrefix(renewed["guestLinkUrl"].(string), testBaseURL), nil, false)
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
	if resp, _ := b.do(t, "GET", "/space/"+w.spaceA+"/sheet/"+w.sheetA+"?token="+renewed["accessToken"].(string), nil, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the clip link opening the source sheet's page: %d, want 404", resp.StatusCode)
	}
}

// High: another environment's key neither deletes nor reads this environment's secrets.
func TestSecretsStayInTheirEnvironment(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	e.mustCall(t, "POST", "/v1/secrets", testSecret, map[string]any{"name": "CRM", "value": "env-one-value", "environmentId": e.envID})
	id := listOf(e.mustCall(t, "GET", "/v1/secrets?environmentId="+e.envID, testSecret, nil))[0].(map[string]any)["id"].(string)
	if st, body := e.request(t, "DELETE", "/v1/secrets/"+id, w.sk2); st != http.StatusNotFound || strings.Contains(body, "env-one-value") {
		t.Fatalf("environment 2's key deleting environment 1's secret: %d %.120s", st, body)
	}
	if got := listOf(e.mustCall(t, "GET", "/v1/secrets?environmentId="+e.envID, testSecret, nil)); len(got) != 1 {
		t.Fatalf("the secret is gone: %v", got)
	}
}

// High: environment-wide configuration is not for space tokens or guests: mapping programs,
// the shared mapping history, instructions, app templates.
func TestEnvironmentConfigIsNotForVisitorsOrGuests(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	_, guest := e.guestToken(t, w.spaceA, "guest@partner.io")
	cfg := map[string]any{"name": "S", "fields": []any{map[string]any{"key": "email", "type": "string"}}}
	prog := dataOf(e.mustCall(t, "POST", "/v1/mapping?environmentId="+e.envID, testSecret, map[string]any{"source": cfg, "destination": cfg}))["id"].(string)
	ins := dataOf(e.mustCall(t, "POST", "/v1/instructions?environmentId="+e.envID, testSecret, map[string]any{"instructions": "Use work e-mails", "fieldKeys": []string{"email"}}))["id"].(string)
	for name, tok := range map[string]string{"visitor": w.visitor, "guest": guest} {
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/v1/mapping", nil}, {"POST", "/v1/mapping?environmentId=" + e.envID, map[string]any{"source": cfg, "destination": cfg}},
			{"PATCH", "/v1/mapping/" + prog, map[string]any{"rules": []any{}}}, {"DELETE", "/v1/mapping/" + prog, nil},
			{"POST", "/v1/instructions?environmentId=" + e.envID, map[string]any{"instructions": "x", "fieldKeys": []string{"email"}}},
			{"PATCH", "/v1/instructions/" + ins, map[string]any{"instructions": "defaced"}}, {"DELETE", "/v1/instructions/" + ins, nil},
		} {
			if st, _ := e.call(t, c.method, c.path, tok, c.body); st != http.StatusForbidden {
				t.Errorf("%s %s as the %s: got %d, want 403", c.method, c.path, name, st)
			}
		}
		// Forgetting is one's own history only: the environment's programs stay.
		e.mustCall(t, "DELETE", "/v1/mapping", tok, nil)
	}
	if st, _ := e.call(t, "GET", "/v1/mapping/"+prog, testSecret, nil); st != http.StatusOK {
		t.Errorf("the mapping program is gone: %d", st)
	}
	// Instructions still show on the guest's sheet.
	if st, _ := e.call(t, "GET", "/v1/instructions/sheet/"+w.sheetA, guest, nil); st != http.StatusOK {
		t.Errorf("a guest reading its sheet's instructions: %d", st)
	}
	if st, _ := e.call(t, "POST", "/v1/spaces", testPublic, map[string]any{"name": "x", "isAppTemplate": true}); st != http.StatusForbidden {
		t.Errorf("the publishable key making an app template: %d, want 403", st)
	}
}

// High: a space token or guest posts custom topics only, with a context inside its space.
func TestForgedSystemEventsAreRefused(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	_, guest := e.guestToken(t, w.spaceA, "guest@partner.io")
	for name, tok := range map[string]string{"visitor": w.visitor, "guest": guest} {
		for _, topic := range []string{"job:ready", "records:created", "space:configure", "workbook:submitActionFg"} {
			body := map[string]any{"topic": topic, "domain": "job", "context": map[string]any{"environmentId": e.envID, "sheetId": w.sheetB}}
			if st, _ := e.call(t, "POST", "/v1/events", tok, body); st != http.StatusForbidden {
				t.Errorf("%s posting %s: got %d, want 403", name, topic, st)
			}
		}
		body := map[string]any{"topic": "acme:ping", "domain": "acme", "context": map[string]any{"environmentId": e.envID, "sheetId": w.sheetB, "workbookId": w.wbB}}
		if st, _ := e.call(t, "POST", "/v1/events", tok, body); st != http.StatusNotFound {
			t.Errorf("%s posting a custom event naming space B's sheet: got %d, want 404", name, st)
		}
	}
	if st, _ := e.call(t, "POST", "/v1/events", guest, map[string]any{"topic": "acme:ping", "domain": "acme", "context": map[string]any{"environmentId": e.envID, "sheetId": w.sheetA}}); st != http.StatusOK {
		t.Errorf("a guest posting a custom event in its space: %d", st)
	}
	// The secret key (agents) still posts system topics.
	if st, _ := e.call(t, "POST", "/v1/events", testSecret, map[string]any{"topic": "records:created", "domain": "workbook", "context": map[string]any{"environmentId": e.envID, "sheetId": w.sheetA}}); st != http.StatusOK {
		t.Errorf("the secret key posting a system topic: %d", st)
	}
}

// Guests do not read other guests' e-mail addresses in the event log.
func TestGuestsSeeNoGuestEmails(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	_, guest := e.guestToken(t, w.spaceA, "first@partner.io")
	e.guestToken(t, w.spaceA, "second@partner.io")
	_, body := e.request(t, "GET", "/v1/events?spaceId="+w.spaceA+"&pageSize=100&includeAcknowledged=true", guest)
	if strings.Contains(body, "second@partner.io") {
		t.Fatal("a guest read another guest's e-mail in the event log")
	}
}

// High: admin-like calls of one environment do not reach another's guests: no invitation
// mail to them, no links, no grants to another environment's spaces.
func TestGuestAdminStaysInItsEnvironment(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	gid, _ := e.guestToken(t, w.spaceA, "guest@partner.io")
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/v1/invitations", []any{map[string]any{"guestId": gid, "spaceId": w.spaceA, "message": "click here"}}},
		{"GET", "/v1/guests/" + gid + "/token?spaceId=" + w.spaceA, nil},
		{"DELETE", "/v1/guests/" + gid, nil},
		{"POST", "/v1/guests", []any{map[string]any{"environmentId": w.env2, "email": "x@y.io", "spaces": []any{map[string]any{"id": w.spaceA}}}}},
		{"GET", "/v1/guests?environmentId=" + e.envID, nil},
		{"GET", "/v1/users?environmentId=" + e.envID, nil},
	} {
		if st, _ := e.call(t, c.method, c.path, w.sk2, c.body); st != http.StatusNotFound && st != http.StatusForbidden {
			t.Errorf("%s %s with environment 2's key: got %d, want 403/404", c.method, c.path, st)
		}
	}
	if st, _ := e.call(t, "GET", "/v1/guests/"+gid, testSecret, nil); st != http.StatusOK {
		t.Errorf("the guest is gone: %d", st)
	}
}

// Apps limited to one environment are that environment's; the others are the account's.
func TestEnvironmentKeysManageOnlyTheirApps(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	admin := jwtFor(t, e)
	shared := dataOf(e.mustCall(t, "POST", "/v1/apps", admin, map[string]any{"name": "Shared", "namespace": "shared", "type": "CUSTOM"}))["id"].(string)
	mine := dataOf(e.mustCall(t, "POST", "/v1/apps", testSecret, map[string]any{"name": "Mine", "namespace": "mine", "type": "CUSTOM", "environmentFilters": map[string]any{"environmentIds": []string{e.envID}}}))["id"].(string)
	wide := map[string]any{"name": "Wide", "namespace": "wide", "type": "CUSTOM", "environmentFilters": map[string]any{"environmentIds": []string{e.envID, w.env2}}}
	if st, _ := e.call(t, "POST", "/v1/apps", testSecret, wide); st != http.StatusNotFound {
		t.Errorf("a key making an app for two environments: %d, want 404", st)
	}
	if got := dataOf(e.mustCall(t, "POST", "/v1/apps", testSecret, map[string]any{"name": "Own", "namespace": "own", "type": "CUSTOM"}))["environmentFilters"]; fmt.Sprint(got) != fmt.Sprint(map[string]any{"environmentIds": []any{e.envID}}) {
		t.Errorf("a key's app without filters: environmentFilters %v, want its own environment", got)
	}
	for _, id := range []string{shared, mine} {
		if st, _ := e.call(t, "PATCH", "/v1/apps/"+id, w.sk2, map[string]any{"name": "pwned"}); st != http.StatusNotFound {
			t.Errorf("environment 2's key changing app %s: %d, want 404", id, st)
		}
	}
	if _, body := e.request(t, "GET", "/v1/apps", w.sk2); strings.Contains(body, mine) || strings.Contains(body, shared) {
		t.Errorf("environment 2's key lists other apps: %.200s", body)
	}
	if st, _ := e.call(t, "PATCH", "/v1/apps/"+mine, testSecret, map[string]any{"name": "Mine 2"}); st != http.StatusOK {
		t.Errorf("a key changing its environment's app: %d", st)
	}
}

// A revoked credential's event stream ends at the next check, with an error event.
func TestEventStreamEndsWhenTheGuestIsRemoved(t *testing.T) {
	s := newStreamServer(t)
	e := s.apiEnv
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "A"})["id"].(string)
	gid, guest := e.guestToken(t, sp, "guest@partner.io")
	c := s.open(t, "?spaceId="+sp, guest, nil)
	e.mustCall(t, "DELETE", "/v1/guests/"+gid, testSecret, nil)
	deadline := time.After(3 * time.Second)
	for {
		select {
		case m := <-c.msgs:
			if m.event["errors"] != nil {
				select {
				case <-c.done:
				case <-time.After(2 * time.Second):
					t.Fatal("the stream stayed open after its error event")
				}
				return
			}
		case <-c.done:
			t.Fatal("the stream closed without an error event")
		case <-deadline:
			t.Fatal("a removed guest's stream is still open after 3 s")
		}
	}
}

// Dashboard forms of environment 2's user take no id of environment 1.
func TestAdminFormsStayInTheirEnvironment(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	e.mustCall(t, "POST", "/v1/secrets", testSecret, map[string]any{"name": "CRM", "value": "v", "environmentId": e.envID})
	secret := listOf(e.mustCall(t, "GET", "/v1/secrets?environmentId="+e.envID, testSecret, nil))[0].(map[string]any)["id"].(string)
	gid, _ := e.guestToken(t, w.spaceA, "guest@partner.io")
	b := loggedOut(t, e)
	b.do(t, "GET", "/login", nil, false)
	if resp, _ := b.do(t, "POST", "/login", url.Values{"email": {"two@example.com"}, "password": {"two's password"}, "_csrf": {b.csrf}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("environment 2's user signing in: %d", resp.StatusCode)
	}
	for _, c := range []struct {
		path string
		form url.Values
	}{
		{"/admin/secrets/" + secret + "/delete", url.Values{}},
		{"/admin/guests/" + gid + "/remove", url.Values{}},
		{"/admin/guests/" + gid + "/link", url.Values{"space": {w.spaceA}}},
		{"/admin/theme", url.Values{"space": {w.spaceA}, "root.primaryColor": {"red"}}},
		{"/admin/guests", url.Values{"email": {"x@y.io"}, "space": {w.spaceA}, "env": {w.env2}}},
	} {
		c.form.Set("_csrf", b.csrf)
		if resp, _ := b.do(t, "POST", c.path, c.form, true); resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s as environment 2's user: got %d, want 403/404", c.path, resp.StatusCode)
		}
	}
	if got := listOf(e.mustCall(t, "GET", "/v1/secrets?environmentId="+e.envID, testSecret, nil)); len(got) != 1 {
		t.Errorf("environment 1's secret is gone")
	}
	if st, _ := e.call(t, "GET", "/v1/guests/"+gid, testSecret, nil); st != http.StatusOK {
		t.Errorf("environment 1's guest is gone: %d", st)
	}
}

// CSV exports neutralise cells that a spreadsheet would run as formulas, unless asked not to;
// numbers stay numbers and XLSX cells are text anyway.
func TestCSVExportNeutralisesFormulas(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "A"})["id"].(string)
	sheet := e.mustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": sp, "sheets": []any{map[string]any{"name": "S", "slug": "s",
		"fields": []any{map[string]any{"key": "a", "type": "string"}, map[string]any{"key": "n", "type": "number"}}}}})["sheets"].([]any)[0].(map[string]any)["id"].(string)
	var rows []any
	for _, v := range []string{`=HYPERLINK("http://evil.example","x")`, "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "plain"} {
		rows = append(rows, map[string]any{"a": map[string]any{"value": v}, "n": map[string]any{"value": -5}})
	}
	e.mustCall(t, "POST", "/v1/sheets/"+sheet+"/records", testSecret, rows)
	_, body := e.request(t, "GET", "/v1/sheets/"+sheet+"/download", testSecret)
	for _, want := range []string{`"'=HYPERLINK(""http://evil.example"",""x"")"`, "'+1+cmd", "'-2+3", "'@SUM(A1)", "plain,-5"} {
		if !strings.Contains(body, want) {
			t.Errorf("the CSV lacks %q:\n%s", want, body)
		}
	}
	if _, body := e.request(t, "GET", "/v1/sheets/"+sheet+"/download?keepFormulas=true", testSecret); !strings.Contains(body, `"=HYPERLINK(`) {
		t.Errorf("keepFormulas=true still changed the cells:\n%s", body)
	}
}

// Pages load images from Sluice and data: URLs only (no tracking pixels in documents).
func TestPagesLoadNoThirdPartyImages(t *testing.T) {
	e := newAPI(t)
	resp := e.raw(t, "GET", "/login", nil, "")
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data:;") {
		t.Fatalf("CSP %q lets images come from elsewhere", csp)
	}
}

// A replaced invitation link says so when it is opened, without a password form.
func TestReplacedInvitationLinkSaysSo(t *testing.T) {
	e := newAPI(t)
	e.mustCall(t, "POST", "/v1/users/invite", testSecret, map[string]any{"email": "new@example.com", "name": "New"})
	first := lastInvite(t, e, "new@example.com")
	id := listOf(e.mustCall(t, "GET", "/v1/users?email=new%40example.com", testSecret, nil))[0].(map[string]any)["id"].(string)
	e.mustCall(t, "POST", "/v1/users/"+id+"/resend-invite", testSecret, nil)
	b := loggedOut(t, e)
	resp, doc := b.do(t, "GET", first, nil, false)
	if resp.StatusCode != http.StatusNotFound || doc.Find(`[data-testid="invite-form"]`).Length() != 0 || doc.Find(`[data-testid="invite-dead"]`).Length() != 1 {
		t.Fatalf("the replaced link: %d, form shown %v", resp.StatusCode, doc.Find(`[data-testid="invite-form"]`).Length() > 0)
	}
	if resp, doc := b.do(t, "GET", lastInvite(t, e, "new@example.com"), nil, false); resp.StatusCode != http.StatusOK || doc.Find(`[data-testid="invite-form"]`).Length() != 1 {
		t.Fatalf("the new link: %d", resp.StatusCode)
	}
}

// A PAT cannot mint PATs (revoking a stolen one ends its access), and may expire.
func TestPATsComeFromPasswordsAndMayExpire(t *testing.T) {
	e := newAPI(t)
	admin := jwtFor(t, e)
	pat := dataOf(e.mustCall(t, "POST", "/v1/auth/personal-access-tokens", admin, map[string]any{"name": "ci", "expiresInDays": 7}))
	tok := pat["token"].(string)
	if st, _ := e.call(t, "POST", "/v1/auth/personal-access-tokens", tok, map[string]any{"name": "spawn"}); st != http.StatusForbidden {
		t.Fatalf("a PAT minting a PAT: %d, want 403", st)
	}
	if exp, _ := pat["personalAccessToken"].(map[string]any)["expiresAt"].(string); !strings.HasPrefix(exp, "2026-01-09") {
		t.Errorf("expiresAt %q, want 7 days after 2026-01-02", exp)
	}
	if st, _ := e.call(t, "GET", "/v1/spaces", tok, nil); st != http.StatusOK {
		t.Fatalf("the PAT before it expires: %d", st)
	}
	if st, _ := e.call(t, "POST", "/v1/auth/personal-access-tokens", admin, map[string]any{"name": "x", "expiresInDays": 0}); st != http.StatusBadRequest {
		t.Errorf("expiresInDays 0: %d, want 400", st)
	}
	e.now = e.now.Add(8 * 24 * time.Hour)
	if st, _ := e.call(t, "GET", "/v1/spaces", tok, nil); st != http.StatusUnauthorized {
		t.Fatalf("the PAT after it expired: %d, want 401", st)
	}
}

// One request's cost is bounded: record writes by count (with a 400 naming the cap and its
// setting), FFQL filters by their conditions, every read by SLUICE_QUERY_TIMEOUT.
func TestRequestCostIsBounded(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	_, guest := e.guestToken(t, w.spaceA, "guest@partner.io")
	many := make([]any, 10_001)
	for i := range many {
		many[i] = map[string]any{}
	}
	st, out := e.call(t, "POST", "/v1/sheets/"+w.sheetA+"/records", guest, many)
	if st != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out), "SLUICE_MAX_RECORDS_PER_REQUEST") {
		t.Fatalf("10,001 records in one insert: %d %v", st, out)
	}
	if n := e.recordCount(t, w.sheetA); n != 1 {
		t.Fatalf("the refused insert wrote: %d records", n)
	}
	terms := make([]string, 60)
	for i := range terms {
		terms[i] = fmt.Sprintf(`email like "%%x%d%%"`, i)
	}
	st, out = e.call(t, "GET", "/v1/sheets/"+w.sheetA+"/records?q="+url.QueryEscape(strings.Join(terms, " or ")), guest, nil)
	if st != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out), "SLUICE_MAX_FFQL_TERMS") {
		t.Fatalf("a 60-condition filter: %d %v", st, out)
	}
	// A read that outlasts the deadline is stopped with a 503 that says why.
	e.tune = func(d *web.Deps) { d.QueryTimeout = time.Nanosecond }
	e.app = e.newApp(e.db.Sealer.(*auth.Sealer))
	st, out = e.call(t, "GET", "/v1/sheets/"+w.sheetA+"/records?q="+url.QueryEscape(`email like "%victim%"`), guest, nil)
	if st != http.StatusServiceUnavailable || !strings.Contains(fmt.Sprint(out), "SLUICE_QUERY_TIMEOUT") {
		t.Fatalf("a read past the deadline: %d %v", st, out)
	}
}

// An upload's form may not carry a million fields beside its file.
func TestUploadFormFieldsAreCapped(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "A"})["id"].(string)
	var body strings.Builder
	body.WriteString("--b\r\nContent-Disposition: form-data; name=\"spaceId\"\r\n\r\n" + sp + "\r\n")
	for range 200 {
		body.WriteString("--b\r\nContent-Disposition: form-data; name=\"actions\"\r\n\r\n{}\r\n")
	}
	body.WriteString("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\na\n1\n\r\n--b--\r\n")
	resp := e.raw(t, "POST", "/v1/files", map[string]string{"Content-Type": "multipart/form-data; boundary=b", "Authorization": "Bearer " + testSecret}, body.String())
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "more than 100 fields") {
		t.Fatalf("an upload with 200 fields: %d %s", resp.StatusCode, b)
	}
}

// A visitor's space token may clip its own sheet for collaborators, but not hand the open web
// a link to it.
func TestVisitorsCannotShareClipsPublicly(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	n := len(listOf(e.mustCall(t, "GET", "/v1/workbooks?spaceId="+w.spaceV, testSecret, nil)))
	if st, _ := e.call(t, "POST", "/v1/data-clips", w.visitor, map[string]any{"name": "open", "sourceSheetId": w.sheetV, "sharedLinkAccess": "public"}); st != http.StatusForbidden {
		t.Fatalf("a visitor making a public clip: %d, want 403", st)
	}
	if got := len(listOf(e.mustCall(t, "GET", "/v1/workbooks?spaceId="+w.spaceV, testSecret, nil))); got != n {
		t.Fatalf("the refused clip left a workbook behind (%d → %d)", n, got)
	}
	st, out := e.callAny(t, "POST", "/v1/data-clips", w.visitor, map[string]any{"name": "team", "sourceSheetId": w.sheetV})
	if st != http.StatusOK {
		t.Fatalf("a visitor making a restricted clip: %d %v", st, out)
	}
	id := out.(map[string]any)["id"].(string)
	if st, _ := e.call(t, "PATCH", "/v1/data-clips/"+id, w.visitor, map[string]any{"sharedLinkAccess": "public"}); st != http.StatusForbidden {
		t.Fatalf("a visitor making its clip public: %d, want 403", st)
	}
}

// A guest's requests beyond its fair share wait their turn; past the deadline they are told
// to slow down, not left hanging.
func TestGuestRequestsQueueBeyondTheirShare(t *testing.T) {
	e := newAPI(t)
	w := newResWorld(t, e)
	_, guest := e.guestToken(t, w.spaceA, "guest@partner.io")
	e.tune = func(d *web.Deps) { d.QueryTimeout = 2 * time.Second }
	e.app = e.newApp(e.db.Sealer.(*auth.Sealer))
	var wg sync.WaitGroup
	codes := make([]int, 12)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = e.request(t, "GET", "/v1/sheets/"+w.sheetA+"/records", guest)
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("request %d of 12 parallel guest reads: %d", i, c)
		}
	}
}
