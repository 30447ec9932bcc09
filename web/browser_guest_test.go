package web_test

import (
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/chromedp"
)

// TestBrowserGuestLink opens a guest link in a fresh browser, edits a record there, and finds
// the edit attributed to the guest in the admin's event log.
func TestBrowserGuestLink(t *testing.T) {
	e := webtest.NewAPI(t)
	base := webtest.Serve(t, e)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Partner data"})
	spaceID := sp["id"].(string)
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "Orders", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Orders", "fields": []any{
		map[string]any{"key": "order", "type": "string", "label": "Order"}, map[string]any{"key": "qty", "type": "number", "label": "Quantity"}}}}})
	sheet := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	e.MustCall(t, "POST", "/v1/sheets/"+sheet+"/records", webtest.Secret, []any{map[string]any{"order": map[string]any{"value": "A-1"}, "qty": map[string]any{"value": "many"}}})
	other := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Not for guests"})
	g := webtest.ListOf(e.MustCall(t, "POST", "/v1/guests", webtest.Secret, []any{map[string]any{"environmentId": e.EnvID, "email": "pat@partner.io", "name": "Pat",
		"spaces": []any{map[string]any{"id": spaceID}}}}))[0].(map[string]any)
	link := webtest.DataOf(e.MustCall(t, "GET", "/v1/guests/"+g["id"].(string)+"/token?spaceId="+spaceID, webtest.Secret, nil))["url"].(string)
	link = base + link[strings.Index(link, "/space/"):]

	var buf []byte
	var title, otherStatus string
	// One chromium at a time (a second one starting beside the first sometimes fails): the
	// guest's browser closes at the end of its subtest.
	t.Run("guest", func(t *testing.T) {
		guest := webtest.Browser(t)
		err := chromedp.Run(guest,
			chromedp.Navigate(link),
			chromedp.WaitVisible(`[data-testid=space-title]`),
			chromedp.Text(`[data-testid=space-title]`, &title),
			webtest.Shot("guest-01-space", &buf),
			webtest.Step(t, "guest on the space"),
			chromedp.Click(`[data-testid=sidebar-sheet]`),
			chromedp.WaitVisible(`[data-testid=grid]`),
			webtest.HtmxReady(),
			webtest.Step(t, "guest on the grid"),
			webtest.EditCell(t, `//td[@data-key="qty"]`, "12", `//td[@data-key="qty" and not(@data-level="error") and contains(., "12")]`),
			webtest.Shot("guest-02-edited", &buf),
			webtest.Step(t, "guest edited"),
			webtest.HtmxIdle(), // the edit's refresh of the counts lands before the page goes
			chromedp.Navigate(base+"/space/"+other["id"].(string)),
			chromedp.WaitVisible(`h1`),
			chromedp.Text(`h1`, &otherStatus),
		)
		if err != nil {
			t.Fatalf("guest browser: %v", err)
		}
	})
	if title != "Partner data" {
		t.Errorf("guest landed on %q", title)
	}
	if strings.Contains(otherStatus, "Not for guests") {
		t.Error("the guest opened another space")
	}

	admin := webtest.Browser(t)
	var actor string
	err := chromedp.Run(admin,
		webtest.LogIn(base),
		chromedp.WaitVisible(`[data-testid=admin-link]`),
		chromedp.Navigate(base+"/admin/events?topic=records:updated"),
		chromedp.WaitVisible(`[data-testid=event-row]`),
		chromedp.Text(`[data-testid=event-row] [data-testid=event-actor]`, &actor),
		webtest.Shot("guest-03-event-log", &buf),
	)
	if err != nil {
		t.Fatalf("admin browser: %v", err)
	}
	if actor != "Pat (guest)" {
		t.Errorf("the edit is attributed to %q, want the guest", actor)
	}
}
