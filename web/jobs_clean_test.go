package web_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/model"
)

// A built-in job that fails, is canceled or runs out of its time keeps none of the records it
// added; the records that were there before stay.
func TestBuiltInJobThatDoesNotCompleteKeepsNothing(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sheetID := e.MustCreateRecordSheet(t, `[{"key":"email","type":"string"}]`)
	e.MustInsertRecords(t, sheetID, "kept@x.io")
	w := jobs.NewWorker(jobs.New(e.DB, e.DB), 20*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	w.Budget, w.Watch = 1500*time.Millisecond, 20*time.Millisecond
	w.Handle("fails", func(ctx context.Context, j *model.Job) (string, error) {
		if err := webtest.AddRows(ctx, e, j, sheetID, 300); err != nil {
			return "", err
		}
		return "", errors.New("the source went away")
	})
	w.Handle("slow", func(ctx context.Context, j *model.Job) (string, error) {
		if err := webtest.AddRows(ctx, e, j, sheetID, 120); err != nil {
			return "", err
		}
		<-ctx.Done()
		return "", ctx.Err()
	})
	w.Start()
	t.Cleanup(w.Stop)
	count := func() int64 {
		c, err := e.DB.GetRecordCounts(t.Context(), "", sheetID)
		if err != nil {
			t.Fatal(err)
		}
		return c.Total
	}
	finished := func(id string) map[string]any {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			j := webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+id, webtest.Secret, nil))
			if s := j["status"]; s == "failed" || s == "canceled" || s == "complete" {
				return j
			}
		}
		t.Fatalf("job %s never finished", id)
		return nil
	}
	job := func(op string) string {
		return e.MustCreateJob(t, map[string]any{"type": "sheet", "operation": op, "source": sheetID, "trigger": "immediate"})["id"].(string)
	}

	j := finished(job("fails"))
	if msg := fmt.Sprint(j["outcome"]); j["status"] != "failed" || !strings.Contains(msg, "the source went away") || !strings.Contains(msg, "300 records it had added were removed") {
		t.Errorf("failed job: %v %s", j["status"], msg)
	}
	if n := count(); n != 1 {
		t.Fatalf("after the failed job the sheet holds %d records, want the 1 from before", n)
	}

	// Canceled through the API while it runs: it stops and takes its rows back.
	id := job("slow")
	for end := time.Now().Add(5 * time.Second); count() < 121 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
	}
	e.MustCall(t, "POST", "/v1/jobs/"+id+"/cancel", webtest.Secret, nil)
	if j := finished(id); j["status"] != "canceled" {
		t.Errorf("canceled job: %v", j["status"])
	}
	for end := time.Now().Add(5 * time.Second); count() != 1 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
	}
	if n := count(); n != 1 {
		t.Fatalf("after the canceled job the sheet holds %d records, want 1", n)
	}

	// Over its time budget.
	j = finished(job("slow"))
	if msg := fmt.Sprint(j["outcome"]); j["status"] != "failed" || !strings.Contains(msg, "Stopped after 1.5s") {
		t.Errorf("job over budget: %v %s", j["status"], msg)
	}
	if n := count(); n != 1 {
		t.Fatalf("after the job over budget the sheet holds %d records, want 1", n)
	}
}

// After a stop, a node's built-in jobs that were executing fail at once as interrupted, and
// take their records back; an agent's executing job is left to its agent. A job canceled
// before it could take its records back has them taken back too.
func TestRestartFailsInterruptedJobs(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sheetID := e.MustCreateRecordSheet(t, `[{"key":"email","type":"string"}]`)
	e.MustInsertRecords(t, sheetID, "kept@x.io")
	svc := jobs.New(e.DB, e.DB)
	ctx := t.Context()
	running := func(op string) *model.Job {
		id := e.MustCreateJob(t, map[string]any{"type": "sheet", "operation": op, "source": sheetID, "trigger": "immediate"})["id"].(string)
		j, err := svc.Ack(ctx, e.Account, id, jobs.WorkerActor, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	// Taken by this node's worker ("local"), as a restart finds it.
	interrupted, err := svc.Claim(ctx, e.Account, e.MustCreateJob(t, map[string]any{"type": "sheet", "operation": "import", "source": sheetID, "trigger": "immediate"})["id"].(string),
		jobs.WorkerActor, "local", "Accepted by Sluice")
	if err != nil {
		t.Fatal(err)
	}
	if err := webtest.AddRows(ctx, e, interrupted, sheetID, 200); err != nil {
		t.Fatal(err)
	}
	agents := running("agent-work")
	canceled := running("import")
	if err := webtest.AddRows(ctx, e, canceled, sheetID, 80); err != nil {
		t.Fatal(err)
	}
	e.MustCall(t, "POST", "/v1/jobs/"+canceled.ID+"/cancel", webtest.Secret, nil)

	// The server stops here; the next start recovers.
	w := jobs.NewWorker(svc, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if n, err := w.Recover(ctx); err != nil || n != 1 {
		t.Fatalf("recover: %d %v, want the one interrupted job", n, err)
	}
	j := webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+interrupted.ID, webtest.Secret, nil))
	if j["status"] != "failed" || !strings.Contains(fmt.Sprint(j["outcome"]), "Interrupted by a restart") {
		t.Errorf("interrupted job: %v %v", j["status"], j["outcome"])
	}
	if s := webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+agents.ID, webtest.Secret, nil))["status"]; s != "executing" {
		t.Errorf("the agent's job: %v, want still executing", s)
	}
	if c, _ := e.DB.GetRecordCounts(ctx, "", sheetID); c.Total != 1 {
		t.Errorf("after recovery the sheet holds %d records, want the 1 from before", c.Total)
	}
}

