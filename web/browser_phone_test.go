package web_test

import (
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/chromedp"
)

// Every page fits a 390 px phone without sideways scrolling, and the sheet's grid starts in
// the first screen.
func TestBrowserPhoneWidth(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	webtest.StartWorker(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Ada"}}})
	f := e.MustUpload(t, spaceID, "people with a long file name.csv", "Name,Age,Active,Status,Code\nAda,36,yes,on,A1\n")
	e.WaitSettled(t, "/v1/files/"+f["id"].(string), 400)
	pages := []string{"/", "/space/" + spaceID, "/space/" + spaceID + "/sheet/" + sheetID, "/space/" + spaceID + "/import/" + f["id"].(string) + "?to=" + sheetID,
		"/space/" + spaceID + "/workbooks/new", "/space/" + spaceID + "/sheet/" + sheetID + "/schema",
		"/admin/events", "/admin/jobs", "/admin/guests", "/admin/tokens", "/admin/secrets", "/admin/environment", "/admin/agents", "/admin/apps",
		"/admin/translations", "/admin/theme", "/admin/audit", "/account/password"}
	var buf []byte
	if err := chromedp.Run(ctx, webtest.LogIn(base), chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "de"} {
		for _, p := range pages {
			var width int
			var gridTop float64
			err := chromedp.Run(ctx,
				chromedp.Evaluate(`document.cookie = "lang=`+lang+`; path=/"`, nil),
				chromedp.Navigate(base+p),
				chromedp.WaitReady("body"),
				chromedp.Evaluate(`document.documentElement.scrollWidth`, &width),
				chromedp.Evaluate(`(() => { const g = document.querySelector("[data-grid]"); return g ? g.getBoundingClientRect().top : 0 })()`, &gridTop),
			)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			name := lang + strings.NewReplacer("/", "_", "?", "_", "=", "_").Replace(p)
			if strings.Contains(p, "/sheet/") || p == "/" {
				_ = chromedp.Run(ctx, webtest.Shot("phone-"+name, &buf)) // for the docs' screenshots
			}
			if width > 390 {
				var wide []string
				_ = chromedp.Run(ctx, chromedp.Evaluate(`Array.from(document.querySelectorAll("body *")).filter((el) => el.getBoundingClientRect().right > 391 && (getComputedStyle(el).position !== "static" || !el.closest(".overflow-x-auto, .overflow-auto"))).slice(0, 4).map((el) => el.tagName + "." + el.className.toString().slice(0, 60) + " " + Math.round(el.getBoundingClientRect().right) + " " + getComputedStyle(el).position)`, &wide))
				t.Logf("%s: widest %v", p, wide)
				_ = chromedp.Run(ctx, webtest.Shot("phone-"+name, &buf))
				t.Errorf("%s (%s) is %d px wide on a 390 px phone", p, lang, width)
			}
			if strings.Contains(p, "/sheet/") && !strings.HasSuffix(p, "/schema") && gridTop > 844 {
				_ = chromedp.Run(ctx, webtest.Shot("phone-"+name, &buf))
				t.Errorf("%s (%s): the grid starts %.0f px down, below the first screen", p, lang, gridTop)
			}
		}
	}
	// The sheet's tools are one tap away.
	var before, after bool
	err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`[data-testid=toolbar-toggle]`),
		chromedp.Evaluate(`document.querySelector("[data-testid=add-row]").offsetParent !== null`, &before),
		chromedp.Click(`[data-testid=toolbar-toggle]`),
		chromedp.Evaluate(`document.querySelector("[data-testid=add-row]").offsetParent !== null`, &after),
	)
	if err != nil || before || !after {
		t.Errorf("the phone's toolbar: shown before the tap %v, after %v (%v)", before, after, err)
	}
	// On a 1,366 px screen the German toolbar stays on one line.
	var rows int
	err = chromedp.Run(ctx,
		chromedp.EmulateViewport(1366, 768),
		chromedp.Evaluate(`document.cookie = "lang=de; path=/"`, nil),
		chromedp.Navigate(base+"/space/"+spaceID+"/sheet/"+sheetID),
		chromedp.WaitVisible(`[data-testid=grid-toolbar]`),
		chromedp.Evaluate(`new Set(Array.from(document.querySelectorAll("[data-testid=grid-toolbar] > *"), (el) => Math.round(el.getBoundingClientRect().top))).size`, &rows),
		webtest.Shot("toolbar-de-1366", &buf),
	)
	if err != nil || rows != 1 {
		t.Errorf("the German toolbar at 1,366 px takes %d lines (%v)", rows, err)
	}
}
