package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/chromedp"
)

// In Chromium, a host page of an allowed origin frames the embedded space opened with its
// guest link: the frame works without third-party cookies (a row added in it lands in the
// sheet), the space's events reach the host through postMessage, and the host's own API call
// passes CORS. A host on an origin not on the list cannot frame the page.
func TestBrowserEmbeddedFrame(t *testing.T) {
	e := webtest.NewAPI(t)
	e.WithStreams(t)
	t.Cleanup(func() { webtest.ExpectedBrowserErrors = nil }) // after the browser's own check
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	t.Cleanup(e.Events.Stop) // ends the frames' event streams before the server shuts down
	spaceID, sheetID, token, _ := e.InitSpace(t)
	link := base + "/space/" + spaceID + "/sheet/" + sheetID + "?token=" + token
	html := `<!doctype html><html><body><h1>Customer app</h1>
<iframe id="importer" src="` + link + `" style="width:1100px;height:600px"></iframe>
<script>
window.events = [];
window.addEventListener("message", (e) => { if (e.data && e.data.flatfileEvent) window.events.push(e.data.flatfileEvent.topic); });
window.apiStatus = 0;
fetch("` + base + `/v1/sheets/` + sheetID + `/counts", { headers: { Authorization: "Bearer ` + token + `", "X-Fern-Language": "JavaScript" } })
  .then((r) => (window.apiStatus = r.status)).catch(() => (window.apiStatus = -1));
</script></body></html>`
	host := webtest.HostPage(t, html)
	e.AllowOrigins(t, host)
	var events string
	var apiStatus int
	var buf []byte
	err := chromedp.Run(ctx,
		chromedp.Navigate(host),
		chromedp.WaitVisible(`#importer`),
		chromedp.Poll(`(() => { try { return document.getElementById("importer").contentDocument === null } catch (e) { return true } })()`, nil),
		chromedp.Sleep(1500*time.Millisecond), // the frame loads and opens its event stream
	)
	if err != nil {
		t.Fatal(err)
	}
	// A change in the space: the frame relays its events to the host.
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{map[string]any{"email": map[string]any{"value": "ann@example.com"}}})
	err = chromedp.Run(ctx,
		chromedp.Poll(`window.events.includes("commit:created") || window.events.includes("records:created")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	_ = chromedp.Run(ctx, chromedp.Evaluate(`window.events.join(",")`, &events))
	if err != nil {
		_ = chromedp.Run(ctx, webtest.Shot("embed-00-failed", &buf))
		t.Fatalf("no event relayed to the host: %v (got %q)", err, events)
	}
	err = chromedp.Run(ctx,
		chromedp.Poll(`window.apiStatus !== 0`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Evaluate(`window.apiStatus`, &apiStatus),
		webtest.Shot("embed-01-host-page", &buf),
	)
	if err != nil {
		t.Fatal(err)
	}
	if apiStatus != 200 {
		t.Errorf("the host's API call: %d, want 200 through CORS", apiStatus)
	}
	t.Logf("relayed: %s", events)

	// Inside the frame, the user imports a file into the sheet: "Import a file", the file is
	// read while the wizard waits, the suggested mapping, Import, and the rows in the grid.
	webtest.StartWorker(t, e)
	csv := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(csv, []byte("E-Mail-Adresse;Name\ncy@example.com;Cy\ndee@example.com;Dee\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	frame := webtest.FrameContext(t, ctx, "/space/"+spaceID)
	fctx, cancel := context.WithTimeout(frame, 30*time.Second)
	defer cancel()
	var mapping string
	if err := chromedp.Run(fctx,
		chromedp.WaitVisible(`[data-testid=sheet-upload]`), webtest.HtmxReady(),
		chromedp.SetUploadFiles(`[data-testid=sheet-upload-file]`, []string{csv}),
		chromedp.WaitVisible(`[data-testid=import-mapping]`), webtest.HtmxReady(),
		chromedp.Text(`[data-testid=import-mapping]`, &mapping),
		webtest.HtmxIdle(), chromedp.Click(`[data-testid=import-review]`),
		chromedp.WaitVisible(`[data-testid=import-run]`), webtest.HtmxIdle(),
		chromedp.Click(`[data-testid=import-run]`),
		chromedp.WaitVisible(`//td[@data-key="email" and contains(., "dee@example.com")]`),
	); err != nil {
		var html string
		_ = chromedp.Run(frame, chromedp.Evaluate(`location.href + " " + document.body.innerText.slice(0, 1500)`, &html))
		t.Fatalf("importing a file inside the frame: %v\n%s", err, html)
	}
	if !strings.Contains(mapping, "E-Mail-Adresse") {
		t.Errorf("the wizard in the frame shows %q", mapping)
	}
	if n := len(webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", webtest.Secret, nil))); n != 3 {
		t.Errorf("the sheet holds %d records after the import in the frame, want 3", n)
	}

	// An origin not on the list: the frame is refused (frame-ancestors) and so is CORS; the
	// browser reports both, as it should.
	webtest.ExpectedBrowserErrors = []string{"violates the following Content Security Policy directive: \"frame-ancestors"}
	other := webtest.HostPage(t, strings.Replace(html, "window.events = [];", "window.events = []; window.other = true;", 1))
	var blocked bool
	err = chromedp.Run(ctx,
		chromedp.Navigate(other),
		chromedp.WaitVisible(`#importer`),
		chromedp.Sleep(1500*time.Millisecond),
		chromedp.Evaluate(`window.apiStatus === -1`, &blocked),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !blocked {
		t.Errorf("a host not on the allowlist read the API through CORS")
	}
}
