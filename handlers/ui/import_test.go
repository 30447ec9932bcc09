package ui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/PuerkitoBio/goquery"
)

func TestImportWizard(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "import"})
	spaceID := sp["id"].(string)
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "CRM", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Contacts", "allowAdditionalFields": true, "fields": []any{
		map[string]any{"key": "first_name", "type": "string", "label": "First name", "constraints": []any{map[string]any{"type": "required"}}},
		map[string]any{"key": "email", "type": "string", "label": "Email", "constraints": []any{map[string]any{"type": "unique"}}},
		map[string]any{"key": "tier", "type": "enum", "label": "Tier", "config": map[string]any{"options": []any{
			map[string]any{"value": "gold", "label": "Gold"}, map[string]any{"value": "silver", "label": "Silver"}}}},
	}}}})
	dest := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	f := e.MustUpload(t, spaceID, "leads.csv", "Vorname,E-Mail Adresse,Tier,Notiz,zzz\nZoë,zoe@x.io,GOLD,call back,1\n,ada@x.io,Silber,,2\nBo,zoe@x.io,gold,,3\n")
	b := webtest.LoggedIn(t, e)

	_, doc := b.Do(t, "GET", "/space/"+spaceID, nil, false)
	href, _ := doc.Find(`[data-testid=file-import]`).Attr("href")
	if href != "/space/"+spaceID+"/import/"+f["id"].(string) {
		t.Fatalf("space page: got import link %q", href)
	}
	// One destination sheet: it is chosen, and the engine's suggestion fills the table.
	_, doc = b.Do(t, "GET", href, nil, false)
	if got := doc.Find(`[data-testid=import-preview] tbody tr`).Length(); got != 3 {
		t.Fatalf("preview: got %d rows, want 3", got)
	}
	chosen := map[string]string{}
	doc.Find(`[data-testid=import-row]`).Each(func(_ int, s *goquery.Selection) {
		col, _ := s.Attr("data-column")
		v, _ := s.Find(`select[name=dest] option[selected]`).Attr("value")
		chosen[col] = v
	})
	want := map[string]string{"Vorname": "first_name", "E-Mail Adresse": "email", "Tier": "tier", "Notiz": "+custom", "zzz": "+custom"}
	for col, w := range want {
		if chosen[col] != w {
			t.Errorf("column %s: got %q, want %q (all: %v)", col, chosen[col], w, chosen)
		}
	}
	if doc.Find(`[data-testid=import-confidence]`).Length() < 3 {
		t.Error("suggestions carry no confidence")
	}
	// The reasons are said in the page's language, naming the language a header was read in.
	reasons := func(doc *goquery.Document) string {
		return doc.Find(`[data-testid=import-row][data-column="Vorname"] li`).Text()
	}
	if got := reasons(doc); !strings.Contains(got, "Deutsch: “vorname” → first name") {
		t.Errorf("the reasons for Vorname say %q", got)
	}
	b.Cookies["lang"] = "de"
	_, de := b.Do(t, "GET", href, nil, false)
	delete(b.Cookies, "lang")
	if got := reasons(de); !strings.Contains(got, "Deutsch: „vorname“ → first name") || !strings.Contains(got, "Überschrift und „first_name“ (Schlüssel des Feldes) bedeuten beide „first name“") {
		t.Errorf("in German the reasons for Vorname say %q", got)
	}
	enum := doc.Find(`[data-testid=import-enum]`)
	if enum.Length() != 1 || !strings.Contains(enum.Text(), "Silber") {
		t.Fatalf("enum table: got %q, want the Tier values", enum.Text())
	}
	if v, _ := enum.Find(`select option[selected]`).First().Attr("value"); v != "gold" {
		t.Errorf("GOLD: got option %q, want gold", v)
	}
	// Changing a column's field re-renders its value table.
	_, part := b.Do(t, "GET", href+"/enum?to="+dest+"&col=Notiz&dest=tier", nil, true)
	if part.Find(`[data-testid=import-enum]`).Length() != 1 {
		t.Error("the enum partial for Notiz → tier is empty")
	}

	// Mapping two columns onto one field is refused with a readable message.
	form := url.Values{"to": {dest}, "src": {"Vorname", "E-Mail Adresse", "Tier", "Notiz", "zzz"}, "dest": {"first_name", "first_name", "tier", "+custom", ""}}
	resp, part := b.Do(t, "POST", href, form, true)
	if resp.StatusCode != 400 || !strings.Contains(part.Text(), "both map onto First name") {
		t.Fatalf("duplicate: got %d %q", resp.StatusCode, part.Text())
	}
	// A required field no column fills: nothing is written until the user confirms.
	form = url.Values{"to": {dest}, "src": {"Vorname", "E-Mail Adresse", "Tier", "Notiz", "zzz"}, "dest": {"", "email", "tier", "+custom", ""}}
	resp, part = b.Do(t, "POST", href, form, true)
	if resp.StatusCode != 200 || !strings.Contains(part.Find(`[data-testid=import-unmapped]`).Text(), "First name") || part.Find(`[data-testid=import-anyway]`).Length() != 1 {
		t.Fatalf("required field unmapped: got %d %q", resp.StatusCode, part.Text())
	}
	if n := len(webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+dest+"/records", webtest.Secret, nil))["records"].([]any)); n != 0 {
		t.Fatalf("the unconfirmed import wrote %d records", n)
	}
	// Review: what goes where, what is dropped, and a dry run of the first rows.
	form = url.Values{"to": {dest}, "src": {"Vorname", "E-Mail Adresse", "Tier", "Notiz", "zzz"}, "dest": {"first_name", "email", "tier", "+custom", ""},
		"ev:Tier": {"GOLD", "Silber", "gold"}, "eo:Tier": {"gold", "", "gold"}}
	resp, part = b.Do(t, "POST", href+"/review", form, true)
	if resp.StatusCode != 200 || part.Find(`[data-testid=import-review-panel]`).Length() != 1 {
		t.Fatalf("review: %d %q", resp.StatusCode, part.Text())
	}
	for id, want := range map[string]string{"review-rows": "3 rows go into Contacts", "review-imported": "Vorname → First name", "review-added": "Notiz",
		"review-dropped": "zzz", "review-dry-run": "1 of the first 3 rows would have errors"} {
		if got := part.Find(`[data-testid=` + id + `]`).Text(); !strings.Contains(got, want) {
			t.Errorf("review %s: %q, want %q", id, got, want)
		}
	}
	if dry := part.Find(`[data-testid=review-dry-run]`).Text(); !strings.Contains(dry, "First name") || !strings.Contains(dry, "Tier") {
		t.Errorf("the dry run names no field: %q", dry)
	}
	if n := len(webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+dest+"/records", webtest.Secret, nil))["records"].([]any)); n != 0 {
		t.Fatalf("the review wrote %d records", n)
	}
	// Run: Tier's values mapped by hand, Notiz added as a custom field, zzz ignored.
	form = url.Values{"to": {dest}, "src": {"Vorname", "E-Mail Adresse", "Tier", "Notiz", "zzz"}, "dest": {"first_name", "email", "tier", "+custom", ""},
		"ev:Tier": {"GOLD", "Silber", "gold"}, "eo:Tier": {"gold", "silver", "gold"}}
	resp, part = b.Do(t, "POST", href, form, true)
	if resp.StatusCode != 200 || part.Find(`[data-testid=job-progress]`).Length() != 1 {
		t.Fatalf("run: got %d %q", resp.StatusCode, part.Text())
	}
	progress, _ := part.Find(`[data-testid=job-progress]`).Attr("hx-get")
	var redirect string
	for range 200 {
		resp, part = b.Do(t, "GET", progress, nil, true)
		if redirect = resp.Header.Get("HX-Redirect"); redirect != "" {
			break
		}
		if st, _ := part.Find(`[data-testid=job-progress]`).Attr("data-status"); st == "failed" {
			t.Fatalf("map job failed: %s", part.Text())
		}
		time.Sleep(25 * time.Millisecond)
	}
	if redirect != "/space/"+spaceID+"/sheet/"+dest+"?filter=error" {
		t.Fatalf("got redirect %q, want the destination sheet filtered to errors", redirect)
	}
	recs := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+dest+"/records", webtest.Secret, nil))["records"].([]any)
	if len(recs) != 3 {
		t.Fatalf("got %d records, want 3", len(recs))
	}
	var tiers, notes []any
	for _, r := range recs {
		tiers = append(tiers, webtest.CellValue(r.(map[string]any), "tier"))
		notes = append(notes, webtest.CellValue(r.(map[string]any), "Notiz"))
	}
	if tiers[0] != "gold" || tiers[1] != "silver" || tiers[2] != "gold" || notes[0] != "call back" {
		t.Errorf("got tiers %v notes %v, want the mapped options and the custom field", tiers, notes)
	}
	sheet := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+dest, webtest.Secret, nil))
	for _, fl := range sheet["config"].(map[string]any)["fields"].([]any) {
		if fl.(map[string]any)["key"] == "zzz" {
			t.Error("the ignored column was added as a field")
		}
	}
	// Validation ran on write: a missing first name, and the same e-mail twice.
	if c := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+dest+"/counts", webtest.Secret, nil))["counts"].(map[string]any); c["error"] != 3.0 {
		t.Errorf("counts %v, want 3 errors (a missing first name, a duplicate e-mail twice)", c)
	}
	// The import is one change in the importer's undo history: Undo takes all of it back.
	resp, part = b.Do(t, "POST", "/space/"+spaceID+"/sheet/"+dest+"/undo", url.Values{"_csrf": {b.Csrf}}, true)
	var undo struct {
		Message string `json:"message"`
	}
	body := part.Text()
	_ = json.Unmarshal([]byte(body), &undo)
	if resp.StatusCode != 200 || undo.Message != "Undone: import (3 records)" {
		t.Fatalf("undo after the import: %d %s", resp.StatusCode, body)
	}
	if n := len(webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+dest+"/records", webtest.Secret, nil))["records"].([]any)); n != 0 {
		t.Fatalf("%d records left after undoing the import", n)
	}
}

