package webtest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// BundleHost builds a customer's page from web/testdata/embedhost (entry imports a published
// Flatfile SDK) with esbuild from node_modules and serves it on another origin (localhost,
// while Sluice is on 127.0.0.1).
func BundleHost(t *testing.T, entry string) string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "host.js")
	cmd := exec.Command("npx", "esbuild", "testdata/embedhost/"+entry, "--bundle", "--format=iife", "--jsx=automatic",
		`--define:process.env.NODE_ENV="production"`, "--log-level=error", "--outfile="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild (npm ci first): %v\n%s", err, b)
	}
	return ServeHost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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

// RawKey finds what a page must never show: a raw i18n key (jobs.submit.button.defaultLabel)
// or an internal job name (workbook:sluiceSubmit).
var RawKey = regexp.MustCompile(`\b[a-z]+\.[a-z]+\.[a-zA-Z]+\b|\b(?:workbook|sheet|space|file|job):[a-zA-Z][\w-]+`)

// SdkRun is one customer's page driving the embedded importer.
type SdkRun struct {
	Host                  func(t *testing.T, base string) string // serves the page; returns its origin
	Start                 string                                 // opens the importer (PK and API replaced)
	Then                  []string                               // run after start, in order
	SpaceName, Screenshot string
	Hook                  bool   // the page's record hook flags e-mails without an @
	Outcome               string // what the submit job's outcome says, when the page chose it
	Closes                string // what must be gone from the page once the importer closed
}

// Bundled serves a customer's page built from web/testdata/embedhost/entry.
func Bundled(entry string) func(t *testing.T, base string) string {
	return func(t *testing.T, _ string) string { return BundleHost(t, entry) }
}

