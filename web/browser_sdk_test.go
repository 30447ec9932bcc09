package web_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// bundleHost builds a customer's page from web/testdata/embedhost (entry imports a published
// Flatfile SDK) with esbuild from node_modules and serves it on another origin (localhost,
// while Sluice is on 127.0.0.1).
func bundleHost(t *testing.T, entry string) string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "host.js")
	cmd := exec.Command("npx", "esbuild", "testdata/embedhost/"+entry, "--bundle", "--format=iife", "--jsx=automatic",
		`--define:process.env.NODE_ENV="production"`, "--log-level=error", "--outfile="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild (npm ci first): %v\n%s", err, b)
	}
	return serveHost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/host.js" {
			w.Header().Set("Content-Type", "text/javascript")
			b, _ := os.ReadFile(out)
			_, _ = w.Write(b)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Customer app</title></head><body><h1>Customer app</h1><div id="root"></div><script src="/host.js"></script></body></html>`)
	}))
}

// The published @flatfile/javascript 1.5.7, unchanged, in a customer's page on another
// origin: startFlatfile creates the space through the publishable key and frames it; rows
// written in the space reach the page's onRecordHook, whose verdict lands on the records;
// the Submit action reaches onSubmit with the rows, the job completes, and acknowledging its
// outcome fires closeSpace.onClose. Any CORS or framing error in the page fails the test.
func TestBrowserFlatfileJavascriptSDK(t *testing.T) {
	driveSDK(t, "host.js", `window.startImporter({ publishableKey: PK, apiUrl: API }); true`, "Contacts import", "embed-02-sdk")
}

// The same with the published @flatfile/react 7.13 (FlatfileProvider, Space, Workbook, Sheet,
// useFlatfile's openPortal and onClose), built with esbuild's JSX.
func TestBrowserFlatfileReactSDK(t *testing.T) {
	// @flatfile/react posts portal:initialize to its frame before the frame has left
	// about:blank (the SDK's own race; it sets the frame's address as well), which Chromium
	// reports.
	expectedBrowserErrors = []string{"Failed to execute 'postMessage' on 'DOMWindow': The target origin provided"}
	t.Cleanup(func() { expectedBrowserErrors = nil })
	driveSDK(t, "react.jsx", `window.startReact({ publishableKey: PK, apiUrl: API }); true`, "Contacts import (React)", "embed-03-react",
		`window.openImporter(); true`)
}

// driveSDK serves entry as a customer's page, runs start (PK and API replaced) and then each
// of then, and plays the import through to onClose.
func driveSDK(t *testing.T, entry, start, spaceName, screenshot string, then ...string) {
	e := newAPI(t)
	e.withStreams(t)
	ctx := browser(t)
	base := serve(t, e)
	t.Cleanup(e.events.Stop)
	host := bundleHost(t, entry)
	e.allowOrigins(t, host)
	var buf []byte
	start = strings.NewReplacer("PK", `"`+testPublic+`"`, "API", `"`+base+`"`).Replace(start)
	actions := []chromedp.Action{chromedp.Navigate(host), chromedp.Poll(`typeof window.results === "object"`, nil), chromedp.Sleep(300 * time.Millisecond),
		chromedp.Evaluate(start, nil)}
	for _, js := range then {
		actions = append(actions, chromedp.Poll(`typeof window.openImporter === "function"`, nil), chromedp.Evaluate(js, nil))
	}
	actions = append(actions, chromedp.Poll(`!!document.querySelector("iframe")`, nil))
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatal(err)
	}
	// The space the SDK made, with its workbook and sheet.
	var spaceID, wbID, sheetID, submitOp string
	deadline := time.Now().Add(15 * time.Second)
	for spaceID == "" && time.Now().Before(deadline) {
		for _, s := range listOf(e.mustCall(t, "GET", "/v1/spaces", testSecret, nil)) {
			if sm := s.(map[string]any); sm["name"] == spaceName {
				spaceID = sm["id"].(string)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if spaceID == "" {
		t.Fatal("the SDK made no space")
	}
	for _, w := range listOf(e.mustCall(t, "GET", "/v1/workbooks?spaceId="+spaceID, testSecret, nil)) {
		wm := w.(map[string]any)
		wbID = wm["id"].(string)
		sheetID = wm["sheets"].([]any)[0].(map[string]any)["id"].(string)
		for _, a := range wm["actions"].([]any) {
			if am := a.(map[string]any); am["primary"] == true {
				submitOp = am["operation"].(string) // simpleSubmitAction (javascript), workbookSubmitAction (react)
			}
		}
	}
	if submitOp == "" {
		t.Fatal("the SDK's workbook has no primary submit action")
	}
	time.Sleep(1500 * time.Millisecond) // the frame loads and opens its event stream
	e.mustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", testSecret, []any{
		map[string]any{"name": map[string]any{"value": "Ann"}, "email": map[string]any{"value": "ann@example.com"}},
		map[string]any{"name": map[string]any{"value": "Bob"}, "email": map[string]any{"value": "not-an-email"}}})
	if err := chromedp.Run(ctx, chromedp.Poll(`window.results.hooked >= 2`, nil, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Sleep(time.Second), shot(screenshot, &buf)); err != nil {
		t.Fatalf("onRecordHook never ran: %v", err)
	}
	flagged := false
	for end := time.Now().Add(10 * time.Second); !flagged && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		recs := dataOf(e.mustCall(t, "GET", "/v1/sheets/"+sheetID+"/records?filter=error&includeMessages=true", testSecret, nil))["records"].([]any)
		flagged = len(recs) == 1 && strings.Contains(fmt.Sprint(recs[0]), "not-an-email")
	}
	if !flagged {
		t.Errorf("the host's onRecordHook verdict did not land on the record: %v", e.mustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", testSecret, nil))
	}

	// Submit, as the frame's primary action does: onSubmit gets the rows, the job completes.
	job := dataOf(e.mustCall(t, "POST", "/v1/jobs", testSecret, map[string]any{"type": "workbook", "operation": submitOp, "source": wbID, "mode": "foreground"}))
	jobID := job["id"].(string)
	e.mustCall(t, "POST", "/v1/jobs/"+jobID+"/execute", testSecret, nil)
	var submitted string
	if err := chromedp.Run(ctx,
		chromedp.Poll(`window.results.submitted !== null`, nil, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Evaluate(`window.results.submitted.join(",")`, &submitted)); err != nil {
		t.Fatalf("onSubmit never ran: %v", err)
	}
	if submitted != "ann@example.com,not-an-email" {
		t.Errorf("onSubmit got %q", submitted)
	}
	var status string
	for end := time.Now().Add(10 * time.Second); status != "complete" && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		status, _ = dataOf(e.mustCall(t, "GET", "/v1/jobs/"+jobID, testSecret, nil))["status"].(string)
	}
	if status != "complete" {
		t.Fatalf("the submit job: %q, want complete", status)
	}
	e.mustCall(t, "POST", "/v1/jobs/"+jobID+"/outcome/ack", testSecret, nil)
	if err := chromedp.Run(ctx, chromedp.Poll(`window.results.closed === true`, nil, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("closeSpace.onClose never fired: %v", err)
	}
	var pageErrors string
	_ = chromedp.Run(ctx, chromedp.Evaluate(`window.results.errors.join(" | ")`, &pageErrors))
	if pageErrors != "" {
		t.Errorf("errors in the host page: %s", pageErrors)
	}
}