// TestFileStatusInTheUserLanguage shows a file's status in the page's language, keeping the
// raw status for scripts.
func TestFileStatusInTheUserLanguage(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "status"})
	e.MustUpload(t, sp["id"].(string), "a.csv", "name\nAda\n")
	b := webtest.LoggedIn(t, e)
	for lang, want := range map[string]string{"en": "Complete", "de": "Fertig", "jp": "完了"} {
		b.Cookies["lang"] = lang
		_, doc := b.Do(t, "GET", "/space/"+sp["id"].(string), nil, false)
		st := doc.Find(`[data-testid=file-status]`)
		if raw, _ := st.Attr("data-status"); raw != "complete" || strings.TrimSpace(st.Text()) != want {
			t.Errorf("%s: file status %q (data-status %q), want %q", lang, st.Text(), raw, want)
		}
	}
}

// A file uploaded from a sheet's toolbar opens the wizard before it has been read: the page
// waits (its poll answers 204 while the file is read), then reloads into the wizard, or
// says why the file could not be read.
func TestImportWizardWaitsForTheFile(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sheetID := e.MustCreateRecordSheet(t, `[{"key":"email","type":"string"}]`)
	b := webtest.LoggedIn(t, e)
	good := e.Upload(t, spaceID, "people.csv", "email\na@x.io\n")
	bad := e.Upload(t, spaceID, "broken.xlsx", "this is not a workbook")
	page := "/space/" + spaceID + "/import/"
	for _, id := range []string{good, bad} {
		resp, doc := b.Do(t, "GET", page+id+"?to="+sheetID, nil, false)
		poll, _ := doc.Find(`[data-testid=import-reading]`).Attr("hx-get")
		if resp.StatusCode != 200 || !strings.Contains(poll, "wait=1") {
			t.Fatalf("a file not read yet: %d, poll %q; want the waiting page", resp.StatusCode, poll)
		}
		if resp, _ = b.Do(t, "GET", poll, nil, true); resp.StatusCode != http.StatusNoContent || resp.Header.Get("HX-Refresh") != "" {
			t.Fatalf("the poll while reading: %d %q, want 204 and no refresh", resp.StatusCode, resp.Header.Get("HX-Refresh"))
		}
	}
	webtest.StartWorker(t, e)
	for _, id := range []string{good, bad} {
		refreshed := false
		for end := time.Now().Add(10 * time.Second); !refreshed && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			resp, _ := b.Do(t, "GET", page+id+"?wait=1&to="+sheetID, nil, true)
			refreshed = resp.StatusCode == http.StatusNoContent && resp.Header.Get("HX-Refresh") == "true"
		}
		if !refreshed {
			t.Fatalf("the poll never asked for a reload once %s was read", id)
		}
	}
	if _, doc := b.Do(t, "GET", page+good+"?to="+sheetID, nil, false); doc.Find(`[data-testid=import-mapping]`).Length() != 1 {
		t.Error("the read file does not show the wizard")
	}
	if _, doc := b.Do(t, "GET", page+bad+"?to="+sheetID, nil, false); !strings.Contains(doc.Find(`[data-testid=import-read-failed]`).Text(), "broken.xlsx could not be read") {
		t.Errorf("the broken file's page: %q", doc.Find("main").Text())
	}
	// Its columns known but its rows still being written (status analyzed): the wizard's
	// sample, value lists and empty markers need every row, so the page still waits.
	if err := e.DB.ExecForTest(t.Context(), `UPDATE files SET status = 'analyzed' WHERE id = ?`, good); err != nil {
		t.Fatal(err)
	}
	if _, doc := b.Do(t, "GET", page+good+"?to="+sheetID, nil, false); doc.Find(`[data-testid=import-reading]`).Length() != 1 || doc.Find(`[data-testid=import-mapping]`).Length() != 0 {
		t.Error("a file whose rows are still being written shows the wizard")
	}
	if resp, _ := b.Do(t, "GET", page+good+"?wait=1&to="+sheetID, nil, true); resp.StatusCode != http.StatusNoContent || resp.Header.Get("HX-Refresh") != "" {
		t.Errorf("the poll while the rows are written: %d %q, want 204 and no refresh", resp.StatusCode, resp.Header.Get("HX-Refresh"))
	}
}

