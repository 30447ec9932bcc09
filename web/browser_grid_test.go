package web_test

import (
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/chromedp"
)

// TestBrowserGridFastTyping types into a cell editor and presses Enter in the moment between
// htmx swapping the editor in and wiring it (the browser autofocuses it at once, htmx wires
// it when the swap settles). The edit must be saved through htmx, not submitted as a native
// form that navigates away and loses it — what a fast typist (and CI) once hit. Then the
// column menu loads its filter-by-value entries when it opens.
func TestBrowserGridFastTyping(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, `[{"key":"name","type":"string","label":"Name"}]`)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Ada"}}})
	var result string
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`td[data-key=name]`),
		webtest.HtmxReady(),
		chromedp.Evaluate(`new Promise((resolve) => {
			const td = document.querySelector("td[data-key=name]");
			const marker = window.__samePage = Math.random();
			document.addEventListener("htmx:afterSwap", function typed(ev) {
				const ta = document.querySelector("[data-testid=grid-cell-editing] [name=value]");
				if (!ta) return;
				document.removeEventListener("htmx:afterSwap", typed);
				ta.focus();
				ta.value = "Grace";
				ta.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
			});
			document.addEventListener("htmx:afterSettle", function saved() {
				const cell = document.querySelector("td[data-cell][data-key=name]");
				if (cell && cell.textContent.includes("Grace")) resolve(window.__samePage === marker ? "saved" : "reloaded");
			});
			td.focus();
			td.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
		})`, &result, webtest.AwaitPromise),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	// The column menu loads its filter-by-value entries when it opens.
	// It opens over the page: its last item is really on top at its place, not clipped by
	// the grid's scrolling box (a one-row sheet is shorter than the menu).
	// Until they come, it says they are being counted (a field with a value per record takes
	// 0.2-0.3 s at 1,000,000 records, tallied).
	var entry string
	var onTop, placeholder, placeholderGone bool
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`!!document.querySelector("th[data-key=name] [data-testid=value-menu-loading]")`, &placeholder),
		chromedp.Click(`th[data-key=name] summary`),
		chromedp.WaitVisible(`th[data-key=name] [data-testid=value-filter]`),
		chromedp.Evaluate(`!document.querySelector("th[data-key=name] [data-testid=value-menu-loading]")`, &placeholderGone),
		chromedp.Text(`th[data-key=name] [data-testid=value-filter]`, &entry),
		chromedp.Evaluate(`(() => {
			const items = document.querySelectorAll("th[data-key=name] [data-testid=column-menu] a, th[data-key=name] [data-testid=column-menu] button");
			const last = items[items.length - 1].getBoundingClientRect();
			return items[items.length - 1].contains(document.elementFromPoint(last.left + 5, last.top + last.height / 2));
		})()`, &onTop),
	); err != nil {
		t.Fatalf("column menu: %v", err)
	}
	if !onTop {
		t.Error("the column menu's last item is hidden (clipped by the grid)")
	}
	if !placeholder || !placeholderGone {
		t.Errorf("the column menu's counting note: there before the values %v, gone with them %v", placeholder, placeholderGone)
	}
	if strings.Join(strings.Fields(entry), " ") != "Grace 1" {
		t.Errorf("filter-by-value entry %q, want Grace 1", entry)
	}
	if result != "saved" {
		t.Fatalf("the fast edit %s", result)
	}
	recs := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", webtest.Secret, nil))
	if len(recs) != 1 || recs[0]["values"].(map[string]any)["name"].(map[string]any)["value"] != "Grace" {
		t.Fatalf("stored records %v", recs)
	}
}

