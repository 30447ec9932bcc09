package web_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/cdproto/input"

	"github.com/chromedp/chromedp"
)

// The grid works as a spreadsheet: a range selected with Shift+click and Shift+arrows is
// copied as TSV and HTML; a block pasted from a spreadsheet fills from the active cell
// rightwards and down (a quoted multi-line cell keeps its line break, numbers, booleans and
// enum labels are read as their types, the read-only column is skipped and counted) and
// appends a record past the last row, as one commit; undo puts every value back and removes
// the appended record, redo does it again; rows keep one line with a 600-character value.
func TestBrowserGridSpreadsheet(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{
		map[string]any{"name": map[string]any{"value": "Ada"}, "age": map[string]any{"value": 36}, "code": map[string]any{"value": "A1"}},
		map[string]any{"name": map[string]any{"value": "Bob"}, "age": map[string]any{"value": 41}, "code": map[string]any{"value": "B2"}},
		map[string]any{"name": map[string]any{"value": strings.Repeat("long value ", 55)}, "age": map[string]any{"value": 7}},
	})
	before := webtest.SheetLines(t, e, sheetID)
	var selectedCells int
	var copied, copiedHTML string
	var heights []float64
	var png []byte
	cell := func(row int, key string) string {
		return fmt.Sprintf(`document.querySelectorAll("#grid-body > tr")[%d].querySelector("td[data-field-key=%s]")`, row, key)
	}
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`td[data-record-id][data-field-key=name]`),
		webtest.HtmxReady(),
		webtest.Step(t, "select"),
		chromedp.Evaluate(`(() => {
			const rows = document.querySelectorAll("#grid-body > tr");
			return Array.from(rows, (tr) => tr.getBoundingClientRect().height);
		})()`, &heights),
		chromedp.Click(`#grid-body > tr:nth-child(1) td[data-field-key=name]`),
		chromedp.Evaluate(cell(1, "age")+`.dispatchEvent(new MouseEvent("mousedown", {bubbles: true, cancelable: true, shiftKey: true}))`, nil),
		chromedp.Evaluate(cell(1, "age")+`.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, shiftKey: true}))`, nil),
		chromedp.Evaluate(`document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowDown", shiftKey: true, bubbles: true, cancelable: true}))`, nil),
		chromedp.Evaluate(`document.querySelectorAll("#grid-body td.sl-selected").length`, &selectedCells),
		webtest.Shot("grid-range", &png),
		webtest.Step(t, "copy"),
		chromedp.Evaluate(`(() => {
			const dt = new DataTransfer();
			document.activeElement.dispatchEvent(new ClipboardEvent("copy", {clipboardData: dt, bubbles: true, cancelable: true}));
			return dt.getData("text/plain");
		})()`, &copied),
		chromedp.Evaluate(`(() => {
			const dt = new DataTransfer();
			document.activeElement.dispatchEvent(new ClipboardEvent("copy", {clipboardData: dt, bubbles: true, cancelable: true}));
			return dt.getData("text/html");
		})()`, &copiedHTML),
		webtest.Step(t, "paste"),
		chromedp.Click(`#grid-body > tr:nth-child(2) td[data-field-key=name]`),
		chromedp.Evaluate(`(() => {
			const dt = new DataTransfer();
			dt.setData("text/plain", "Bo\t42\tyes\tStopped\tX\r\n\"Multi\nline\"\t8\tfalse\tRunning\tY\r\nNew\t9\ttrue\ton\tZ\r\n");
			document.activeElement.dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
		})()`, nil),
		chromedp.WaitVisible(`//*[@data-testid="grid-toast" and contains(., "2 records changed, 1 added")]`),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	if selectedCells != 6 {
		t.Errorf("Shift+click then Shift+ArrowDown selected %d cells, want 6 (3 rows × name, age)", selectedCells)
	}
	if want := "Ada\t36\r\nBob\t41\r\n" + strings.TrimSpace(strings.Repeat("long value ", 55)) + "\t7"; copied != want {
		t.Errorf("copied %q, want %q", copied, want)
	}
	if !strings.Contains(copiedHTML, "<table><tr><td>Ada</td><td>36</td></tr>") {
		t.Errorf("copied HTML %q", copiedHTML)
	}
	sort.Float64s(heights)
	if len(heights) != 3 || heights[2] > heights[0]+1 {
		t.Errorf("row heights %v: the 600-character value makes its row taller", heights)
	}
	var toast string
	_ = chromedp.Run(ctx, chromedp.Text(`[data-testid=grid-toast]`, &toast))
	if !strings.Contains(toast, "3 read-only cells") {
		t.Errorf("the toast %q does not say the read-only cells were skipped", toast)
	}
	pasted := []string{"Ada|36|||A1", "Bo|42|true|off|B2", "Multi\nline|8|false|on|", "New|9|true|on|"}
	if got := webtest.SheetLines(t, e, sheetID); strings.Join(got, "\n") != strings.Join(pasted, "\n") {
		t.Fatalf("after the paste the records are\n%q\nwant\n%q", got, pasted)
	}
	// Undo (the toolbar button) puts everything back and removes the added record; redo
	// (Ctrl+Shift+Z) does it again.
	if err := chromedp.Run(ctx,
		webtest.Step(t, "undo"),
		chromedp.Click(`[data-testid=grid-undo]`),
		chromedp.WaitVisible(`//*[@data-testid="grid-toast" and contains(., "Undone: paste")]`),
		webtest.Shot("grid-undo", &png),
	); err != nil {
		t.Fatalf("undo: %v", err)
	}
	if got := webtest.SheetLines(t, e, sheetID); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Fatalf("after undo the records are\n%q\nwant\n%q", got, before)
	}
	if err := chromedp.Run(ctx,
		webtest.Step(t, "redo"),
		chromedp.WaitVisible(`#grid-body > tr:nth-child(2) td[data-field-key=name]`),
		chromedp.Click(`#grid-body > tr:nth-child(1) td[data-field-key=age]`),
		chromedp.Evaluate(`document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key: "Z", ctrlKey: true, shiftKey: true, bubbles: true, cancelable: true}))`, nil),
		chromedp.WaitVisible(`//*[@data-testid="grid-toast" and contains(., "Redone: paste")]`),
	); err != nil {
		t.Fatalf("redo: %v", err)
	}
	if got := webtest.SheetLines(t, e, sheetID); strings.Join(got, "\n") != strings.Join(pasted, "\n") {
		t.Fatalf("after redo the records are\n%q\nwant\n%q", got, pasted)
	}
	var recordIDs []string
	for _, r := range webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", webtest.Secret, nil)) {
		recordIDs = append(recordIDs, r["id"].(string))
	}
	// A cell edit is undone with Ctrl+Z from the grid.
	if err := chromedp.Run(ctx,
		webtest.Step(t, "edit and undo"),
		webtest.EditCell(t, `//tbody[@id="grid-body"]/tr[1]/td[@data-field-key="name"]`, "Ada Lovelace", `//tbody[@id="grid-body"]/tr[1]/td[@data-field-key="name" and contains(., "Ada Lovelace")]`),
		chromedp.Evaluate(`document.querySelector("#grid-body td[data-field-key=name]").dispatchEvent(new KeyboardEvent("keydown", {key: "z", ctrlKey: true, bubbles: true, cancelable: true}))`, nil),
		chromedp.WaitVisible(`//*[@data-testid="grid-toast" and contains(., "Undone: cell edit")]`),
	); err != nil {
		t.Fatalf("edit and undo: %v", err)
	}
	if got := webtest.SheetLines(t, e, sheetID); len(got) == 0 || got[0] != "Ada|36|||A1" {
		t.Fatalf("after undoing the edit the first record is %q", got)
	}
	// Ctrl+D fills the range down from its first row; Ctrl+Z takes it back.
	if err := chromedp.Run(ctx,
		webtest.Step(t, "fill down"),
		chromedp.Click(`#grid-body > tr:nth-child(1) td[data-field-key=age]`),
		chromedp.Evaluate(cell(3, "status")+`.dispatchEvent(new MouseEvent("mousedown", {bubbles: true, cancelable: true, shiftKey: true}))`, nil),
		chromedp.Evaluate(cell(3, "status")+`.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, shiftKey: true}))`, nil),
		chromedp.Evaluate(`document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key: "d", ctrlKey: true, bubbles: true, cancelable: true}))`, nil),
		chromedp.WaitVisible(`//*[@data-testid="grid-toast" and contains(., "Filled down: 3 records changed")]`),
	); err != nil {
		t.Fatalf("fill down: %v", err)
	}
	filled := []string{"Ada|36|||A1", "Bo|36|||B2", "Multi\nline|36|||", "New|36|||"}
	if got := webtest.SheetLines(t, e, sheetID); strings.Join(got, "\n") != strings.Join(filled, "\n") {
		t.Fatalf("after fill down the records are\n%q\nwant\n%q", got, filled)
	}
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key: "z", ctrlKey: true, bubbles: true, cancelable: true}))`, nil),
		chromedp.WaitVisible(`//*[@data-testid="grid-toast" and contains(., "Undone: fill down")]`),
	); err != nil {
		t.Fatalf("undo fill down: %v", err)
	}
	if got := webtest.SheetLines(t, e, sheetID); strings.Join(got, "\n") != strings.Join(pasted, "\n") {
		t.Fatalf("after undoing the fill the records are\n%q\nwant\n%q", got, pasted)
	}
	// A row deleted from the toolbar (a page load later) comes back with its id on undo.
	var ids []string
	if err := chromedp.Run(ctx,
		webtest.Step(t, "delete and undo"),
		chromedp.Evaluate(`window.confirm = () => true`, nil),
		chromedp.Click(`#grid-body > tr:nth-child(2) input[name=ids]`),
		chromedp.Click(`[data-testid=delete-rows]`),
		chromedp.WaitVisible(`//*[contains(text(), "Deleted 1 row.")]`),
		webtest.HtmxReady(),
		chromedp.WaitEnabled(`[data-testid=grid-undo]`),
		chromedp.Click(`[data-testid=grid-undo]`),
		chromedp.WaitVisible(`//*[@data-testid="grid-toast" and contains(., "Undone: row delete (1 record)")]`),
		chromedp.WaitVisible(`#grid-body > tr:nth-child(4)`),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#grid-body > tr[data-record]"), (tr) => tr.dataset.record)`, &ids),
	); err != nil {
		t.Fatalf("delete and undo: %v", err)
	}
	if got := webtest.SheetLines(t, e, sheetID); strings.Join(got, "\n") != strings.Join(pasted, "\n") {
		t.Fatalf("after undoing the delete the records are\n%q\nwant\n%q", got, pasted)
	}
	if len(ids) != 4 || ids[1] != recordIDs[1] {
		t.Fatalf("after undoing the delete the rows are %q, want the second to be %s again", ids, recordIDs[1])
	}
}