// A space with no sheet yet: the wizard offers "Import as a new sheet", which makes a
// workbook named after the file with a field per column, typed from the values, and opens
// the wizard on it.
func TestImportAsANewSheet(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "fresh"})["id"].(string)
	f := e.MustUpload(t, spaceID, "members 2026.csv", "Name,Age,Joined,Active,Note\nAda,36,2024-01-05,yes,x\nBo,41,2023-11-30,no,\n")
	b := webtest.LoggedIn(t, e)
	wizard := "/space/" + spaceID + "/import/" + f["id"].(string)
	_, doc := b.Do(t, "GET", wizard, nil, false)
	if doc.Find(`[data-testid=import-new-sheet]`).Length() != 1 {
		t.Fatalf("the wizard of a space without sheets offers no new sheet: %s", doc.Find(`[data-testid=import-no-destination]`).Text())
	}
	resp, _ := b.Do(t, "POST", wizard+"/new-sheet", url.Values{"_csrf": {b.Csrf}}, false)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, wizard+"?to=us_sh_") {
		t.Fatalf("new sheet: %d → %q", resp.StatusCode, loc)
	}
	var sheet map[string]any
	for _, w := range webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks?spaceId="+spaceID, webtest.Secret, nil)) {
		if wm := w.(map[string]any); wm["name"] == "members 2026" {
			sheet = wm["sheets"].([]any)[0].(map[string]any)
		}
	}
	if sheet == nil {
		t.Fatal("no workbook named after the file")
	}
	types := map[string]string{}
	for _, fl := range sheet["config"].(map[string]any)["fields"].([]any) {
		fm := fl.(map[string]any)
		types[fm["label"].(string)] = fm["type"].(string)
	}
	want := map[string]string{"Name": "string", "Age": "number", "Joined": "date", "Active": "boolean", "Note": "string"}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Fatalf("fields %v, want %v", types, want)
	}
	// The wizard now maps the file onto its own sheet.
	if _, doc := b.Do(t, "GET", loc, nil, false); doc.Find(`[data-testid=import-mapping]`).Length() != 1 {
		t.Fatal("the wizard does not open on the new sheet")
	}
}

