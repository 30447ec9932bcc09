package web_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestBrowserImport walks the import wizard in chromium: drop a CSV with awkward data on the
// space, open the wizard from the file list, accept the suggested mapping, watch the job and
// land on the destination sheet filtered to its errors.
func TestBrowserImport(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	webtest.StartWorker(t, e)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Supplier onboarding"})
	e.MustCreateWorkbook(t, map[string]any{"name": "Suppliers", "spaceId": sp["id"], "sheets": []any{map[string]any{"name": "Contacts", "fields": []any{
		map[string]any{"key": "first_name", "type": "string", "label": "First name", "constraints": []any{map[string]any{"type": "required"}}},
		map[string]any{"key": "last_name", "type": "string", "label": "Last name"},
		map[string]any{"key": "email", "type": "string", "label": "Email", "constraints": []any{map[string]any{"type": "unique"}}},
		map[string]any{"key": "country", "type": "enum", "label": "Country", "config": map[string]any{"options": []any{
			map[string]any{"value": "DE", "label": "Germany"}, map[string]any{"value": "FR", "label": "France"}, map[string]any{"value": "GB", "label": "United Kingdom"}}}},
		map[string]any{"key": "revenue", "type": "number", "label": "Annual revenue"},
	}}}})
	csv := filepath.Join(t.TempDir(), "suppliers.csv")
	data := "Vorname;Nachname;E-Mail-Adresse;Land;Umsatz\n" +
		"Zoë;Müller;zoe@example.com;Deutschland;12000\n" +
		";Dupont;jean@example.fr;Frankreich;8 500\n" +
		"Ada;King;zoe@example.com;UK;n/a\n" +
		"\"Li\nMei\";Wong;mei@example.com;Germany;990\n"
	if err := os.WriteFile(csv, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	var mapping, grid, tab string
	firstNameErrors := -1
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+sp["id"].(string)),
		chromedp.WaitVisible(`[data-testid=upload-form]`),
		webtest.HtmxReady(),
		chromedp.SetUploadFiles(`[data-testid=upload-file]`, []string{csv}),
		webtest.Step(t, "uploaded"),
		chromedp.WaitVisible(`[data-testid=file-import]`),
		webtest.Shot("05-file-ready", &buf),
		chromedp.Click(`[data-testid=file-import]`),
		chromedp.WaitVisible(`[data-testid=import-mapping]`),
		webtest.HtmxReady(),
		webtest.Step(t, "wizard"),
		chromedp.Text(`[data-testid=import-mapping]`, &mapping),
		webtest.Shot("06-import-mapping", &buf),
		webtest.HtmxIdle(), chromedp.Click(`[data-testid=import-review]`),
		chromedp.WaitVisible(`[data-testid=import-run]`), webtest.HtmxIdle(),
		chromedp.Click(`[data-testid=import-run]`),
		webtest.Step(t, "import started"),
		chromedp.WaitVisible(`[data-testid=grid]`),
		webtest.Step(t, "landed on the sheet"),
		chromedp.Text(`[data-testid=grid]`, &grid),
		chromedp.Text(`[data-testid=tab-error]`, &tab),
		webtest.Shot("07-imported-errors", &buf),
		// Fix Dupont's missing first name with the keyboard: focus, Enter, type, Enter.
		webtest.HtmxReady(),
		webtest.EditCell(t, `//tr[contains(., "Dupont")]/td[@data-key="first_name"]`, "Jean", `//tr[contains(., "Dupont")]/td[@data-key="first_name" and not(@data-level="error") and contains(., "Jean")]`),
		webtest.Step(t, "fixed in the grid"),
		chromedp.Reload(),
		chromedp.WaitVisible(`[data-testid=grid]`),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid=grid-column][data-key=first_name] [data-testid=column-errors]:not([hidden])').length`, &firstNameErrors),
		webtest.Shot("07c-fixed", &buf),
	)
	if err != nil {
		var html string
		_ = chromedp.Run(webtest.BrowserDiag(ctx), chromedp.OuterHTML("body", &html))
		t.Fatalf("browser run: %v\nfiles: %v\npage: %.3000s", err, webtest.ListOf(e.MustCall(t, "GET", "/v1/files", webtest.Secret, nil)), html)
	}
	for _, want := range []string{"Vorname", "E-Mail-Adresse", "%"} {
		if !strings.Contains(mapping, want) {
			t.Errorf("mapping table %q lacks %q", mapping, want)
		}
	}
	if !strings.Contains(grid, "Dupont") || strings.Contains(grid, "Wong") {
		t.Errorf("grid %q: want the records with errors only (Dupont has no first name), not Wong", grid)
	}
	if firstNameErrors != 0 {
		t.Errorf("after fixing Dupont: the First name column still shows an error count")
	}
	if strings.Join(strings.Fields(tab), " ") != "Errors 3" {
		t.Errorf("error tab %q, want 3 (a missing first name, a duplicate e-mail twice, n/a revenue on one of them)", tab)
	}
}