// TestBrowserGridDuplicateFix fixes one of two duplicate e-mails in the grid: the other row,
// whose error came from the same duplicate, turns valid without a reload.
func TestBrowserGridDuplicateFix(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, `[{"key":"name","type":"string"},{"key":"email","type":"string","constraints":[{"type":"unique"}]}]`)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{
		map[string]any{"name": map[string]any{"value": "Ada"}, "email": map[string]any{"value": "same@x.io"}},
		map[string]any{"name": map[string]any{"value": "Bob"}, "email": map[string]any{"value": "same@x.io"}}})
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`//tr[contains(., "Ada")]/td[@data-key="email" and @data-level="error"]`),
		webtest.HtmxReady(),
		webtest.EditCell(t, `//tr[contains(., "Bob")]/td[@data-key="email"]`, "bob@x.io", `//tr[contains(., "Bob")]/td[@data-key="email" and contains(., "bob@x.io")]`),
		chromedp.WaitVisible(`//tr[contains(., "Ada")]/td[@data-key="email" and @data-level=""]`),
		chromedp.WaitVisible(`//tr[contains(., "Ada")]//*[@data-testid="row-flag" and @data-valid="true"]`),
		chromedp.Poll(`document.activeElement && document.activeElement.matches("td[data-cell][data-key=email]") && document.activeElement.textContent.includes("bob@x.io")`, nil),
	)
	if err != nil {
		var active string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`document.activeElement.outerHTML.slice(0, 400) + " | " + document.getElementById("grid-body").outerHTML`, &active))
		t.Fatalf("browser: %v\nactive: %s", err, active)
	}
}

// A 2,000-column sheet in the browser: the first 40 columns, "Go to column" jumps to the
// window of the chosen column, and a cell there edits as any other.
func TestBrowserWideSheet(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID, sheetID := e.MustCreateWideSheet(t, 2000, 20)
	var png []byte
	var window, first string
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`[data-testid=column-nav]`),
		webtest.Shot("grid-wide-columns", &png),
		chromedp.Evaluate(`(() => { const s = document.getElementById("column-jump"); s.value = "1240"; s.dispatchEvent(new Event("change", {bubbles: true})); return true })()`, nil),
		chromedp.WaitVisible(`th[data-key=field_1240]`),
		webtest.HtmxReady(),
		chromedp.Text(`[data-testid=column-window]`, &window),
		chromedp.AttributeValue(`[data-testid=grid-column]`, "data-key", &first, nil),
		webtest.EditCell(t, `//tr[contains(., "value 3/1250")]/td[@data-key="field_1250"]`, "edited far right",
			`//tr[contains(., "value 3/1251")]/td[@data-key="field_1250" and contains(., "edited far right")]`),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	if window != "Columns 1241–1280 of 2000" || first != "field_1240" {
		t.Fatalf("after the jump: %q starting at %s", window, first)
	}
	recs := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records?searchValue=edited", webtest.Secret, nil))
	if len(recs) != 1 {
		t.Fatalf("the edit in the far window reached %d records", len(recs))
	}
}

// The grid fixes like a spreadsheet: Delete clears the focused cell, and typing on a cell
// starts editing it with the typed characters (Enter saves).
func TestBrowserGridDeleteAndTypeToEdit(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, `[{"key":"name","type":"string","label":"Name"},{"key":"city","type":"string","label":"City"}]`)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Ada"}, "city": map[string]any{"value": "Leeds"}}})
	values := func() map[string]any {
		rec := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", webtest.Secret, nil))[0]
		return rec["values"].(map[string]any)
	}
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`td[data-key=city]`),
		webtest.HtmxReady(),
		chromedp.Focus(`td[data-cell][data-key=city]`),
		chromedp.KeyEvent("\b"), // Backspace
		chromedp.Poll(`!document.querySelector("td[data-cell][data-key=city]").textContent.includes("Leeds")`, nil),
		chromedp.Focus(`td[data-cell][data-key=name]`),
		chromedp.KeyEvent("G"),
		chromedp.WaitVisible(`[data-testid=grid-cell-editing] [name=value]`),
		chromedp.SendKeys(`[data-testid=grid-cell-editing] [name=value]`, "race"),
		chromedp.KeyEvent("\r"),
		chromedp.Poll(`(document.querySelector("td[data-cell][data-key=name]")?.textContent || "").includes("Grace")`, nil),
	)
	if err != nil {
		var html string
		_ = chromedp.Run(webtest.BrowserDiag(ctx), chromedp.OuterHTML("#grid-body", &html))
		t.Fatalf("browser: %v\n%.2000s", err, html)
	}
	v := values()
	if city, _ := v["city"].(map[string]any); city["value"] != nil {
		t.Errorf("Backspace left city %v, want it empty", city["value"])
	}
	if name, _ := v["name"].(map[string]any); name["value"] != "Grace" {
		t.Errorf("typing G then race saved %v, want Grace", name["value"])
	}
}