// The markers a file writes for "no value" are offered as empty and imported so; the sheet
// the file fits best is chosen when the space has several.
func TestImportEmptyMarkersAndBestSheet(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "markers"})["id"].(string)
	e.MustCreateWorkbook(t, map[string]any{"name": "Other", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Orders", "fields": []any{
		map[string]any{"key": "order_no", "type": "string", "label": "Order number"}, map[string]any{"key": "total", "type": "number", "label": "Total"}}}}})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "People", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Members", "fields": []any{
		map[string]any{"key": "name", "type": "string", "label": "Name"}, map[string]any{"key": "age", "type": "number", "label": "Age"},
		map[string]any{"key": "city", "type": "string", "label": "City"}}}}})
	dest := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	f := e.MustUpload(t, spaceID, "members.csv", "Name,Age,City\nAda,NA,Paris\nBo,-,N/A\nCy,41,Rome\n")
	b := webtest.LoggedIn(t, e)
	href := "/space/" + spaceID + "/import/" + f["id"].(string)
	_, doc := b.Do(t, "GET", href, nil, false)
	if v, _ := doc.Find(`[data-testid=import-to] option[selected]`).Attr("value"); v != dest {
		t.Errorf("the wizard preselects %q, want the Members sheet %q", v, dest)
	}
	if v, _ := doc.Find(`[data-testid=import-empty]`).Attr("value"); v != "NA, N/A, -" {
		t.Errorf("treat as empty offers %q, want the file's markers NA, N/A, -", v)
	}
	form := url.Values{"to": {dest}, "src": {"Name", "Age", "City"}, "dest": {"name", "age", "city"}, "empty": {"NA, N/A, -"}}
	_, part := b.Do(t, "POST", href+"/review", form, true)
	if got := part.Find(`[data-testid=review-dry-run]`).Text(); !strings.Contains(got, "The first 3 rows pass every check") {
		t.Errorf("the dry run with the markers empty: %q", got)
	}
	webtest.RunImport(t, b, href, form)
	recs := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+dest+"/records", webtest.Secret, nil))
	if len(recs) != 3 || webtest.CellValue(recs[0], "age") != nil || webtest.CellValue(recs[1], "city") != nil || webtest.CellValue(recs[2], "age") != 41.0 {
		t.Fatalf("the markers were not imported as empty: %v", recs)
	}
	if c := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+dest+"/counts", webtest.Secret, nil))["counts"].(map[string]any); c["error"] != 0.0 {
		t.Errorf("counts %v, want no errors", c)
	}
}