// A paste of 10,000 rows × 5 columns from the clipboard to the stored records, timed in the
// browser: parse, one request, one commit, the rows shown again.
func TestBrowserGridPasteTenThousandRows(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "first"}}})
	var took float64
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`td[data-field-key=name]`),
		webtest.HtmxReady(),
		chromedp.Click(`td[data-field-key=name]`),
		chromedp.Evaluate(`new Promise((resolve) => {
			const lines = [];
			for (let i = 0; i < 10000; i++) lines.push("name " + i + "\t" + i + "\t" + (i % 2 ? "yes" : "no") + "\t" + (i % 3 ? "Running" : "Stopped") + "\tc" + i);
			const dt = new DataTransfer();
			dt.setData("text/plain", lines.join("\r\n"));
			const start = performance.now();
			new MutationObserver((_, obs) => {
				const box = document.querySelector("[data-testid=grid-toast]");
				if (box.dataset.kind === "paste") { obs.disconnect(); resolve(performance.now() - start); }
			}).observe(document.querySelector("[data-testid=grid-toast]"), {attributes: true, childList: true, characterData: true, subtree: true});
			document.activeElement.dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
		})`, &took, webtest.AwaitPromise),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	counts := e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/counts", webtest.Secret, nil)["data"].(map[string]any)["counts"].(map[string]any)
	if counts["total"].(float64) != 10000 {
		t.Fatalf("after the paste the sheet has %v records, want 10000 (1 changed, 9,999 added)", counts["total"])
	}
	t.Logf("pasted 10,000 rows × 5 columns in %.0f ms (target ≤ 2,000 ms)", took)
	if took > 2000*5 { // a loaded CI machine gets slack; the benchmark holds the target
		t.Errorf("the paste took %.0f ms", took)
	}
}