// The wizard in a browser: an ambiguous date column asks how to read it, Import waits for
// the choice, and day/month/year lands on the sheet as ISO dates with no error.
func TestBrowserWizardDateFormat(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "formats"})["id"].(string)
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "People", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "People", "fields": []any{
		map[string]any{"key": "name", "label": "Name", "type": "string"}, map[string]any{"key": "start", "label": "Start", "type": "date"}}}}})
	dest := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	body, _ := os.ReadFile("testdata/formats/ambiguous-dates.csv")
	f := e.MustUpload(t, spaceID, "ambiguous-dates.csv", string(body))
	var png []byte
	var line, shown string
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/import/"+f["id"].(string)+"?to="+dest),
		chromedp.WaitVisible(`[data-testid=import-format]`),
		webtest.HtmxReady(),
		chromedp.Text(`[data-testid=import-format-text]`, &line),
		webtest.Shot("import-date-format", &png),
		chromedp.SetValue(`select[name="fmt:Start"]`, "DMY", chromedp.ByQuery),
		webtest.HtmxIdle(), chromedp.Click(`[data-testid=import-review]`),
		chromedp.WaitVisible(`[data-testid=import-run]`), webtest.HtmxIdle(),
		chromedp.Click(`[data-testid=import-run]`),
		chromedp.WaitVisible(`[data-testid=grid]`),
		chromedp.WaitVisible(`td[data-key=start] span[title="2020-08-05"]`),
		chromedp.Text(`td[data-key=start] span[title="2020-08-05"]`, &shown),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	if shown != "Aug 5, 2020" {
		t.Fatalf("the grid shows 2020-08-05 as %q", shown)
	}
	if !strings.Contains(line, "Every value reads both as day/month and month/day") {
		t.Fatalf("the wizard says %q", line)
	}
	if v := webtest.CellValue(e.FindRecord(t, dest, "name", "P0"), "start"); v != "2020-08-05" {
		t.Fatalf("05/08/2020 imported as %v", v)
	}
}

// A map job that runs for seconds: the wizard's progress keeps polling to the end and lands
// on the sheet (its first swap once removed its own target, and the page froze at 25%).
func TestBrowserWizardLongImport(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	webtest.StartWorker(t, e)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Big import"})
	e.MustCreateWorkbook(t, map[string]any{"name": "People", "spaceId": sp["id"], "sheets": []any{map[string]any{"name": "People", "fields": []any{
		map[string]any{"key": "name", "type": "string", "label": "Name"}, map[string]any{"key": "email", "type": "string", "label": "Email"},
		map[string]any{"key": "age", "type": "number", "label": "Age"}}}}})
	var b strings.Builder
	b.WriteString("Name,Email,Age\n")
	const rows = 200_000
	for i := range rows {
		fmt.Fprintf(&b, "Person %d,p%d@example.com,%d\n", i, i, i%90)
	}
	csv := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var polls int
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+sp["id"].(string)),
		chromedp.WaitVisible(`[data-testid=upload-form]`),
		webtest.HtmxReady(),
		chromedp.SetUploadFiles(`[data-testid=upload-file]`, []string{csv}),
		chromedp.WaitVisible(`[data-testid=file-import]`),
		webtest.Step(t, "uploaded and read"),
		chromedp.Click(`[data-testid=file-import]`),
		chromedp.WaitVisible(`[data-testid=import-mapping]`),
		webtest.HtmxReady(),
		webtest.Step(t, "wizard"),
		chromedp.Evaluate(`sessionStorage.setItem("polls", "0"); document.body.addEventListener("htmx:afterRequest", (e) => { if (e.detail.pathInfo.requestPath.includes("/progress")) sessionStorage.setItem("polls", String(+sessionStorage.getItem("polls") + 1)); }); true`, nil),
		webtest.HtmxIdle(), chromedp.Click(`[data-testid=import-review]`),
		chromedp.WaitVisible(`[data-testid=import-run]`), webtest.HtmxIdle(),
		chromedp.Click(`[data-testid=import-run]`),
		chromedp.WaitVisible(`[data-testid=grid]`),
		webtest.Step(t, "landed on the sheet"),
		chromedp.Evaluate(`+sessionStorage.getItem("polls")`, &polls),
	)
	if err != nil {
		var html string
		_ = chromedp.Run(webtest.BrowserDiag(ctx), chromedp.OuterHTML("body", &html))
		t.Fatalf("browser run: %v\npage: %.2000s", err, html)
	}
	t.Logf("the wizard polled the map job's progress %d times", polls)
	for _, w := range webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks?spaceId="+sp["id"].(string), webtest.Secret, nil)) {
		if wm := w.(map[string]any); wm["name"] == "People" {
			sheet := wm["sheets"].([]any)[0].(map[string]any)["id"].(string)
			counts := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheet+"/counts", webtest.Secret, nil))["counts"].(map[string]any)
			if counts["total"] != float64(rows) {
				t.Fatalf("the sheet holds %v records, want %d", counts["total"], rows)
			}
		}
	}
}