// The value table lists every distinct value of the file, folds those naming an option
// exactly, and maps a value to no value on request.
func TestImportEnumTable(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "enum"})["id"].(string)
	var opts []any
	var csv strings.Builder
	csv.WriteString("name,state\n")
	for i := range 57 {
		code := fmt.Sprintf("S%02d", i)
		opts = append(opts, map[string]any{"value": code, "label": "State " + code})
		fmt.Fprintf(&csv, "r%d,%s\nq%d,%s\n", i, code, i, code)
	}
	csv.WriteString("x1,unknown\nx2,s01\n")
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "People", "fields": []any{
		map[string]any{"key": "name", "type": "string"}, map[string]any{"key": "state", "type": "enum", "config": map[string]any{"options": opts}}}}}})
	dest := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	f := e.MustUpload(t, spaceID, "people.csv", csv.String())
	b := webtest.LoggedIn(t, e)
	href := "/space/" + spaceID + "/import/" + f["id"].(string)
	_, doc := b.Do(t, "GET", href+"?to="+dest, nil, false)
	table := doc.Find(`[data-testid=import-enum]`)
	exact := table.Find(`[data-testid=import-enum-exact]`)
	if n := table.Find(`input[name="ev:state"]`).Length(); n != 59 {
		t.Errorf("the value table lists %d values, want all 59", n)
	}
	if !strings.Contains(exact.Find("summary").Text(), "57 values name an option exactly") {
		t.Errorf("exact matches: %q", exact.Find("summary").Text())
	}
	var looks []string
	table.Find(`tr`).Each(func(_ int, s *goquery.Selection) {
		if s.ParentsFiltered(`[data-testid=import-enum-exact]`).Length() == 0 {
			v, _ := s.Find(`input`).Attr("value")
			looks = append(looks, v)
		}
	})
	if sort.Strings(looks); fmt.Sprint(looks) != "[s01 unknown]" {
		t.Errorf("values to look at: %v, want [s01 unknown]", looks)
	}
	form := url.Values{"to": {dest}, "src": {"name", "state"}, "dest": {"name", "state"}, "ev:state": {"unknown", "s01"}, "eo:state": {":empty:", "S01"}}
	webtest.RunImport(t, b, href, form)
	recs := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+dest+"/records?pageSize=200", webtest.Secret, nil))
	var gotUnknown, gotLower any = "missing", "missing"
	for _, r := range recs {
		switch webtest.CellValue(r, "name") {
		case "x1":
			gotUnknown = webtest.CellValue(r, "state")
		case "x2":
			gotLower = webtest.CellValue(r, "state")
		}
	}
	if gotUnknown != nil || gotLower != "S01" {
		t.Errorf("unknown → %v (want empty), s01 → %v (want S01)", gotUnknown, gotLower)
	}
}