// DriveSDK serves the run's page, opens the importer and plays the import through to onClose.
func DriveSDK(t *testing.T, run SdkRun) {
	e := NewAPI(t)
	e.WithStreams(t)
	ctx := Browser(t)
	base := Serve(t, e)
	t.Cleanup(e.Events.Stop)
	host := run.Host(t, base)
	e.AllowOrigins(t, host)
	spaceName, screenshot := run.SpaceName, run.Screenshot
	var buf []byte
	start := strings.NewReplacer("PK", `"`+Public+`"`, "API", `"`+base+`"`).Replace(run.Start)
	actions := []chromedp.Action{chromedp.Navigate(host), chromedp.Poll(`typeof window.results === "object"`, nil), chromedp.Sleep(300 * time.Millisecond),
		chromedp.Evaluate(start, nil)}
	for _, js := range run.Then {
		actions = append(actions, chromedp.Poll(`typeof window.openImporter === "function"`, nil), chromedp.Evaluate(js, nil))
	}
	actions = append(actions, chromedp.Poll(`!!document.querySelector("iframe")`, nil))
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatal(err)
	}
	// The space the SDK made, with its workbook and sheet.
	var spaceID, sheetID, submitOp string
	deadline := time.Now().Add(15 * time.Second)
	for spaceID == "" && time.Now().Before(deadline) {
		for _, s := range ListOf(e.MustCall(t, "GET", "/v1/spaces", Secret, nil)) {
			if sm := s.(map[string]any); sm["name"] == spaceName {
				spaceID = sm["id"].(string)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if spaceID == "" {
		t.Fatal("the SDK made no space")
	}
	for _, w := range ListOf(e.MustCall(t, "GET", "/v1/workbooks?spaceId="+spaceID, Secret, nil)) {
		wm := w.(map[string]any)
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
	// The user's part, inside the cross-origin frame: add two rows, type them, press Submit,
	// read the outcome and close it.
	frame := FrameContext(t, ctx, "/space/"+spaceID)
	row := func(n int, key string) string {
		return fmt.Sprintf(`(//tbody[@id="grid-body"]/tr)[%d]/td[@data-key=%q]`, n, key)
	}
	typed := func(n int, key, text string) chromedp.Action {
		return EditCell(t, row(n, key), text, fmt.Sprintf(`%s[contains(., %q)]`, row(n, key), text))
	}
	inFrame := func(actions ...chromedp.Action) error {
		c, cancel := context.WithTimeout(frame, 20*time.Second)
		defer cancel()
		return chromedp.Run(c, actions...)
	}
	// The end user lands on a drop zone, with an end user's tools: no downloads, bulk set
	// value, filter language or saved views, and no raw i18n key or internal job name.
	var endUser struct {
		Dropzone, Admin bool
		Text            string
	}
	if err := inFrame(
		chromedp.WaitVisible(`[data-testid=empty-dropzone]`), HtmxReady(),
		chromedp.Evaluate(`({dropzone: !!document.querySelector("[data-testid=empty-dropzone]"),
			admin: !!document.querySelector("[data-testid=export-menu], [data-testid=set-value-open], [data-testid=grid-filter], [data-testid=views-menu], [data-testid=edit-fields]"),
			text: document.body.innerText})`, &endUser),
	); err != nil || !endUser.Dropzone || endUser.Admin {
		t.Fatalf("the embedded sheet: drop zone %v, admin tools %v (%v)", endUser.Dropzone, endUser.Admin, err)
	}
	if k := RawKey.FindString(endUser.Text); k != "" {
		t.Errorf("the embedded sheet shows the raw key or job name %q", k)
	}
	if err := inFrame(
		chromedp.Click(`[data-testid=start-typing]`), chromedp.WaitVisible(row(1, "name")),
		chromedp.Click(`[data-testid=add-row]`), chromedp.WaitVisible(row(2, "name")),
		typed(1, "name", "Ann"), typed(1, "email", "ann@example.com"),
		typed(2, "name", "Bob"), typed(2, "email", "not-an-email"),
	); err != nil {
		t.Fatalf("typing rows in the frame: %v", err)
	}
	if run.Hook {
		if err := chromedp.Run(ctx, chromedp.Poll(`window.results.hooked >= 2`, nil, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
			t.Fatalf("onRecordHook never ran: %v", err)
		}
		// The hook's verdict reaches the frame's grid without a reload.
		if err := inFrame(chromedp.Poll(`!!document.evaluate(`+"`"+row(2, "email")+`[@data-level="error"]`+"`"+`, document, null, 9, null).singleNodeValue`, nil, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
			t.Errorf("the host's onRecordHook verdict did not show in the frame's grid: %v", err)
		}
		recs := DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records?filter=error&includeMessages=true", Secret, nil))["records"].([]any)
		if len(recs) != 1 || !strings.Contains(fmt.Sprint(recs[0]), "not-an-email") {
			t.Errorf("the host's onRecordHook verdict did not land on the record: %v", recs)
		}
	}
	if err := chromedp.Run(ctx, chromedp.Sleep(500*time.Millisecond), Shot(screenshot, &buf)); err != nil {
		t.Fatal(err)
	}

	// Submit in the frame: onSubmit gets the rows, the job completes, closing its outcome
	// acknowledges it and fires closeSpace.onClose.
	var submitted, outcome string
	if err := inFrame(
		chromedp.Click(`[data-testid=action-button][data-operation=`+submitOp+`]`),
		chromedp.ActionFunc(func(c context.Context) error { // a confirmation dialog, when the action has one
			var dialog bool
			if err := chromedp.Evaluate(`!!document.querySelector("dialog[open] [data-testid=action-confirm]")`, &dialog).Do(c); err != nil || !dialog {
				return err
			}
			return chromedp.Click(`dialog[open] [data-testid=action-confirm]`).Do(c)
		}),
	); err != nil {
		t.Fatalf("pressing Submit in the frame: %v", err)
	}
	if err := chromedp.Run(ctx,
		chromedp.Poll(`window.results.submitted !== null`, nil, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Evaluate(`window.results.submitted.join(",")`, &submitted)); err != nil {
		t.Fatalf("onSubmit never ran: %v", err)
	}
	if submitted != "ann@example.com,not-an-email" {
		t.Errorf("onSubmit got %q", submitted)
	}
	if err := inFrame(
		chromedp.WaitVisible(`[data-testid=job-outcome]`), chromedp.Text(`[data-testid=job-outcome]`, &outcome),
		// htmx wires the swapped-in panel's buttons when it settles (20 ms later): a click
		// before that does nothing.
		chromedp.Poll(`!document.querySelector(".htmx-settling, .htmx-swapping, .htmx-request")`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Click(`[data-testid=job-close]`)); err != nil {
		t.Fatalf("the submit job's outcome in the frame: %v", err)
	}
	if run.Outcome != "" && !strings.Contains(outcome, run.Outcome) {
		t.Errorf("the submit job's outcome in the frame says %q, want %q", outcome, run.Outcome)
	}
	if err := chromedp.Run(ctx, chromedp.Poll(`window.results.closed === true`, nil, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("closeSpace.onClose never fired: %v", err)
	}
	if run.Closes != "" {
		var open bool
		if err := chromedp.Run(ctx, chromedp.Evaluate(`!!document.querySelector("`+run.Closes+`")`, &open)); err != nil || open {
			t.Errorf("%s is still on the page after the importer closed (%v)", run.Closes, err)
		}
	}
	jobs := ListOf(e.MustCall(t, "GET", "/v1/jobs?spaceId="+spaceID, Secret, nil))
	for _, j := range jobs {
		if jm := j.(map[string]any); jm["operation"] == submitOp && (jm["status"] != "complete" || jm["outcomeAcknowledgedAt"] == nil) {
			t.Errorf("the submit job %v: want complete and acknowledged", jm)
		}
	}
	var pageErrors string
	_ = chromedp.Run(ctx, chromedp.Evaluate(`window.results.errors.join(" | ")`, &pageErrors))
	if pageErrors != "" {
		t.Errorf("errors in the host page: %s", pageErrors)
	}
}

// FrameContext attaches to the out-of-process frame whose address holds urlPart (a page of
// Sluice framed by another site runs in a target of its own), once it has loaded, so the test
// can click and type in it as the user does. JavaScript errors in the frame fail the test.
func FrameContext(t *testing.T, ctx context.Context, urlPart string) context.Context {
	t.Helper()
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		targets, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ti := range targets {
			if ti.Type == "iframe" && strings.Contains(ti.URL, urlPart) {
				frame, _ := chromedp.NewContext(ctx, chromedp.WithTargetID(ti.TargetID))
				chromedp.ListenTarget(frame, func(ev any) {
					if ex, ok := ev.(*runtime.EventExceptionThrown); ok {
						t.Errorf("JavaScript error in the frame: %s", ex.ExceptionDetails.Error())
					}
				})
				if err := chromedp.Run(frame, chromedp.WaitReady("body")); err != nil {
					t.Fatalf("attaching to the frame: %v", err)
				}
				return frame
			}
		}
	}
	t.Fatalf("no frame showing %s", urlPart)
	return nil
}
