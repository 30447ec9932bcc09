package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/chromedp"
)

// The published @flatfile/javascript 1.5.7, unchanged, in a customer's page on another
// origin: startFlatfile creates the space through the publishable key and frames it; rows
// written in the space reach the page's onRecordHook, whose verdict lands on the records;
// the Submit action reaches onSubmit with the rows, the job completes, and acknowledging its
// outcome fires closeSpace.onClose. Any CORS or framing error in the page fails the test.
func TestBrowserFlatfileJavascriptSDK(t *testing.T) {
	webtest.DriveSDK(t, webtest.SdkRun{Host: webtest.Bundled("host.js"), Start: `window.startImporter({ publishableKey: PK, apiUrl: API }); true`,
		SpaceName: "Contacts import", Screenshot: "embed-02-sdk", Hook: true})
}

// The same with the published @flatfile/react 7.13 (FlatfileProvider, Space, Workbook, Sheet,
// useFlatfile's openPortal and onClose), built with esbuild's JSX.
func TestBrowserFlatfileReactSDK(t *testing.T) {
	// @flatfile/react posts portal:initialize to its frame before the frame has left
	// about:blank (the SDK's own race; it sets the frame's address as well), which Chromium
	// reports.
	webtest.ExpectedBrowserErrors = []string{"Failed to execute 'postMessage' on 'DOMWindow': The target origin provided"}
	t.Cleanup(func() { webtest.ExpectedBrowserErrors = nil })
	webtest.DriveSDK(t, webtest.SdkRun{Host: webtest.Bundled("react.jsx"), Start: `window.startReact({ publishableKey: PK, apiUrl: API }); true`,
		SpaceName: "Contacts import (React)", Screenshot: "embed-03-react", Hook: true, Then: []string{`window.openImporter(); true`}})
}

// Sluice's own /embed.js in a plain page, no npm: Sluice.open makes the space and frames it,
// the rows typed in the frame reach onSubmit, the job completes, and closing its outcome
// closes the importer and calls onClose.
func TestBrowserSluiceEmbedScript(t *testing.T) {
	webtest.DriveSDK(t, webtest.SdkRun{Host: func(t *testing.T, base string) string {
		return webtest.HostPage(t, `<!doctype html><html><head><title>Customer app</title></head><body><h1>Customer app</h1>
<script src="`+base+`/embed.js"></script>
<script>
window.results = { submitted: null, closed: false, errors: [], events: 0 };
window.addEventListener("error", (e) => window.results.errors.push(String(e.message)));
window.start = (publishableKey) => Sluice.open({
  publishableKey,
  name: "Contacts import (embed.js)",
  sheet: { name: "Contacts", slug: "contacts", fields: [{ key: "name", type: "string", label: "Name" }, { key: "email", type: "string", label: "Email" }] },
  onSubmit: async ({ rows }) => { window.results.submitted = rows.map((r) => r.email); return { message: "Thanks: " + rows.length + " contacts" }; },
  onEvent: () => window.results.events++,
  onClose: () => { window.results.closed = true; },
  onError: (err) => window.results.errors.push(String(err)),
});
</script></body></html>`)
	}, Start: `window.start(PK); true`, SpaceName: "Contacts import (embed.js)", Screenshot: "embed-04-embedjs", Outcome: "Thanks: 2 contacts",
		Closes: "[data-sluice-importer]"})
}

// A page whose origin is not on the allowlist: /embed.js says what to do through onError,
// its ready promise rejects, and no space is made.
func TestBrowserEmbedScriptReportsUnlistedOrigin(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	e.AllowOrigins(t, "https://only.example")
	host := webtest.HostPage(t, `<!doctype html><html><head><title>Customer app</title></head><body><h1>Customer app</h1>
<script src="`+base+`/embed.js"></script>
<script>
window.results = { errors: [], rejected: "" };
window.start = (publishableKey) => {
  const h = Sluice.open({ publishableKey, name: "Refused", sheet: { name: "S", slug: "s", fields: [{ key: "a", type: "string" }] }, onError: (err) => window.results.errors.push(String(err.message || err)) });
  h.ready.catch((err) => { window.results.rejected = String(err.message || err); });
};
</script></body></html>`)
	var onError, rejected string
	if err := chromedp.Run(ctx, chromedp.Navigate(host), chromedp.Poll(`typeof window.start === "function"`, nil),
		chromedp.Evaluate(`window.start("`+webtest.Public+`"); true`, nil),
		chromedp.Poll(`window.results.rejected !== ""`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate(`window.results.errors.join("; ")`, &onError), chromedp.Evaluate(`window.results.rejected`, &rejected)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(onError, "Admin → Environment → Embedding") || !strings.Contains(rejected, "not allowed") {
		t.Fatalf("onError %q, ready rejected with %q; want the allowlist's explanation", onError, rejected)
	}
	if n := len(webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces", webtest.Secret, nil))); n != 0 {
		t.Fatalf("%d spaces were made from an unlisted origin", n)
	}
}