// The pool runs jobs side by side, fairly across spaces: while one space's long jobs fill a
// slot, another space's quick job takes the next one instead of waiting behind them.
func TestWorkerPoolIsFairAcrossSpaces(t *testing.T) {
	e := webtest.NewAPI(t)
	busy := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "busy"})["id"].(string)
	other := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "other"})["id"].(string)
	release := make(chan struct{})
	w := jobs.NewWorker(jobs.New(e.DB, e.DB), 20*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	w.Size = 2
	w.Handle("long", func(ctx context.Context, j *model.Job) (string, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return "done", nil
	})
	w.Handle("quick", func(ctx context.Context, j *model.Job) (string, error) { return "done", nil })
	var long []string
	for range 3 {
		long = append(long, e.MustCreateJob(t, map[string]any{"type": "space", "operation": "long", "source": busy, "trigger": "immediate"})["id"].(string))
	}
	quick := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "quick", "source": other, "trigger": "immediate"})["id"].(string)
	w.Start()
	t.Cleanup(func() { close(release); w.Stop() })
	status := func(id string) any {
		return webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+id, webtest.Secret, nil))["status"]
	}
	for end := time.Now().Add(5 * time.Second); status(quick) != "complete" && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
	}
	if s := status(quick); s != "complete" {
		t.Fatalf("the other space's quick job is %v while the busy space's jobs run, want complete", s)
	}
	executing := 0
	for end := time.Now().Add(5 * time.Second); executing != 2 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		executing = 0
		for _, id := range long {
			if status(id) == "executing" {
				executing++
			}
		}
	}
	if executing != 2 {
		t.Errorf("%d of the busy space's jobs run, want 2 (the pool's size, once the quick job is done)", executing)
	}
}

// A transform in place (keepRecordIds) that fails part way puts back the records it had
// already rewritten: here its second batch of 10,000 holds a value past the cell cap.
func TestInPlaceTransformThatFailsPutsRecordsBack(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "inplace"})["id"].(string)
	fields := []any{map[string]any{"key": "first", "type": "string"}, map[string]any{"key": "last", "type": "string"}, map[string]any{"key": "full", "type": "string"}}
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "p", "slug": "p", "fields": fields}}})
	sheetID := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	recs := make([]any, 0, 12_000)
	for i := range 12_000 {
		first := fmt.Sprintf("n%d", i)
		if i == 11_000 {
			first = strings.Repeat("x", 60)
		}
		recs = append(recs, map[string]any{"first": map[string]any{"value": first}, "last": map[string]any{"value": "L"}})
	}
	for i := 0; i < len(recs); i += 5000 {
		e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, recs[i:min(i+5000, len(recs))])
	}
	prog := webtest.DataOf(e.MustCall(t, "POST", "/v1/mapping", webtest.Secret, map[string]any{"source": map[string]any{"name": "p", "fields": fields},
		"destination": map[string]any{"name": "p", "fields": fields}, "rules": []any{map[string]any{"name": "join", "type": "concatenate",
			"config": map[string]any{"sourceFields": []string{"first", "last"}, "destinationField": "full"}}}}))
	set := e.DB.Settings()
	defer e.DB.Configure(set)
	set.Caps.CellLength = 50
	e.DB.Configure(set)
	job := e.MustCreateJob(t, map[string]any{"type": "workbook", "operation": "transform", "source": wb["id"], "destination": wb["id"], "trigger": "immediate",
		"config": map[string]any{"sourceSheetId": sheetID, "destinationSheetId": sheetID}, "input": map[string]any{"programId": prog["id"], "keepRecordIds": true}})
	j := e.WaitJob(t, job["id"].(string))
	out, _ := j["outcome"].(map[string]any)
	msg, _ := out["message"].(string)
	if j["status"] != "failed" || !strings.Contains(msg, "were put back as they were") || !strings.Contains(msg, "SLUICE_MAX_CELL_LENGTH") {
		t.Fatalf("the transform: %v %q", j["status"], msg)
	}
	full := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records?searchField=full&searchValue=L&pageSize=5", webtest.Secret, nil))
	if len(full) != 0 {
		t.Fatalf("after the failed transform %d+ records keep the value it wrote, e.g. %v", len(full), full[0]["values"])
	}
}
