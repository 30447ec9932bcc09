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

// bundleHost builds web/testdata/embedhost/host.js (which imports the published
// @flatfile/javascript) with esbuild from node_modules and serves it on another origin
// (localhost, while Sluice is on 127.0.0.1).
func bundleHost(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "host.js")
	cmd := exec.Command("npx", "esbuild", "testdata/embedhost/host.js", "--bundle", "--format=iife", "--log-level=error", "--outfile="+out)
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
		fmt.Fprint(w, `<!doctype html><html><head><title>Customer app</title></head><body><h1>Customer app</h1><script src="/host.js"></script></body></html>`)
	}))
}

// The published @flatfile/javascript 1.5.7, unchanged, in a customer's page on another
// origin: startFlatfile creates the space through the publishable key and frames it; rows
// written in the space reach the page's onRecordHook, whose verdict lands on the records;
// the Submit action reaches onSubmit with the rows, the job completes, and acknowledging its
// outcome fires closeSpace.onClose. Any CORS or framing error in the page fails the test.
func TestBrowserFlatfileJavascriptSDK(t *testing.T) {
	e := newAPI(t)
	e.withStreams(t)
	ctx := browser(t)
	base := serve(t, e)
	t.Cleanup(e.events.Stop)
	host := bundleHost(t)
	e.allowOrigins(t, host)
	var buf []byte
	err := chromedp.Run(ctx,
		chromedp.Navigate(host),
		chromedp.Poll(`typeof window.startImporter === "function"`, nil),
		chromedp.Evaluate(`window.startImporter({ publishableKey: "`+testPublic+`", apiUrl: "`+base+`" }); true`, nil),
		chromedp.Poll(`!!document.querySelector("iframe#flatfile_iframe")`, nil),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The space the SDK made, with its workbook and sheet.
	var spaceID, wbID, sheetID string
	deadline := time.Now().Add(15 * time.Second)
	for spaceID == "" && time.Now().Before(deadline) {
		for _, s := range listOf(e.mustCall(t, "GET", "/v1/spaces", testSecret, nil)) {
			if sm := s.(map[string]any); sm["name"] == "Contacts import" {
				spaceID = sm["id"].(string)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if spaceID == "" {
		t.Fatal("startFlatfile made no space")
	}
	for _, w := range listOf(e.mustCall(t, "GET", "/v1/workbooks?spaceId="+spaceID, testSecret, nil)) {
		wm := w.(map[string]any)
		wbID = wm["id"].(string)
		sheetID = wm["sheets"].([]any)[0].(map[string]any)["id"].(string)
	}
	time.Sleep(1500 * time.Millisecond) // the frame loads and opens its event stream
	e.mustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", testSecret, []any{
		map[string]any{"name": map[string]any{"value": "Ann"}, "email": map[string]any{"value": "ann@example.com"}},
		map[string]any{"name": map[string]any{"value": "Bob"}, "email": map[string]any{"value": "not-an-email"}}})
	if err := chromedp.Run(ctx, chromedp.Poll(`window.results.hooked >= 2`, nil, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Sleep(time.Second), shot("embed-02-sdk", &buf)); err != nil {
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
	job := dataOf(e.mustCall(t, "POST", "/v1/jobs", testSecret, map[string]any{"type": "workbook", "operation": "simpleSubmitAction", "source": wbID, "mode": "foreground"}))
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
