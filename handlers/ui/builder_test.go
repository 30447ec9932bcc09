package ui_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/sluice/sluice/events"
)

// A business user builds a workbook in the dashboard, fixes a schema gap from the grid,
// changes the sheet's fields and submits it without an agent or one line of code.
func TestSheetBuilder(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	got := make(chan *http.Request, 1)
	bodies := make(chan []byte, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
	}))
	defer receiver.Close()
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "onboarding"})["id"].(string)
	b := webtest.LoggedIn(t, e)
	_, doc := b.Do(t, "GET", "/space/"+spaceID, nil, false)
	if href, _ := doc.Find(`[data-testid=new-workbook]`).Attr("href"); href != "/space/"+spaceID+"/workbooks/new" {
		t.Fatalf("the space page offers no new workbook (%q): %s", href, doc.Find(`[data-testid=workbooks-empty]`).Text())
	}
	page := "/space/" + spaceID + "/workbooks/new"
	if _, doc := b.Do(t, "GET", page, nil, false); doc.Find(`[data-testid=builder-field]`).Length() != 1 {
		t.Fatal("the builder does not open with one field")
	}
	// "Add field" draws the form again with another row; the JSON view follows the form.
	rows := [][5]string{{"Email", "", "string", "", "required"}}
	_, doc = b.Do(t, "POST", page, webtest.BuilderForm(b.Csrf, "add", rows, url.Values{"name": {"Contacts"}}), true)
	if n := doc.Find(`[data-testid=builder-field]`).Length(); n != 2 {
		t.Fatalf("after Add field: %d rows, want 2", n)
	}
	if js := doc.Find(`[data-testid=builder-json-text]`).Text(); !strings.Contains(js, `"key": "email"`) || !strings.Contains(js, `"type": "required"`) {
		t.Fatalf("the JSON view does not show the form's field: %s", js)
	}
	// Remove takes a row out.
	_, doc = b.Do(t, "POST", page, webtest.BuilderForm(b.Csrf, "remove:1", append(rows, [5]string{"x", "", "string", "", ""}), nil), true)
	if n := doc.Find(`[data-testid=builder-field]`).Length(); n != 1 {
		t.Fatalf("after Remove: %d rows, want 1", n)
	}
	// A form without a sheet name is refused with a readable message, nothing is created.
	if resp, _ := b.Do(t, "POST", page, webtest.BuilderForm(b.Csrf, "save", rows, nil), true); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("saving without a sheet name: %d, want 400", resp.StatusCode)
	}
	rows = [][5]string{{"Email", "", "string", "", "required"}, {"Country", "", "enum", "de | Germany\nfr", ""}, {"Age", "age", "number", "", ""}}
	form := webtest.BuilderForm(b.Csrf, "save", rows, url.Values{"workbook": {"Onboarding"}, "name": {"Contacts"}, "submit": {"on"},
		"submit_url": {receiver.URL + "/hook"}, "unique": {"email, country"}})
	resp, _ := b.Do(t, "POST", page, form, true)
	to := resp.Header.Get("HX-Redirect")
	if !strings.HasPrefix(to, "/space/"+spaceID+"/sheet/us_sh_") {
		t.Fatalf("save: %d → %q", resp.StatusCode, to)
	}
	sheetID := strings.TrimPrefix(to, "/space/"+spaceID+"/sheet/")
	wbs := webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks?spaceId="+spaceID, webtest.Secret, nil))
	if len(wbs) != 1 {
		t.Fatalf("%d workbooks, want 1", len(wbs))
	}
	wb := wbs[0].(map[string]any)
	raw, _ := json.Marshal(wb)
	for _, want := range []string{`"name":"Onboarding"`, `"operation":"sluice-submit"`, `"submitUrl":"` + receiver.URL + `/hook"`, `"key":"email"`,
		`"type":"required"`, `"label":"Germany"`, `"value":"fr"`, `"fields":["email","country"]`, `"key":"age","label":"Age","type":"number"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the workbook lacks %s: %s", want, raw)
		}
	}
	wbID := wb["id"].(string)
	// A value the schema lacks: one record is in error until the column gains the option.
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{
		map[string]any{"email": map[string]any{"value": "a@x.io"}, "country": map[string]any{"value": "de"}, "age": map[string]any{"value": 30}},
		map[string]any{"email": map[string]any{"value": "b@x.io"}, "country": map[string]any{"value": "it"}, "age": map[string]any{"value": 41}},
	})
	counts := func() map[string]any {
		return webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/counts", webtest.Secret, nil))["counts"].(map[string]any)
	}
	if c := counts(); c["error"].(float64) != 1 {
		t.Fatalf("counts before the option: %v", c)
	}
	_, doc = b.Do(t, "GET", to, nil, false)
	if doc.Find(`[data-testid=edit-fields]`).Length() != 1 || doc.Find(`[data-testid=add-option]`).Length() != 1 {
		t.Fatalf("the grid offers no Edit fields (%d) or Add option on the enum column (%d)", doc.Find(`[data-testid=edit-fields]`).Length(), doc.Find(`[data-testid=add-option]`).Length())
	}
	if resp, _ := b.Do(t, "POST", to+"/options/country", url.Values{"_csrf": {b.Csrf}, "value": {"it"}}, true); resp.Header.Get("HX-Redirect") == "" {
		t.Fatalf("add option: %d", resp.StatusCode)
	}
	if c := counts(); c["error"].(float64) != 0 || c["valid"].(float64) != 2 {
		t.Fatalf("counts after adding the option: %v", c)
	}
	// Editing the sheet keeps what the form does not show, and a removed field's values stay
	// in a snapshot.
	e.MustCall(t, "POST", "/v1/workbooks/"+wbID+"/rebuild", webtest.Secret, nil)
	_, doc = b.Do(t, "GET", to+"/schema", nil, false)
	if n := doc.Find(`[data-testid=builder-field]`).Length(); n != 3 || !strings.Contains(doc.Find(`[data-testid=builder-existing]`).Text(), "2 records") {
		t.Fatalf("the sheet's builder shows %d fields and %q", n, doc.Find(`[data-testid=builder-existing]`).Text())
	}
	edit := webtest.BuilderForm(b.Csrf, "save", [][5]string{{"E-mail address", "email", "string", "", "required"}, {"Country", "country", "enum", "de | Germany\nfr\nit | Italy", ""}},
		url.Values{"name": {"Contacts"}, "orig0": {"email"}, "orig1": {"country"}})
	edit.Set("orig0", "email")
	edit.Set("orig1", "country")
	if resp, _ := b.Do(t, "POST", to+"/schema", edit, true); resp.Header.Get("HX-Redirect") != to+"?notice=schema" {
		t.Fatalf("saving the edit: %d → %q", resp.StatusCode, resp.Header.Get("HX-Redirect"))
	}
	sheet := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheetID, webtest.Secret, nil))
	raw, _ = json.Marshal(sheet["config"])
	if strings.Contains(string(raw), `"age"`) || !strings.Contains(string(raw), `"label":"E-mail address"`) || !strings.Contains(string(raw), `"label":"Italy"`) {
		t.Fatalf("the edited sheet: %s", raw)
	}
	snaps := webtest.ListOf(e.MustCall(t, "GET", "/v1/snapshots?sheetId="+sheetID, webtest.Secret, nil))
	if len(snaps) != 1 || !strings.Contains(snaps[0].(map[string]any)["label"].(string), "age") {
		t.Fatalf("no snapshot keeps the removed field: %v", snaps)
	}
	// Submit runs without an agent: the receiver gets the records, signed.
	job := webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "workbook", "operation": "sluice-submit", "source": wbID}))
	e.MustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/execute", webtest.Secret, nil)
	done := e.WaitJob(t, job["id"].(string))
	if done["status"] != "complete" {
		t.Fatalf("submit: %v", done)
	}
	select {
	case r := <-got:
		body := <-bodies
		secret, err := e.DB.SecretKey(t.Context(), e.EnvID)
		if err != nil {
			t.Fatal(err)
		}
		if err := events.Verify(secret, r.Header.Get(events.SignatureHeader), body, e.Now, time.Hour); err != nil {
			t.Errorf("the submitted records are not signed: %v", err)
		}
		if !strings.Contains(string(body), `"email":"b@x.io"`) || strings.Count(string(body), `"country"`) != 2 {
			t.Errorf("the submitted body: %s", body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Submit sent nothing")
	}
	outcome, _ := json.Marshal(done["outcome"])
	if !strings.Contains(string(outcome), "/download") || !strings.Contains(string(outcome), "Submitted 2 records") {
		t.Errorf("the outcome offers no download: %s", outcome)
	}
	// Only those trusted with the environment choose where Submit sends.
	v := webtest.DataOf(e.MustCall(t, "POST", "/v1/spaces", webtest.Public, map[string]any{"name": "visitor"}))
	tok := v["accessToken"].(string)
	if st, body := e.Call(t, "PATCH", "/v1/workbooks/"+wbID, tok, map[string]any{"settings": map[string]any{"submitUrl": "https://evil.example"}}); st != http.StatusForbidden && st != http.StatusNotFound {
		t.Errorf("a visitor setting another space's submitUrl: %d %s", st, body)
	}
	vwb := webtest.DataOf(e.MustCall(t, "POST", "/v1/workbooks", tok, map[string]any{"name": "mine", "spaceId": v["id"], "sheets": []any{map[string]any{"name": "S", "slug": "s",
		"fields": []any{map[string]any{"key": "a", "type": "string"}}}}}))
	if st, _ := e.Call(t, "PATCH", "/v1/workbooks/"+vwb["id"].(string), tok, map[string]any{"settings": map[string]any{"submitUrl": "https://evil.example"}}); st != http.StatusForbidden {
		t.Errorf("a visitor setting its own workbook's submitUrl: %d, want 403", st)
	}
}

// An app's template space is made from its blueprint, tagged with the app, once.
func TestAppTemplateSpace(t *testing.T) {
	e := webtest.NewAPI(t)
	app := webtest.DataOf(e.MustCall(t, "POST", "/v1/apps", webtest.Secret, map[string]any{"name": "Portal", "namespace": "portal", "type": "portal",
		"blueprint": map[string]any{"name": "Intake", "sheets": []any{map[string]any{"name": "People", "fields": []any{
			map[string]any{"key": "email", "type": "string", "constraints": []any{map[string]any{"type": "required"}}}}}}}}))
	bad := webtest.DataOf(e.MustCall(t, "POST", "/v1/apps", webtest.Secret, map[string]any{"name": "Broken", "namespace": "broken", "type": "portal",
		"blueprint": map[string]any{"sheets": "nope"}}))
	b := webtest.LoggedIn(t, e)
	if _, doc := b.Do(t, "GET", "/admin/apps", nil, false); doc.Find(`[data-testid=app-template]`).Length() != 2 {
		t.Fatal("the apps page offers no template space")
	}
	form := url.Values{"_csrf": {b.Csrf}, "env": {e.EnvID}}
	resp, _ := b.Do(t, "POST", "/admin/apps/"+app["id"].(string)+"/template", form, false)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/space/us_sp_") {
		t.Fatalf("template: %d → %q", resp.StatusCode, loc)
	}
	spaces := webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces?appId="+app["id"].(string)+"&isAppTemplate=true", webtest.Secret, nil))
	if len(spaces) != 1 || "/space/"+spaces[0].(map[string]any)["id"].(string) != loc {
		t.Fatalf("template spaces of the app: %v", spaces)
	}
	wbs := webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks?spaceId="+strings.TrimPrefix(loc, "/space/"), webtest.Secret, nil))
	if len(wbs) != 1 || wbs[0].(map[string]any)["name"] != "Intake" || len(wbs[0].(map[string]any)["sheets"].([]any)) != 1 {
		t.Fatalf("the template space's workbooks: %v", wbs)
	}
	if resp, _ := b.Do(t, "POST", "/admin/apps/"+app["id"].(string)+"/template", form, false); resp.Header.Get("Location") != loc {
		t.Fatalf("a second template space: %q, want the first %q", resp.Header.Get("Location"), loc)
	}
	if resp, doc := b.Do(t, "POST", "/admin/apps/"+bad["id"].(string)+"/template", form, false); resp.StatusCode != http.StatusBadRequest || !strings.Contains(doc.Text(), "blueprint") {
		t.Fatalf("a broken blueprint: %d %s", resp.StatusCode, doc.Find("main").Text())
	}
	if n := len(webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces?appId="+bad["id"].(string), webtest.Secret, nil))); n != 0 {
		t.Fatalf("a broken blueprint left %d spaces", n)
	}
}

// The job monitor names built-in jobs in the page's language, shows each job's space and
// lets an admin cancel a job nobody runs.
func TestJobMonitorSpaceAndCancel(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Vendors Q3"})["id"].(string)
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "S", "fields": []any{map[string]any{"key": "a", "type": "string"}}}}})
	job := webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "workbook", "operation": "sluice-submit", "source": wb["id"]}))
	b := webtest.LoggedIn(t, e)
	b.Cookies["lang"] = "de"
	_, doc := b.Do(t, "GET", "/admin/jobs?env="+e.EnvID, nil, false)
	row := doc.Find(`[data-testid=job-monitor] tr`).First()
	if !strings.Contains(row.Text(), "Absenden") || !strings.Contains(row.Find(`[data-testid=job-space]`).Text(), "Vendors Q3") {
		t.Fatalf("the job monitor's row: %q", row.Text())
	}
	cancel, _ := row.Find(`[data-testid=job-cancel]`).Attr("hx-post")
	if cancel != "/space/"+spaceID+"/jobs/"+job["id"].(string)+"/cancel" {
		t.Fatalf("cancel posts to %q", cancel)
	}
	b.Do(t, "POST", cancel, url.Values{"_csrf": {b.Csrf}}, true)
	if st := webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+job["id"].(string), webtest.Secret, nil))["status"]; st != "canceled" {
		t.Fatalf("after cancel the job is %v", st)
	}
	if _, doc := b.Do(t, "GET", "/admin/jobs?env="+e.EnvID, nil, false); doc.Find(`[data-testid=job-cancel]`).Length() != 0 {
		t.Error("a canceled job can still be canceled")
	}
}

// The i18n keys Flatfile's SDKs write (the React SDK's default Submit, its listener's job
// info) are said in the page's language, never shown raw.
func TestSDKKeysTranslated(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "sdk"})["id"].(string)
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "S", "fields": []any{map[string]any{"key": "a", "type": "string"}}}},
		"actions": []any{map[string]any{"operation": "workbookSubmitAction", "mode": "foreground", "label": "jobs.submit.button.defaultLabel", "primary": true}}})
	job := webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "workbook", "operation": "workbookSubmitAction", "source": wb["id"]}))
	e.MustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/execute", webtest.Secret, nil)
	e.MustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/ack", webtest.Secret, map[string]any{"info": "jobs.messages.startingJob", "progress": 10})
	b := webtest.LoggedIn(t, e)
	for lang, want := range map[string][2]string{"en": {"Submit", "Starting…"}, "de": {"Absenden", "Wird gestartet…"}} {
		b.Cookies["lang"] = lang
		_, bar := b.Do(t, "GET", "/space/"+spaceID+"/actions?target="+wb["id"].(string), nil, true)
		_, panel := b.Do(t, "GET", "/space/"+spaceID+"/jobs/"+job["id"].(string)+"/panel", nil, true)
		for _, page := range []string{bar.Text(), panel.Text()} {
			if strings.Contains(page, "jobs.") {
				t.Errorf("%s: a raw SDK key is shown: %q", lang, page)
			}
		}
		if !strings.Contains(bar.Text(), want[0]) || !strings.Contains(panel.Text(), want[1]) {
			t.Errorf("%s: the button says %q, the panel %q", lang, bar.Text(), panel.Text())
		}
	}
}

// Admin → Environment sets a white label for the environment's spaces: the host's name
// instead of Sluice's, no logo; a space's own metadata.whiteLabel overrides it.
func TestWhiteLabel(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "branded"})["id"].(string)
	other := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "own", "metadata": map[string]any{"whiteLabel": map[string]any{"title": "Partner Portal"}}})["id"].(string)
	b := webtest.LoggedIn(t, e)
	resp, _ := b.Do(t, "POST", "/admin/environment", url.Values{"_csrf": {b.Csrf}, "env": {e.EnvID}, "namespaces": {""}, "showSpaceInfo": {"true"},
		"brandTitle": {"Acme Imports"}, "hideLogo": {"true"}}, true)
	if resp.StatusCode >= 300 && resp.Header.Get("HX-Redirect") == "" {
		t.Fatalf("saving the white label: %d", resp.StatusCode)
	}
	_, doc := b.Do(t, "GET", "/admin/environment?env="+e.EnvID, nil, false)
	if v, _ := doc.Find(`[data-testid=brand-title]`).Attr("value"); v != "Acme Imports" || doc.Find(`[data-testid=hide-logo][checked]`).Length() != 1 {
		t.Fatalf("the environment page shows the white label %q", v)
	}
	_, doc = b.Do(t, "GET", "/space/"+spaceID, nil, false)
	brand := doc.Find(`[data-testid=brand]`)
	if !strings.Contains(brand.Text(), "Acme Imports") || brand.Find("svg").Length() != 0 || !strings.Contains(doc.Find("title").Text(), "Acme Imports") {
		t.Errorf("the space page's brand: %q (logo %d), title %q", brand.Text(), brand.Find("svg").Length(), doc.Find("title").Text())
	}
	_, doc = b.Do(t, "GET", "/space/"+other, nil, false)
	if got := doc.Find(`[data-testid=brand]`).Text(); !strings.Contains(got, "Partner Portal") {
		t.Errorf("a space's own white label: %q", got)
	}
	_, doc = b.Do(t, "GET", "/", nil, false)
	if got := doc.Find(`[data-testid=brand]`).Text(); !strings.Contains(got, "Sluice") {
		t.Errorf("the dashboard's own pages keep Sluice: %q", got)
	}
}
