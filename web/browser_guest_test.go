package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserGuestLink opens a guest link in a fresh browser, edits a record there, and finds
// the edit attributed to the guest in the admin's event log.
func TestBrowserGuestLink(t *testing.T) {
	e := newAPI(t)
	base := serve(t, e)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "Partner data"})
	spaceID := sp["id"].(string)
	wb := e.mustCreateWorkbook(t, map[string]any{"name": "Orders", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Orders", "fields": []any{
		map[string]any{"key": "order", "type": "string", "label": "Order"}, map[string]any{"key": "qty", "type": "number", "label": "Quantity"}}}}})
	sheet := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	e.mustCall(t, "POST", "/v1/sheets/"+sheet+"/records", testSecret, []any{map[string]any{"order": map[string]any{"value": "A-1"}, "qty": map[string]any{"value": "many"}}})
	other := e.mustCreateSpace(t, testSecret, map[string]any{"name": "Not for guests"})
	g := listOf(e.mustCall(t, "POST", "/v1/guests", testSecret, []any{map[string]any{"environmentId": e.envID, "email": "pat@partner.io", "name": "Pat",
		"spaces": []any{map[string]any{"id": spaceID}}}}))[0].(map[string]any)
	link := dataOf(e.mustCall(t, "GET", "/v1/guests/"+g["id"].(string)+"/token?spaceId="+spaceID, testSecret, nil))["url"].(string)
	link = base + link[strings.Index(link, "/space/"):]

	var buf []byte
	var title, otherStatus string
	// One chromium at a time (a second one starting beside the first sometimes fails): the
	// guest's browser closes at the end of its subtest.
	t.Run("guest", func(t *testing.T) {
		guest := browser(t)
		err := chromedp.Run(guest,
			chromedp.Navigate(link),
			chromedp.WaitVisible(`[data-testid=space-title]`),
			chromedp.Text(`[data-testid=space-title]`, &title),
			shot("guest-01-space", &buf),
			step(t, "guest on the space"),
			chromedp.Click(`[data-testid=sidebar-sheet]`),
			chromedp.WaitVisible(`[data-testid=grid]`),
			htmxReady(),
			step(t, "guest on the grid"),
			editCell(t, `//td[@data-key="qty"]`, "12", `//td[@data-key="qty" and not(@data-level="error") and contains(., "12")]`),
			shot("guest-02-edited", &buf),
			step(t, "guest edited"),
			htmxIdle(), // the edit's refresh of the counts lands before the page goes
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

	admin := browser(t)
	var actor string
	err := chromedp.Run(admin,
		logIn(base),
		chromedp.WaitVisible(`[data-testid=admin-link]`),
		chromedp.Navigate(base+"/admin/events?topic=records:updated"),
		chromedp.WaitVisible(`[data-testid=event-row]`),
		chromedp.Text(`[data-testid=event-row] [data-testid=event-actor]`, &actor),
		shot("guest-03-event-log", &buf),
	)
	if err != nil {
		t.Fatalf("admin browser: %v", err)
	}
	if actor != "Pat (guest)" {
		t.Errorf("the edit is attributed to %q, want the guest", actor)
	}
}