// Every row the grid shows, across pages: the header box checks the page, the banner
// offers all matching rows with their exact count, the set-value dialog names that count
// and writes the value in all of them; the delete confirmation names it too.
func TestBrowserGridBulkAcrossPages(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	var in []any
	for i := 0; i < 60; i++ {
		in = append(in, map[string]any{"name": map[string]any{"value": fmt.Sprintf("r%02d", i)}})
	}
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, in)
	var banner, scope, confirm string
	var png []byte
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`td[data-field-key=name]`),
		webtest.HtmxReady(),
		webtest.Step(t, "select the page"),
		chromedp.Click(`[data-testid=select-page]`),
		chromedp.WaitVisible(`[data-testid=select-all-banner]`),
		chromedp.Click(`[data-testid=select-matching]`),
		chromedp.WaitVisible(`//*[@data-testid="select-all-banner" and contains(., "All 60 matching rows are selected.")]`),
		chromedp.Text(`[data-testid=select-all-banner]`, &banner),
		chromedp.AttributeValue(`[data-testid=delete-rows]`, "hx-confirm", &confirm, nil),
		webtest.Shot("grid-select-all", &png),
		webtest.Step(t, "set value"),
		chromedp.Click(`[data-testid=set-value-open]`),
		chromedp.WaitVisible(`[data-testid=set-value]`),
		chromedp.Text(`[data-testid=set-scope]`, &scope),
		chromedp.SetValue(`[data-testid=sv-column]`, "status"),
		chromedp.SetValue(`[data-sv-options="status"]`, "off"), // a choice column offers its options
		chromedp.Click(`[data-testid=sv-submit]`),
		chromedp.WaitVisible(`//*[@data-testid="grid-notice" and contains(., "Value set in records: 60.")]`),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	if !strings.Contains(scope, "All matching rows: 60") {
		t.Errorf("the set-value dialog says %q, want it to name all 60 matching rows", scope)
	}
	if confirm != "Delete all 60 matching rows? Undo brings them back." {
		t.Errorf("the delete confirmation is %q", confirm)
	}
	off := 0
	for _, l := range webtest.SheetLines(t, e, sheetID) {
		if strings.HasSuffix(l, "|off|") {
			off++
		}
	}
	if off != 60 {
		t.Fatalf("%d records got the value, want all 60 across both pages", off)
	}
}

