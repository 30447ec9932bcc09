package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/chromedp"
)

// Fixing in the grid: the focused cell's message shows above the grid with a choice
// column's allowed options, Set value offers the options of a choice column, and once the
// last error is gone the sheet says every record is valid.
func TestBrowserGridFixing(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{
		map[string]any{"name": map[string]any{"value": "Ada"}, "status": map[string]any{"value": "paused"}},
		map[string]any{"name": map[string]any{"value": "Bob"}, "status": map[string]any{"value": "on"}},
	})
	var message, allValidBefore, freeHidden, optionsHidden string
	var allValidAfter bool
	var png []byte
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`td[data-record-id][data-field-key=status]`),
		webtest.HtmxReady(),
		chromedp.Evaluate(`String(document.querySelector("[data-all-valid]").hidden)`, &allValidBefore),
		chromedp.Click(`#grid-body > tr:nth-child(1) td[data-field-key=status]`),
		chromedp.Text(`[data-cell-message]`, &message),
		webtest.Shot("grid-message", &png),
		chromedp.Click(`#grid-body > tr:nth-child(1) input[name=ids]`),
		chromedp.Click(`[data-testid=set-value-open]`),
		chromedp.WaitVisible(`#set-value`),
		chromedp.SetValue(`#sv-column`, "status"),
		chromedp.Evaluate(`document.getElementById("sv-column").dispatchEvent(new Event("change", {bubbles: true}))`, nil),
		chromedp.Evaluate(`String(document.querySelector("[data-sv-free]").hidden)`, &freeHidden),
		chromedp.Evaluate(`String(document.querySelector('[data-sv-options="status"]').hidden)`, &optionsHidden),
		chromedp.SetValue(`[data-sv-options="status"]`, "off"),
		chromedp.Click(`[data-testid=sv-submit]`),
		chromedp.WaitVisible(`[data-testid=grid-notice]`),
		chromedp.Evaluate(`!document.querySelector("[data-all-valid]").hidden`, &allValidAfter),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(message, "Allowed: Running, Stopped") {
		t.Errorf("the focused cell's message: %q", message)
	}
	if allValidBefore != "true" || !allValidAfter {
		t.Errorf("the all-valid cue: hidden before %s, shown after %v", allValidBefore, allValidAfter)
	}
	if freeHidden != "true" || optionsHidden != "false" {
		t.Errorf("Set value for a choice column: free text hidden %s, options hidden %s", freeHidden, optionsHidden)
	}
	if got := webtest.SheetLines(t, e, sheetID); got[0] != "Ada|||off|" {
		t.Errorf("after Set value: %v", got)
	}
}

// A paste on the Errors tab fixes rows without making them vanish under the cursor: they stay,
// marked as no longer in the view, and the footer's count follows.
func TestBrowserPasteOnAFilteredView(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{
		map[string]any{"name": map[string]any{"value": "Ada"}, "status": map[string]any{"value": "paused"}},
		map[string]any{"name": map[string]any{"value": "Bob"}, "status": map[string]any{"value": "paused"}},
		map[string]any{"name": map[string]any{"value": "Cy"}, "status": map[string]any{"value": "on"}},
	})
	var footer string
	var rows, marked int
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID+"?filter=error"),
		chromedp.WaitVisible(`td[data-record-id][data-field-key=status]`), webtest.HtmxReady(),
		chromedp.Focus(`#grid-body > tr:nth-child(1) td[data-field-key=status]`),
		chromedp.Evaluate(`(() => {
			const dt = new DataTransfer();
			dt.setData("text/plain", "Running");
			document.activeElement.dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
		})()`, nil),
		// The footer follows the save at once; the rows come with the refresh after it.
		chromedp.Poll(`document.querySelector("[data-testid=grid-count]").textContent.includes("1 record") &&
			document.querySelectorAll("#grid-body > tr[data-out-of-view]").length > 0`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		// The edit's own event refreshes the rows once more: the marked row stays.
		chromedp.Sleep(500*time.Millisecond),
		chromedp.Poll(`!document.body.dataset.gridRefreshing`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Text(`[data-testid=grid-count]`, &footer),
		chromedp.Evaluate(`document.querySelectorAll("#grid-body > tr").length`, &rows),
		chromedp.Evaluate(`document.querySelectorAll("#grid-body > tr[data-out-of-view]").length`, &marked),
	)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 2 || marked != 1 || strings.TrimSpace(footer) != "1 record" {
		t.Errorf("after the paste: %d rows shown (want 2), %d marked out of view (want 1), footer %q (want 1 record)", rows, marked, footer)
	}
}

// A user who saves a cell and goes on to another before the save has answered stays there:
// the save no longer takes the focus back to the cell it came from, where the next key would
// land (it cleared a fixed e-mail in the business walk).
func TestBrowserGridFocusStaysWhereTheUserWent(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{
		map[string]any{"name": map[string]any{"value": "Ada"}, "age": map[string]any{"value": 36}},
		map[string]any{"name": map[string]any{"value": "Bob"}, "age": map[string]any{"value": 41}},
	})
	ada := `//tr[.//td[@data-key="name" and contains(., "Ada")]]/td[@data-key="name"]`
	still := `!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping") && !document.body.dataset.gridRefreshing`
	var focusedOn string
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`td[data-record-id][data-field-key=name]`),
		webtest.HtmxReady(),
		// A still grid first: the records just written reach the page as events, and the rows
		// they refresh must not land in the middle of the steps below.
		chromedp.Poll(still, nil),
		chromedp.Focus(ada),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`[data-testid=grid-cell-editing] [name=value]`),
		chromedp.Poll(`!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping")`, nil),
		// Enter saves; in the same moment the user clicks Bob's age.
		chromedp.Evaluate(`(() => {
			const input = document.querySelector("[data-testid=grid-cell-editing] [name=value]");
			input.value = "Ada Lovelace";
			input.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true, cancelable: true}));
			const bob = document.evaluate('//tr[.//td[@data-key="name" and contains(., "Bob")]]/td[@data-key="age"]', document, null, 9, null).singleNodeValue;
			bob.focus();
		})()`, nil),
		chromedp.WaitVisible(`//td[@data-key="name" and contains(., "Ada Lovelace")]`),
		chromedp.Poll(still, nil),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Evaluate(`(document.activeElement.closest("tr")?.textContent.includes("Bob") ? "Bob " : "") + (document.activeElement.dataset.key || document.activeElement.tagName)`, &focusedOn),
	)
	if err != nil {
		t.Fatal(err)
	}
	if focusedOn != "Bob age" {
		t.Errorf("after the save answered the focus is on %q, want Bob's age where the user went", focusedOn)
	}
}
