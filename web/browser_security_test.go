package web_test

import (
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/chromedp"
)

// In a real browser, under the Content-Security-Policy: a user changes their password from
// the header link, sees the audit trail of that change, and the login page offers a reset.
func TestBrowserPasswordAndAudit(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	e.MustCall(t, "POST", "/v1/secrets", webtest.Secret, map[string]any{"name": "CRM token", "value": "never-shown", "environmentId": e.EnvID})
	var buf []byte
	var notice, audit, forgot string
	err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(`[data-testid=login-form]`),
		chromedp.SendKeys(`[data-testid=login-email]`, webtest.Email),
		chromedp.SendKeys(`[data-testid=login-password]`, webtest.Password),
		chromedp.Click(`[data-testid=login-submit]`),
		chromedp.WaitVisible(`[data-testid=create-space-form]`),
		chromedp.Click(`a[data-testid=user-email]`),
		chromedp.WaitVisible(`[data-testid=password-form]`),
		chromedp.SendKeys(`#current`, webtest.Password),
		chromedp.SendKeys(`#password`, "a much better passphrase"),
		chromedp.SendKeys(`#confirm`, "a much better passphrase"),
		webtest.Shot("sec-01-change-password", &buf),
		chromedp.Click(`[data-testid=password-submit]`),
		chromedp.WaitVisible(`[data-testid=password-notice]`),
		chromedp.Text(`[data-testid=password-notice]`, &notice),
		chromedp.Navigate(base+"/admin/audit"),
		chromedp.WaitVisible(`[data-testid=audit-log]`),
		chromedp.Text(`[data-testid=audit-log]`, &audit),
		webtest.Shot("sec-02-audit", &buf),
		chromedp.Navigate(base+"/password/forgot"),
		chromedp.WaitVisible(`[data-testid=password-form]`),
		chromedp.SendKeys(`#email`, webtest.Email),
		chromedp.Click(`[data-testid=password-submit]`),
		chromedp.WaitVisible(`[data-testid=password-notice]`),
		chromedp.Text(`[data-testid=password-notice]`, &forgot),
		webtest.Shot("sec-03-forgot", &buf),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notice, "was changed") {
		t.Errorf("after the change: %q", notice)
	}
	if !strings.Contains(audit, "POST /account/password") || !strings.Contains(audit, "POST /v1/secrets") || strings.Contains(audit, "never-shown") {
		t.Errorf("audit page: %q", audit)
	}
	if !strings.Contains(forgot, "link is on its way") {
		t.Errorf("forgot: %q", forgot)
	}
}
