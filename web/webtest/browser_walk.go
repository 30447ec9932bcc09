package webtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func Walk(t *testing.T, lang, langName, spaceName string, theme map[string]any) {
	e := NewAPI(t)
	ctx := Browser(t)
	base := Serve(t, e)
	StartWorker(t, e)
	csv := filepath.Join(t.TempDir(), "lieferanten.csv")
	// Awkward on purpose: a title line before the header, semicolons, a BOM, an umlaut, a quoted
	// line break, a missing required value, a duplicate e-mail and a number with a comma.
	data := "\ufeffExport 2026-11-01\n\nVorname;Nachname;E-Mail;Umsatz\nZoë;Müller;zoe@example.com;12000\n;Dupont;jean@example.fr;8500\nAda;King;zoe@example.com;\"1,5\"\n\"Li\nMei\";Wong;mei@example.com;990\n"
	if err := os.WriteFile(csv, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	shotName := func(n string) string { return "walk-" + lang + "-" + n }
	var spaceURL string
	var heading, outcome, exported, exportedErrors, border, font, errorsLeft string
	var firstNameClean bool
	err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(`[data-testid=login-form]`),
		chromedp.Evaluate(`document.cookie = "lang=`+lang+`; path=/"`, nil), // the language chosen in the header menu
		chromedp.Reload(),
		chromedp.WaitVisible(`[data-testid=login-form]`),
		Shot(shotName("01-login"), &buf),
		chromedp.SendKeys(`[data-testid=login-email]`, Email),
		chromedp.SendKeys(`[data-testid=login-password]`, Password),
		chromedp.Click(`[data-testid=login-submit]`),
		chromedp.WaitVisible(`[data-testid=create-space-form]`),
		HtmxReady(),
		chromedp.SendKeys(`[data-testid=space-name]`, spaceName),
		chromedp.Click(`[data-testid=create-space]`),
		chromedp.WaitVisible(`//a[@data-testid="space-link" and contains(., "`+spaceName+`")]`),
		chromedp.AttributeValue(`//a[@data-testid="space-link" and contains(., "`+spaceName+`")]`, "href", &spaceURL, nil),
		Shot(shotName("02-spaces"), &buf),
	)
	if err != nil {
		t.Fatalf("log in and create a space: %v", err)
	}
	// What an agent would do on space:configure: a workbook with a sheet and an action, and
	// the space's theme.
	spaceID := strings.TrimPrefix(spaceURL, "/space/")
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "Lieferanten", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Kontakte", "slug": "contacts", "fields": []any{
		map[string]any{"key": "first_name", "type": "string", "label": "First name", "constraints": []any{map[string]any{"type": "required"}}},
		map[string]any{"key": "last_name", "type": "string", "label": "Last name"},
		map[string]any{"key": "email", "type": "string", "label": "Email", "constraints": []any{map[string]any{"type": "unique"}}},
		map[string]any{"key": "revenue", "type": "number", "label": "Revenue"}}}}})
	e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, Secret, map[string]any{"targetId": wb["id"], "label": "Submit", "operation": "submit", "mode": "foreground", "primary": true,
		"guardrail": map[string]any{"content": "Submitted records go to the ERP."},
		"inputForm": map[string]any{"type": "simple", "fields": []any{map[string]any{"key": "batch", "label": "Batch", "type": "string", "constraints": []any{map[string]any{"type": "required"}}}}}})
	if theme != nil {
		e.MustCall(t, "PATCH", "/v1/spaces/"+spaceID, Secret, map[string]any{"metadata": map[string]any{"theme": theme}})
	}
	go CompleteJob(t, e, spaceID, "submit", "Sent to the ERP", 60*time.Second)

	err = chromedp.Run(ctx,
		chromedp.Navigate(base+spaceURL),
		chromedp.WaitVisible(`[data-testid=upload-form]`),
		HtmxReady(),
		chromedp.SetUploadFiles(`[data-testid=upload-file]`, []string{csv}),
		chromedp.WaitVisible(`[data-testid=file-import]`),
		Shot(shotName("03-uploaded"), &buf),
		Step(t, "uploaded"),
		chromedp.Click(`[data-testid=file-import]`),
		chromedp.WaitVisible(`[data-testid=import-mapping]`),
		chromedp.Text(`h1`, &heading),
		Shot(shotName("04-mapping"), &buf),
		Step(t, "mapping"),
		HtmxReady(),
		chromedp.Click(`[data-testid=import-review]`),
		chromedp.WaitVisible(`[data-testid=import-run]`),
		Shot(shotName("04b-review"), &buf),
		chromedp.Click(`[data-testid=import-run]`),
		chromedp.WaitVisible(`[data-testid=grid]`),
		Shot(shotName("05-errors"), &buf),
		Step(t, "errors"),
		HtmxReady(),
		EditCell(t, `//tr[contains(., "Dupont")]/td[@data-key="first_name"]`, "Jean", `//tr[contains(., "Dupont")]/td[@data-key="first_name" and contains(., "Jean")]`),
		chromedp.WaitVisible(`//tr[contains(., "Dupont")]//*[@data-testid="row-flag" and @data-valid="true"]`), // the row's red edge goes
		chromedp.Text(`[data-testid=tab-count-error]`, &errorsLeft),
		chromedp.Evaluate(`document.querySelector("[data-column-errors=first_name]").hidden`, &firstNameClean),
		Shot(shotName("06-fixed"), &buf),
		Step(t, "fixed"),
		chromedp.Evaluate(`fetch(document.querySelector("[data-testid=export-csv]").href).then(r => r.text())`, &exportedErrors, AwaitPromise),
		chromedp.Evaluate(`fetch(location.pathname + "/export?format=csv").then(r => r.text())`, &exported, AwaitPromise),
		chromedp.Evaluate(`getComputedStyle(document.querySelector(".card")).borderTopColor`, &border),
		chromedp.Evaluate(`getComputedStyle(document.querySelector("[data-grid] thead th")).fontFamily`, &font),
		chromedp.Navigate(base+spaceURL),
		chromedp.WaitVisible(`[data-testid=action-button][data-operation=submit]`),
		HtmxReady(),
		chromedp.Click(`[data-testid=action-button][data-operation=submit]`),
		chromedp.WaitVisible(`[data-testid=action-guardrail]`),
		chromedp.SendKeys(`dialog[open] input[name="in.batch"]`, "Q3"),
		Shot(shotName("07-action-dialog"), &buf),
		Step(t, "dialog"),
		chromedp.Click(`dialog[open] [data-testid=action-confirm]`),
		chromedp.WaitVisible(`[data-testid=job-outcome]`),
		chromedp.Text(`[data-testid=job-outcome]`, &outcome),
		Shot(shotName("08-action-outcome"), &buf),
	)
	if err != nil {
		t.Fatalf("walk: %v", err)
	}
	if lang == "de" && !strings.Contains(heading, "lieferanten.csv") {
		t.Errorf("wizard heading %q", heading)
	}
	if !strings.Contains(exported, "Jean,Dupont,jean@example.fr") || !strings.Contains(exported, "\"Li\nMei\"") {
		t.Errorf("export %q lacks the fixed record or the line break", exported)
	}
	if strings.Contains(exportedErrors, "Dupont") || !strings.Contains(exportedErrors, "zoe@example.com") {
		t.Errorf("the export of the Errors tab %q should hold the duplicates only", exportedErrors)
	}
	if !firstNameClean {
		t.Error("after the fix the First name column still shows an error count")
	}
	if errorsLeft != "2" {
		t.Errorf("after the fix the Errors tab counts %q, want 2 (the two duplicate e-mails)", errorsLeft)
	}
	if outcome != "Sent to the ERP" {
		t.Errorf("outcome %q", outcome)
	}
	if theme != nil {
		if border != "rgb(15, 118, 110)" || !strings.Contains(font, "Georgia") {
			t.Errorf("theme not applied: card border %q, header font %q", border, font)
		}
	} else if border == "rgb(15, 118, 110)" {
		t.Error("the theme leaked into an unthemed space")
	}
	if lang == "de" {
		var label string
		if err := chromedp.Run(ctx, chromedp.Navigate(base+spaceURL), chromedp.WaitVisible(`[data-testid=upload-form]`), chromedp.Text(`[data-testid=upload-form] label`, &label)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(label, "Datei auswählen") {
			t.Errorf("German page shows %q", label)
		}
	}
}

// CompleteJob plays an agent: it acknowledges the first ready job with the operation and
// completes it with message.
func CompleteJob(t *testing.T, e *Env, spaceID, operation, message string, within time.Duration) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		status, out := e.Call(t, "GET", "/v1/jobs?spaceId="+spaceID, Secret, nil)
		if status == 200 {
			for _, j := range ListOf(out) {
				jm := j.(map[string]any)
				if jm["operation"] == operation && jm["status"] == "ready" {
					e.Call(t, "POST", "/v1/jobs/"+jm["id"].(string)+"/ack", Secret, map[string]any{"progress": 50})
					time.Sleep(300 * time.Millisecond)
					e.Call(t, "POST", "/v1/jobs/"+jm["id"].(string)+"/complete", Secret, map[string]any{"outcome": map[string]any{"message": message}})
					return
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}
