package webtest

import (
	"github.com/chromedp/chromedp"
)

// LogIn signs the browser in as the test user.
func LogIn(base string) chromedp.Action {
	return chromedp.Tasks{
		chromedp.Navigate(base + "/login"),
		chromedp.WaitVisible(`[data-testid=login-form]`),
		chromedp.SendKeys(`[data-testid=login-email]`, Email),
		chromedp.SendKeys(`[data-testid=login-password]`, Password),
		chromedp.Click(`[data-testid=login-submit]`),
		chromedp.WaitVisible(`[data-testid=create-space-form]`),
	}
}
