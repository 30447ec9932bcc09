package webtest

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/sluice/sluice/blobs"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/jobs"
)

// StartWorker runs the built-in jobs a page test needs (extraction, map), as cmd/sluice does.
func StartWorker(t *testing.T, e *Env) {
	t.Helper()
	svc := jobs.New(e.DB, e.DB)
	worker := jobs.NewWorker(svc, 50*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	files := &ingest.Service{DB: e.DB, Jobs: svc, Blobs: blobs.For(e.DB, e.FilesDir)}
	worker.Handle("file:"+ingest.Operation, files.Handle)
	worker.HandleOutcome("workbook:"+ingest.MapOperation, files.Map)
	worker.HandleOutcome("workbook:transform", files.Map)
	worker.HandleOutcome("workbook:"+ingest.ExportOperation, files.Export)
	submit := &ingest.Submitter{Files: files, Client: &http.Client{Timeout: 10 * time.Second}} // tests' receivers listen on loopback
	worker.HandleOutcome("workbook:"+ingest.SubmitOperation, submit.Submit)
	worker.Start()
	t.Cleanup(worker.Stop)
}

// Upload sends a file to a space over the API and returns its id.
func (e *Env) Upload(t *testing.T, spaceID, name, content string) string {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("spaceId", spaceID)
	fw, _ := w.CreateFormFile("file", name)
	_, _ = fw.Write([]byte(content))
	_ = w.Close()
	req := httptest.NewRequest("POST", "/v1/files", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+Secret)
	resp, err := e.App.Test(req, -1)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("upload: %v %v", err, resp)
	}
	var out struct{ Data struct{ ID string } }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Data.ID
}

// MustUpload sends a file to a space over the API and waits for its extraction.
func (e *Env) MustUpload(t *testing.T, spaceID, name, content string) map[string]any {
	t.Helper()
	return e.WaitSettled(t, "/v1/files/"+e.Upload(t, spaceID, name, content), 200)
}

// RunImport posts the wizard's form and follows the job's progress panel until it lands.
func RunImport(t *testing.T, b *BrowserSession, href string, form url.Values) {
	t.Helper()
	resp, part := b.Do(t, "POST", href, form, true)
	progress, _ := part.Find(`[data-testid=job-progress]`).Attr("hx-get")
	if resp.StatusCode != 200 || progress == "" {
		t.Fatalf("run: %d %q", resp.StatusCode, part.Text())
	}
	for range 400 {
		resp, part = b.Do(t, "GET", progress, nil, true)
		if resp.Header.Get("HX-Redirect") != "" {
			return
		}
		if st, _ := part.Find(`[data-testid=job-progress]`).Attr("data-status"); st == "failed" {
			t.Fatalf("map job failed: %s", part.Text())
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatal("the import did not finish")
}
