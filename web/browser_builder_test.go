package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/chromedp"
)

// A user builds a sheet in the dashboard in chromium: Add field, a type change that brings up
// the options box, Save onto the grid, then a phone-width look at the builder.
func TestBrowserSheetBuilder(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Vendors"})["id"].(string)
	var buf []byte
	var title, overflow string
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID),
		chromedp.WaitVisible(`[data-testid=new-workbook]`),
		chromedp.Click(`[data-testid=new-workbook]`),
		chromedp.WaitVisible(`[data-testid=builder]`),
		webtest.HtmxReady(),
		chromedp.SendKeys(`[data-testid=builder-sheet-name]`, "Suppliers"),
		chromedp.SendKeys(`[data-testid=builder-label]`, "Email"),
		chromedp.Click(`[data-testid=builder-required]`),
		chromedp.Click(`[data-testid=builder-add-field]`),
		chromedp.WaitVisible(`li[data-testid=builder-field]:nth-of-type(2)`),
		chromedp.SendKeys(`li[data-testid=builder-field]:nth-of-type(2) [data-testid=builder-label]`, "Country"),
		// Choosing "Choice" draws the row again with its options box.
		chromedp.Evaluate(`(() => { const s = document.querySelectorAll('[data-testid=builder-type]')[1]; s.value = 'enum'; s.dispatchEvent(new Event('change', {bubbles: true})) })()`, nil),
		chromedp.WaitVisible(`[data-testid=builder-options]`),
		chromedp.SendKeys(`[data-testid=builder-options]`, "de | Germany\nfr | France"),
		chromedp.Click(`[data-testid=builder-json] summary`),
		webtest.Shot("builder-1366", &buf),
		chromedp.Click(`[data-testid=builder-save]`),
		chromedp.WaitVisible(`[data-testid=sheet-title]`),
		chromedp.Text(`[data-testid=sheet-title]`, &title),
		chromedp.Navigate(base+"/space/"+spaceID+"/workbooks/new"),
		chromedp.EmulateViewport(390, 844),
		chromedp.WaitVisible(`[data-testid=builder]`),
		chromedp.Evaluate(`String(document.documentElement.scrollWidth)`, &overflow),
		webtest.Shot("builder-390", &buf),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, "Suppliers") {
		t.Fatalf("after Save the grid shows %q", title)
	}
	if overflow != "390" {
		t.Errorf("the builder is %s px wide on a 390 px phone", overflow)
	}
	wbs := webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks?spaceId="+spaceID, webtest.Secret, nil))
	raw, _ := json.Marshal(wbs)
	for _, want := range []string{`"key":"email"`, `"type":"required"`, `"key":"country"`, `"type":"enum"`, `"label":"France"`, `"operation":"sluice-submit"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the built workbook lacks %s: %s", want, raw)
		}
	}
}
