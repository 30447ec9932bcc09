package web_test

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/chromedp/chromedp"

	"github.com/sluice/sluice/blobs"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/jobs"
)

func TestBrowserLoginAndCreateSpace(t *testing.T) {
	e := webtest.NewAPI(t)
	ctx := webtest.Browser(t)
	base := webtest.Serve(t, e)
	// The built-in worker runs extraction jobs, as cmd/sluice starts it.
	svc := jobs.New(e.DB, e.DB)
	worker := jobs.NewWorker(svc, 100*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	worker.Handle("file:"+ingest.Operation, (&ingest.Service{DB: e.DB, Jobs: svc, Blobs: blobs.For(e.DB, e.FilesDir)}).Handle)
	worker.Start()
	t.Cleanup(worker.Stop)
	csv := filepath.Join(t.TempDir(), "customers.csv")
	if err := os.WriteFile(csv, []byte("Customer export\n\nName;E-mail;City\nZoë Müller;zoe@example.com;Köln\nAda King;ada@example.com;London\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Q2 vendors"})
	old := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Legacy CRM export"})
	e.MustCall(t, "POST", "/v1/spaces/"+old["id"].(string)+"/archive", webtest.Secret, nil)

	var buf []byte
	var rows, wrong, title, files, grid string
	err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(`[data-testid=login-form]`),
		webtest.Shot("01-login", &buf),
		chromedp.SendKeys(`[data-testid=login-email]`, webtest.Email),
		chromedp.SendKeys(`[data-testid=login-password]`, "wrong password"),
		chromedp.Click(`[data-testid=login-submit]`),
		chromedp.WaitVisible(`[data-testid=login-error]`),
		chromedp.Text(`[data-testid=login-error]`, &wrong),
		chromedp.SetValue(`[data-testid=login-password]`, webtest.Password),
		chromedp.Click(`[data-testid=login-submit]`),
		chromedp.WaitVisible(`[data-testid=create-space-form]`),
		webtest.HtmxReady(),
		chromedp.SendKeys(`[data-testid=space-name]`, "Customer import 2026"),
		chromedp.Click(`[data-testid=create-space]`),
		chromedp.WaitVisible(`//a[@data-testid="space-link" and contains(., "Customer import 2026")]`),
		chromedp.Click(`[data-testid=show-archived]`),
		chromedp.WaitVisible(`[data-testid=archived-badge]`),
		chromedp.Text(`[data-testid=spaces-table]`, &rows),
		webtest.Shot("02-spaces", &buf),
		chromedp.Click(`//a[@data-testid="space-link" and contains(., "Customer import 2026")]`),
		chromedp.WaitVisible(`[data-testid=space-title]`),
		chromedp.Text(`[data-testid=space-title]`, &title),
		webtest.HtmxReady(),
		chromedp.SetUploadFiles(`[data-testid=upload-file]`, []string{csv}), // choosing a file sends it
		webtest.Step(t, "uploaded"),
		chromedp.WaitVisible(`//span[@data-testid="file-status" and @data-status="complete"]`),
		webtest.Step(t, "extracted"),
		chromedp.Text(`[data-testid=files]`, &files),
		chromedp.Reload(),
		chromedp.WaitVisible(`[data-testid=sheet-link]`),
		webtest.Step(t, "space page reloaded"),
		webtest.Shot("03-space", &buf),
		chromedp.Click(`[data-testid=sheet-link]`),
		chromedp.WaitVisible(`[data-testid=grid]`),
		chromedp.Text(`[data-testid=grid]`, &grid),
		webtest.Step(t, "grid shown"),
		// Editing cells is covered through its htmx endpoints in TestSheetGridPage: a synthetic
		// double click here was lost now and then.
		webtest.Shot("04-sheet", &buf),
	)
	if err != nil {
		var jobsSeen []string
		for _, j := range webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?pageSize=100", webtest.Secret, nil)) {
			jm := j.(map[string]any)
			jobsSeen = append(jobsSeen, fmt.Sprintf("%v:%v %v", jm["type"], jm["operation"], jm["status"]))
		}
		t.Fatalf("browser run: %v\nfiles: %v\njobs: %v", err, webtest.ListOf(e.MustCall(t, "GET", "/v1/files", webtest.Secret, nil)), jobsSeen)
	}
	if !strings.Contains(wrong, "do not match") {
		t.Errorf("got login error %q, want the wrong-credentials message", wrong)
	}
	for _, want := range []string{"Customer import 2026", "Q2 vendors", "Legacy CRM export"} {
		if !strings.Contains(rows, want) {
			t.Errorf("spaces table lacks %q: %q", want, rows)
		}
	}
	if !strings.Contains(files, "customers.csv") {
		t.Errorf("files section %q lacks the upload", files)
	}
	if !strings.Contains(grid, "Zoë Müller") || !strings.Contains(grid, "E-mail") {
		t.Errorf("grid %q lacks the extracted records", grid)
	}
	if title != "Customer import 2026" {
		t.Errorf("got space page title %q, want the new space", title)
	}
	list := webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces?search=Customer", webtest.Secret, nil))
	if len(list) != 1 {
		t.Fatalf("got %d spaces named Customer… over the API, want the one made in the browser", len(list))
	}
}