// The layout: a column dragged wider keeps its width for the user after a reload; the row's
// box and number and the first field stay in place while the grid scrolls sideways; at
// 390 px wide the page does not scroll sideways (the grid scrolls inside its card) and the
// toolbar's buttons stay on screen.
func TestBrowserGridLayout(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	fields := `[{"key":"name","type":"string","label":"Name"}`
	for i := 0; i < 12; i++ {
		fields += fmt.Sprintf(`,{"key":"f%d","type":"string","label":"Field number %d"}`, i, i)
	}
	spaceID, sheetID := e.MustCreateRecordSheet(t, fields+"]")
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{
		map[string]any{"name": map[string]any{"value": "Ada"}, "f3": map[string]any{"value": "x"}},
		map[string]any{"name": map[string]any{"value": ""}},
	})
	page := base + "/space/" + spaceID + "/sheet/" + sheetID
	var before, after, kept float64
	var frozenBefore, frozenAfter, scrolled float64
	var docWidth, toolbarRight float64
	var png []byte
	handle := `th[data-key=f1] [data-col-resize]`
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(page),
		chromedp.WaitVisible(`td[data-field-key=name]`),
		webtest.HtmxReady(),
		webtest.Step(t, "resize"),
		chromedp.Evaluate(`document.querySelector("th[data-key=f1]").getBoundingClientRect().width`, &before),
		chromedp.ActionFunc(func(c context.Context) error {
			var box []float64
			if err := chromedp.Evaluate(`(() => { const r = document.querySelector("`+handle+`").getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, &box).Do(c); err != nil {
				return err
			}
			x, y := box[0], box[1]
			for _, ev := range []struct {
				typ input.MouseType
				x   float64
			}{{input.MousePressed, x}, {input.MouseMoved, x + 60}, {input.MouseMoved, x + 120}, {input.MouseReleased, x + 120}} {
				if err := input.DispatchMouseEvent(ev.typ, ev.x, y).WithButton(input.Left).WithClickCount(1).Do(c); err != nil {
					return err
				}
			}
			return nil
		}),
		chromedp.Evaluate(`document.querySelector("th[data-key=f1]").getBoundingClientRect().width`, &after),
		chromedp.Sleep(300*time.Millisecond), // the layout's POST
		chromedp.Navigate(page),
		chromedp.WaitVisible(`td[data-field-key=name]`),
		chromedp.Evaluate(`document.querySelector("td[data-field-key=f1]").getBoundingClientRect().width`, &kept),
		webtest.Step(t, "frozen"),
		chromedp.Evaluate(`document.querySelector("#grid-body td[data-field-key=name]").getBoundingClientRect().left`, &frozenBefore),
		chromedp.Evaluate(`(() => { const f = document.getElementById("grid-rows"); f.scrollLeft = 600; return f.scrollLeft; })()`, &scrolled),
		chromedp.Evaluate(`document.querySelector("#grid-body td[data-field-key=name]").getBoundingClientRect().left`, &frozenAfter),
		webtest.Shot("grid-frozen", &png),
		webtest.Step(t, "phone"),
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(page),
		chromedp.WaitVisible(`td[data-field-key=name]`),
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &docWidth),
		chromedp.Evaluate(`Math.max(...Array.from(document.querySelectorAll("[data-testid=grid-toolbar] button, [data-testid=grid-toolbar] a"), (b) => b.getBoundingClientRect().right))`, &toolbarRight),
		webtest.Shot("grid-phone", &png),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	if after < before+100 || kept < after-2 || kept > after+2 {
		t.Errorf("column width %.0f px, dragged to %.0f, after a reload %.0f: want about 120 px wider, kept", before, after, kept)
	}
	if scrolled < 100 || frozenAfter != frozenBefore {
		t.Errorf("scrolled %.0f px sideways, the first field moved from %.0f to %.0f: want it frozen", scrolled, frozenBefore, frozenAfter)
	}
	if docWidth > 390 || toolbarRight > 390 {
		t.Errorf("at 390 px the page is %.0f px wide and the toolbar reaches %.0f px", docWidth, toolbarRight)
	}
}