// A required field the engine offers a column for below the sheet's threshold gets that
// column by default: "Don't import" would put every record in error. Other fields keep the
// threshold.
func TestImportRequiredFieldTakesItsBestGuess(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "guess"})["id"].(string)
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "P", "mappingConfidenceThreshold": 1, "fields": []any{
		map[string]any{"key": "first_name", "type": "string", "label": "First name", "constraints": []any{map[string]any{"type": "required"}}},
		map[string]any{"key": "email", "type": "string", "label": "Email"}}}}})
	dest := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	f := e.MustUpload(t, spaceID, "a.csv", "Vorname,E-Mail Adresse\nAda,a@x.io\n")
	b := webtest.LoggedIn(t, e)
	_, doc := b.Do(t, "GET", "/space/"+spaceID+"/import/"+f["id"].(string)+"?to="+dest, nil, false)
	chosen := func(col string) string {
		v, _ := doc.Find(`tr[data-column="` + col + `"] select[name=dest] option[selected]`).Attr("value")
		return v
	}
	if chosen("Vorname") != "first_name" || chosen("E-Mail Adresse") != "" {
		t.Errorf("below the threshold: Vorname → %q (want first_name, required), E-Mail Adresse → %q (want not imported)", chosen("Vorname"), chosen("E-Mail Adresse"))
	}
}

// An imported record keeps its row in the file: the grid shows "people.csv, row 4" beside
// it whatever the view's order, so a user can find it in the file they were sent; a typed
// record has none.
func TestGridShowsTheFileRow(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "rows"})["id"].(string)
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "People", "fields": []any{
		map[string]any{"key": "name", "type": "string"}, map[string]any{"key": "email", "type": "string"}, map[string]any{"key": "city", "type": "string"}}}}})
	dest := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	f := e.MustUpload(t, spaceID, "people.csv", "Customer export\n\nname,email,city\nAnn,a@x.io,Oslo\n\nBob,b@x.io,Rome\nCid,c@x.io,Nice\n")
	b := webtest.LoggedIn(t, e)
	href := "/space/" + spaceID + "/import/" + f["id"].(string)
	webtest.RunImport(t, b, href, url.Values{"to": {dest}, "src": {"name", "email", "city"}, "dest": {"name", "email", "city"}})
	e.MustCall(t, "POST", "/v1/sheets/"+dest+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Typed"}}})
	_, doc := b.Do(t, "GET", "/space/"+spaceID+"/sheet/"+dest+"?sort=name&dir=desc", nil, false)
	got := map[string]string{}
	doc.Find(`tr[data-testid=grid-row]`).Each(func(_ int, s *goquery.Selection) {
		src, _ := s.Attr("data-source")
		got[strings.TrimSpace(s.Find(`td[data-key=name]`).Text())] = src
	})
	want := map[string]string{"Typed": "", "Cid": "people.csv, row 7", "Bob": "people.csv, row 6", "": "people.csv, row 5", "Ann": "people.csv, row 4"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("file rows by name: %v, want %v", got, want)
	}
	title, _ := doc.Find(`tr[data-source="people.csv, row 4"] td`).Eq(1).Attr("title")
	if !strings.Contains(title, "people.csv, row 4") {
		t.Errorf("the row number's tooltip %q does not name the file row", title)
	}
}