// A progress poll that fails (the connection drops, then the server answers 502) does not
// freeze the wizard: it asks again and still lands on the sheet once the import is done.
func TestBrowserWizardProgressSurvivesFailedPolls(t *testing.T) {
	t.Cleanup(func() { webtest.ExpectedBrowserErrors = nil }) // after the browser's own check
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "flaky network"})["id"].(string)
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "People", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "People", "fields": []any{
		map[string]any{"key": "name", "label": "Name", "type": "string"}}}}})
	dest := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	f := e.MustUpload(t, spaceID, "people.csv", "Name\nAda\nGrace\n")

	// The browser's first two requests for the job's progress fail; the rest go through.
	var mu sync.Mutex
	var seen int
	chromedp.ListenTarget(ctx, func(ev any) {
		p, ok := ev.(*fetch.EventRequestPaused)
		if !ok {
			return
		}
		mu.Lock()
		seen++
		n := seen
		mu.Unlock()
		go func() {
			c := cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Target)
			switch n {
			case 1:
				_ = fetch.FailRequest(p.RequestID, network.ErrorReasonConnectionReset).Do(c)
			case 2:
				_ = fetch.FulfillRequest(p.RequestID, 502).WithBody(base64.StdEncoding.EncodeToString([]byte("Bad gateway"))).Do(c)
			default:
				_ = fetch.ContinueRequest(p.RequestID).Do(c)
			}
		}()
	})
	// htmx reports each failed request on the console: expected here, and only here.
	webtest.ExpectedBrowserErrors = []string{`"htmx:afterRequest"`, `"htmx:sendError"`, "Response Status Error Code 502 from /space/" + spaceID + "/jobs/"}
	run, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	err := chromedp.Run(run,
		webtest.LogIn(base),
		fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: "*/progress*"}}),
		chromedp.Navigate(base+"/space/"+spaceID+"/import/"+f["id"].(string)+"?to="+dest),
		chromedp.WaitVisible(`[data-testid=import-mapping]`), webtest.HtmxReady(),
		webtest.HtmxIdle(), chromedp.Click(`[data-testid=import-review]`),
		chromedp.WaitVisible(`[data-testid=import-run]`), webtest.HtmxIdle(),
		chromedp.Click(`[data-testid=import-run]`),
		chromedp.WaitVisible(`[data-testid=grid]`),
	)
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		t.Fatalf("after %d progress requests, the wizard did not land on the sheet: %v", seen, err)
	}
	if seen < 3 {
		t.Fatalf("the wizard asked for the progress %d times; the test means two failures before it goes through", seen)
	}
	if n := len(webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+dest+"/records", webtest.Secret, nil))); n != 2 {
		t.Fatalf("the sheet holds %d records, want 2", n)
	}
}
