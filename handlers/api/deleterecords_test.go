package api_test

import (
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/store/recordset"
)

func TestDeleteRecordsJob(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	_, sh := e.MustCreateSheet(t, sp["id"].(string))
	e.MustInsertRecords(t, sh, "a@x.test", "", "b@x.test", "") // two invalid (email required)
	svc := jobs.New(e.DB, e.DB)
	worker := jobs.NewWorker(svc, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	worker.Handle(jobs.OpDeleteRecords, jobs.DeleteRecords(e.DB))
	count := func() int64 {
		c, err := e.DB.GetRecordCounts(t.Context(), "", sh)
		if err != nil {
			t.Fatal(err)
		}
		return c.Total
	}
	run := func(config map[string]any) map[string]any {
		t.Helper()
		j := e.MustCreateJob(t, map[string]any{"type": "sheet", "operation": "delete-records", "source": sh, "trigger": "immediate", "config": config})
		if n, err := worker.RunOnce(t.Context()); err != nil || n != 1 {
			t.Fatalf("worker: got %d %v, want one job run", n, err)
		}
		return webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+j["id"].(string), webtest.Secret, nil))
	}
	// The default filter (none) selects nothing.
	if j := run(map[string]any{"sheet": sh}); j["status"] != "complete" || count() != 4 {
		t.Fatalf("filter none: got %v with %d records, want complete and 4 records", j["status"], count())
	}
	j := run(map[string]any{"sheet": sh, "filter": "error", "filterField": "email"})
	if j["status"] != "complete" || !strings.Contains(j["outcome"].(map[string]any)["message"].(string), "Deleted 2 records") || count() != 2 {
		t.Fatalf("filter error: got %v, %d records left, want 2 deleted", j, count())
	}
	recs, _, err := e.DB.GetRecords(t.Context(), "", sh, recordset.RecordQuery{Page: webtest.PageOf(10)}, false)
	if err != nil {
		t.Fatal(err)
	}
	keep := recs[0].ID
	j = run(map[string]any{"sheet": sh, "filter": "all", "exceptions": []string{keep}})
	if j["status"] != "complete" || count() != 1 {
		t.Fatalf("filter all with an exception: got %v, %d records left, want 1", j["status"], count())
	}
	want := []string{"job:created", "job:ready", "job:updated", "job:completed"}
	if got := webtest.TopicsOf(e.JobEvents(t, j["id"].(string))); !slices.Equal(got, want) {
		t.Fatalf("got events %v, want %v", got, want)
	}
	// A bad query fails the job with the reason.
	j = run(map[string]any{"sheet": sh, "q": "email eq"})
	if j["status"] != "failed" || j["outcome"].(map[string]any)["message"] == "" {
		t.Fatalf("bad q: got %v, want failed with a message", j)
	}
}
