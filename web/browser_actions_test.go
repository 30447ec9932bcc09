package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/chromedp"
)

// TestBrowserAction runs a workbook action with a guardrail and an input form in chromium:
// the dialog, the blocking overlay while an agent works, and the outcome with its next step.
func TestBrowserAction(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Quarterly payouts"})
	spaceID := sp["id"].(string)
	wb, sheet := e.MustCreateSheet(t, spaceID)
	e.MustInsertRecords(t, sheet, "a@x.io", "b@x.io")
	e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, map[string]any{"targetId": wb, "label": "Send to ERP", "operation": "send",
		"mode": "foreground", "primary": true, "constraints": []any{map[string]any{"type": "hasAllValid"}},
		"guide":     map[string]any{"content": "Sends every record to the ERP."},
		"guardrail": map[string]any{"content": "Records sent cannot be recalled."},
		"inputForm": map[string]any{"type": "simple", "fields": []any{
			map[string]any{"key": "batch", "label": "Batch name", "type": "string", "constraints": []any{map[string]any{"type": "required"}}},
			map[string]any{"key": "target", "label": "Ledger", "type": "enum", "defaultValue": "eu", "config": map[string]any{"options": []any{
				map[string]any{"value": "eu", "label": "Europe"}, map[string]any{"value": "us", "label": "Americas"}}}},
		}}})
	// The agent: once the job appears, it acknowledges and completes it with a next step.
	done := make(chan string, 1)
	go func() {
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			status, out := e.Call(t, "GET", "/v1/jobs?spaceId="+spaceID, webtest.Secret, nil)
			if status == 200 {
				for _, j := range webtest.ListOf(out) {
					jm := j.(map[string]any)
					if jm["operation"] == "send" && jm["status"] == "ready" {
						time.Sleep(700 * time.Millisecond) // long enough to see the overlay
						e.Call(t, "POST", "/v1/jobs/"+jm["id"].(string)+"/ack", webtest.Secret, map[string]any{"info": "Sending", "progress": 50})
						time.Sleep(700 * time.Millisecond)
						e.Call(t, "POST", "/v1/jobs/"+jm["id"].(string)+"/complete", webtest.Secret, map[string]any{"outcome": map[string]any{
							"message": "Sent 2 records to the Europe ledger", "next": map[string]any{"type": "id", "id": sheet, "label": "Review records"}}})
						done <- jm["input"].(map[string]any)["batch"].(string)
						return
					}
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		close(done)
	}()
	var buf []byte
	var outcome, href string
	var flashHidden bool
	err := chromedp.Run(ctx,
		webtest.LogIn(base),
		chromedp.Navigate(base+"/space/"+spaceID),
		chromedp.WaitVisible(`[data-testid=action-button][data-operation=send]`),
		webtest.HtmxReady(),
		chromedp.Click(`[data-testid=action-button][data-operation=send]`),

		chromedp.WaitVisible(`[data-testid=action-guardrail]`),
		webtest.Step(t, "dialog open"),
		chromedp.Evaluate(`document.getElementById("flash").hidden`, &flashHidden),
		chromedp.SendKeys(`input[name="in.batch"]`, "Q3 payouts"),
		webtest.Shot("08-action-dialog", &buf),
		chromedp.Click(`dialog[open] [data-testid=action-confirm]`),
		chromedp.WaitVisible(`[data-testid=job-overlay]`),
		webtest.Step(t, "overlay"),
		webtest.Shot("09-action-running", &buf),
		chromedp.WaitVisible(`[data-testid=job-outcome]`),
		chromedp.Text(`[data-testid=job-outcome]`, &outcome),
		chromedp.AttributeValue(`[data-testid=job-next] a`, "href", &href, nil),
		webtest.Shot("10-action-outcome", &buf),
		chromedp.Click(`[data-testid=job-next] a`),
		chromedp.WaitVisible(`[data-testid=grid]`),
	)
	if err != nil {
		t.Fatalf("browser run: %v", err)
	}
	if !flashHidden {
		t.Error("opening the dialog showed an error: the button posted the action itself")
	}
	if batch := <-done; batch != "Q3 payouts" {
		t.Errorf("the job got batch %q, want the value typed in the dialog", batch)
	}
	if !strings.Contains(outcome, "Sent 2 records") || href != "/space/"+spaceID+"/sheet/"+sheet {
		t.Errorf("outcome %q, next %q", outcome, href)
	}
}
