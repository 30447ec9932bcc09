package webtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

const Chromium = "/usr/bin/chromium"

// Browser starts headless Debian chromium, or skips (fails under SLUICE_REQUIRE_BROWSER=1).
func Browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(Chromium); err != nil {
		if os.Getenv("SLUICE_REQUIRE_BROWSER") == "1" {
			t.Fatalf("chromium is required but missing at %s", Chromium)
		}
		t.Skipf("no chromium at %s", Chromium)
	}
	// Not t.TempDir: chromium may still be writing its profile while the test's cleanup runs.
	profile, err := os.MkdirTemp("", "sluice-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 860),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelC := context.WithTimeout(ctx, 90*time.Second)
	// Pages must run without JavaScript errors: uncaught exceptions, console.error and
	// Content-Security-Policy violations (the browser's log, source "security") fail the test.
	var mu sync.Mutex
	var jsErrors []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			jsErrors = append(jsErrors, ev.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value))
				}
				jsErrors = append(jsErrors, "console.error "+strings.Join(parts, " "))
			}
		case *cdplog.EventEntryAdded:
			if ev.Entry.Source == cdplog.SourceSecurity || strings.Contains(ev.Entry.Text, "Content Security Policy") {
				jsErrors = append(jsErrors, "CSP: "+ev.Entry.Text)
			}
		}
	})
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range jsErrors {
			if ExpectedBrowserError(e) {
				continue
			}
			t.Errorf("JavaScript error in the page: %s", e)
		}
	})
	t.Cleanup(func() {
		_ = chromedp.Cancel(ctx) // closes the browser and waits for it
		cancelC()
		cancelB()
		cancelA()
		_ = os.RemoveAll(profile)
	})
	if err := chromedp.Run(ctx, cdplog.Enable()); err != nil {
		t.Fatalf("browser: %v", err)
	}
	return ctx
}

// ExpectedBrowserErrors are parts of browser errors a test provokes on purpose (a frame its
// CSP refuses); set them only for that test.
var ExpectedBrowserErrors []string

func ExpectedBrowserError(msg string) bool {
	for _, part := range ExpectedBrowserErrors {
		if strings.Contains(msg, part) {
			return true
		}
	}
	return false
}

// Serve runs the app on a local port for a browser and returns its base address.
func Serve(t *testing.T, e *Env) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go e.App.Listener(ln)
	t.Cleanup(func() { _ = e.App.ShutdownWithTimeout(2 * time.Second) }) // a browser may hold a connection open
	return "http://" + ln.Addr().String()
}

// Step logs how far a browser run got, so a timeout says where it stopped.
func Step(t *testing.T, name string) chromedp.Action {
	return chromedp.ActionFunc(func(context.Context) error { t.Log("browser: " + name); return nil })
}

// HtmxIdle waits until no htmx request, swap or settle is under way (none of the page's
// elements carries htmx-request, htmx-swapping or htmx-settling) twice 50 ms apart. A
// navigation while a swap is pending makes htmx swap into a page that is going away, and
// content swapped in is wired up only as it settles: a click on a button that is already
// visible but not yet settled does nothing.
func HtmxIdle() chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for quiet := 0; quiet < 2; {
			var busy bool
			if err := chromedp.Evaluate(`document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling") !== null`, &busy).Do(ctx); err != nil {
				return err
			}
			if busy {
				quiet = 0
			} else {
				quiet++
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
		return nil
	})
}

// Settled waits until the page has laid itself out and painted twice, so that a click
// right after a change of viewport lands where the element now is.
func Settled() chromedp.Action {
	return chromedp.Evaluate(`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, nil,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })
}

// HtmxReady waits until the page has loaded and htmx has wired its elements, so a click is not
// lost on a page htmx has not processed yet.
func HtmxReady() chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for {
			var ok bool
			if err := chromedp.Evaluate(`document.readyState === "complete" && !!window.htmx`, &ok).Do(ctx); err != nil {
				return err
			}
			if ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// Shot saves a PNG screenshot (quality 100 makes chromedp write PNG) under SLUICE_SCREENSHOTS (default: the test's temp dir).
func Shot(name string, buf *[]byte) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if err := chromedp.FullScreenshot(buf, 100).Do(ctx); err != nil {
			return err
		}
		dir := os.Getenv("SLUICE_SCREENSHOTS")
		if dir == "" {
			return nil
		}
		_ = os.MkdirAll(dir, 0o755)
		return os.WriteFile(filepath.Join(dir, name+".png"), *buf, 0o644)
	})
}

// BrowserDiag gives a failed run a few more seconds to read the page for the failure message.
func BrowserDiag(ctx context.Context) context.Context {
	c, _ := chromedp.NewContext(ctx)
	return c
}

// AwaitPromise makes chromedp.Evaluate wait for a promise's value.
func AwaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

// EditCell edits a grid cell the way a keyboard user does: focus it, Enter opens the editor
// (which takes the focus), the text replaces the value, Enter saves. done is the XPath of the
// saved cell. When a step does not happen within 15 s the page's state is logged, so a
// failure says what the browser showed instead of only "deadline exceeded".
func EditCell(t *testing.T, cell, text, done string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		within := func(d time.Duration, what string, actions ...chromedp.Action) error {
			sctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			if err := chromedp.Run(sctx, actions...); err != nil {
				var active, row, trail string
				_ = chromedp.Run(ctx,
					chromedp.Evaluate(`JSON.stringify(window.__trail || ["page was reloaded: " + location.href + " " + performance.getEntriesByType("navigation")[0].type])`, &trail),
					chromedp.Evaluate(`document.activeElement ? document.activeElement.outerHTML.slice(0, 300) : "none"`, &active),
					chromedp.Evaluate(`(() => { const r = document.evaluate(`+"`"+cell+"`"+`, document, null, 9, null).singleNodeValue; return r ? r.parentElement.outerHTML.slice(0, 2000) : "no cell" })()`, &row))
				return fmt.Errorf("%s: %w\nactive element: %s\nrow: %s\ntrail: %s", what, err, active, row, trail)
			}
			return nil
		}
		if err := chromedp.Evaluate(`window.__trail = []; ["htmx:beforeRequest", "htmx:afterSwap", "keydown"].forEach(n => document.addEventListener(n, e => __trail.push(n + " " + (e.key || "") + " " + (e.target.tagName || "") + (e.target.dataset && e.target.dataset.testid || "") + " " + (e.detail && e.detail.pathInfo ? e.detail.requestConfig.verb + e.detail.pathInfo.requestPath : "") + " " + Math.round(performance.now()))))`, nil).Do(ctx); err != nil {
			return err
		}
		// The cell itself must have the focus: a save still settling moves it to the saved cell.
		focused := `document.activeElement === document.evaluate(` + "`" + cell + "`" + `, document, null, 9, null).singleNodeValue`
		if err := within(15*time.Second, "open the editor",
			chromedp.Poll(`!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping")`, nil),
			chromedp.Focus(cell),
			chromedp.Poll(focused, nil),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(`[data-testid=grid-cell-editing] [name=value]`),
			chromedp.Poll(`document.activeElement && document.activeElement.name === "value"`, nil)); err != nil {
			return err
		}
		return within(15*time.Second, "save the cell",
			chromedp.Evaluate(`document.activeElement.select && document.activeElement.select()`, nil),
			chromedp.KeyEvent(text),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(done))
	})
}
