package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/web"
	"github.com/sluice/sluice/web/webtest"

	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
)

// A replayed request with the same Idempotency-Key gets the first answer and writes nothing
// again: record inserts, updates, job creation and errors alike.
func TestIdempotencyKeyReplaysTheFirstAnswer(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sheetID := e.MustCreateRecordSheet(t, `[{"key":"email","type":"string"}]`)
	path := "/v1/sheets/" + sheetID + "/records"
	body := `[{"email":{"value":"a@x.io"}},{"email":{"value":"b@x.io"}}]`
	st1, first, re1 := e.SendKeyed(t, "POST", path, "insert-1", webtest.Secret, body)
	st2, second, re2 := e.SendKeyed(t, "POST", path, "insert-1", webtest.Secret, body)
	if st1 != 200 || st2 != 200 || re1 || !re2 || first != second {
		t.Fatalf("replay: %d %v / %d %v, same body %v", st1, re1, st2, re2, first == second)
	}
	if n := e.CountRecords(t, sheetID); n != 2 {
		t.Fatalf("after a replayed insert the sheet holds %d records, want 2", n)
	}
	// Another key, or no key, writes again.
	if st, _, re := e.SendKeyed(t, "POST", path, "insert-2", webtest.Secret, body); st != 200 || re {
		t.Fatalf("a new key: %d replayed=%v", st, re)
	}
	if n := e.CountRecords(t, sheetID); n != 4 {
		t.Fatalf("a new key: %d records, want 4", n)
	}
	// The same key for a different request is refused, naming the first.
	st, msg, _ := e.SendKeyed(t, "POST", path, "insert-1", webtest.Secret, `[{"email":{"value":"c@x.io"}}]`)
	if st != http.StatusBadRequest || !strings.Contains(msg, "used within the last 24 hours for a different request (POST "+path+")") {
		t.Fatalf("same key, other body: %d %s", st, msg)
	}
	// An error answer is replayed too (the first request wrote nothing).
	st1, first, _ = e.SendKeyed(t, "POST", path, "bad-1", webtest.Secret, `[{"nope":{"value":1}}]`)
	st2, second, re2 = e.SendKeyed(t, "POST", path, "bad-1", webtest.Secret, `[{"nope":{"value":1}}]`)
	if st1 != 400 || st2 != 400 || !re2 || first != second {
		t.Fatalf("a refused write: %d / %d replayed=%v", st1, st2, re2)
	}
	// Job creation.
	job := `{"type":"workbook","operation":"export","source":"us_wb_` + spaceID[6:] + `"}`
	st1, first, _ = e.SendKeyed(t, "POST", "/v1/jobs", "job-1", webtest.Secret, job)
	st2, second, re2 = e.SendKeyed(t, "POST", "/v1/jobs", "job-1", webtest.Secret, job)
	if st1 != 200 || !re2 || first != second {
		t.Fatalf("job creation: %d %s / %d replayed=%v", st1, first, st2, re2)
	}
	jobs := webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?spaceId="+spaceID, webtest.Secret, nil))
	if len(jobs) != 1 {
		t.Fatalf("two keyed job creations made %d jobs", len(jobs))
	}
	// Keys belong to their principal: the space's own token with the same key writes.
	sp := webtest.DataOf(e.MustCall(t, "GET", "/v1/spaces/"+spaceID, webtest.Secret, nil))
	if st, _, re := e.SendKeyed(t, "POST", path, "insert-1", sp["accessToken"].(string), body); st != 200 || re {
		t.Fatalf("another principal's key: %d replayed=%v", st, re)
	}
	if st, msg, _ := e.SendKeyed(t, "POST", path, "bad key", webtest.Secret, body); st != 400 || !strings.Contains(msg, "visible ASCII") {
		t.Fatalf("a key with a space: %d %s", st, msg)
	}
}

// An upload sent twice with one key makes one file.
func TestIdempotentUpload(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "up"})["id"].(string)
	send := func() (int, string, bool) {
		var body bytes.Buffer
		w := multipart.NewWriter(&body) // a new boundary each time, as a client's retry would
		_ = w.WriteField("spaceId", spaceID)
		fw, _ := w.CreateFormFile("file", "a.csv")
		_, _ = fw.Write([]byte("email\na@x.io\n"))
		_ = w.Close()
		req := httptest.NewRequest("POST", "/v1/files", &body)
		req.Header.Set("Content-Type", w.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+webtest.Secret)
		req.Header.Set("Idempotency-Key", "upload-1")
		resp, err := e.App.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header.Get("Idempotent-Replayed") == "true"
	}
	st1, first, _ := send()
	st2, second, re := send()
	if st1 != 200 || st2 != 200 || !re || first != second {
		t.Fatalf("upload replay: %d / %d replayed=%v", st1, st2, re)
	}
	if files := webtest.ListOf(e.MustCall(t, "GET", "/v1/files?spaceId="+spaceID, webtest.Secret, nil)); len(files) != 1 {
		t.Fatalf("two keyed uploads made %d files", len(files))
	}
}

// A key whose request wrote but whose process stopped before answering is not carried out
// again; one whose process stopped before writing runs afresh.
func TestIdempotencyAfterACrash(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sheetID := e.MustCreateRecordSheet(t, `[{"key":"email","type":"string"}]`)
	path := "/v1/sheets/" + sheetID + "/records"
	body := `[{"email":{"value":"a@x.io"}}]`

	// The write transaction marks the key: what a crash right after the commit leaves.
	if _, err := e.DB.ClaimIdempotencyKey(t.Context(), "row-1", "x", store.NewProcess("gone-node"), time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(t.Context(), store.IdempotencyContextKey, &store.IdemKey{ID: "row-1"}) //nolint:staticcheck // the key fasthttp's user values share
	in := []recordset.RecordIn{{Values: map[string]recordset.CellIn{"email": {Value: json.RawMessage(`"z@x.io"`), HasValue: true}}}}
	if _, err := e.DB.InsertRecords(ctx, sheetID, in, recordset.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	claim, err := e.DB.ClaimIdempotencyKey(t.Context(), "row-1", "x", store.NewProcess("new-node"), time.Now())
	if err != nil || claim.State != store.IdemLost {
		t.Fatalf("a key written under a stopped process: %+v %v, want lost", claim, err)
	}

	// Through HTTP: find the row the middleware made, and leave it as a crash would.
	if st, _, _ := e.SendKeyed(t, "POST", path, "crash-1", webtest.Secret, body); st != 200 {
		t.Fatal(st)
	}
	if err := e.DB.ExecForTest(t.Context(), `UPDATE idempotency_keys SET status = NULL, node = 'gone', committed = 1 WHERE fingerprint LIKE 'POST %'`); err != nil {
		t.Fatal(err)
	}
	st, msg, _ := e.SendKeyed(t, "POST", path, "crash-1", webtest.Secret, body)
	if st != http.StatusConflict || !strings.Contains(msg, "was carried out, but the server stopped before answering") {
		t.Fatalf("retry of a write whose answer was lost: %d %s", st, msg)
	}
	n := e.CountRecords(t, sheetID)
	if err := e.DB.ExecForTest(t.Context(), `UPDATE idempotency_keys SET committed = 0 WHERE fingerprint LIKE 'POST %'`); err != nil {
		t.Fatal(err)
	}
	if st, _, re := e.SendKeyed(t, "POST", path, "crash-1", webtest.Secret, body); st != 200 || re {
		t.Fatalf("retry of a request that never wrote: %d replayed=%v", st, re)
	}
	if got := e.CountRecords(t, sheetID); got != n+1 {
		t.Fatalf("the retried request wrote %d records, want 1", got-n)
	}
}

// POST and PUT of records render their answer inside the write, which keeps it with the key
// it claims in its commit: a server that stops right after that commit leaves the answer,
// not a key a retry can only be told was carried out (TestIdempotencyAfterACrash).
func TestIdempotentWriteKeepsItsAnswer(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sheetID := e.MustCreateRecordSheet(t, `[{"key":"email","type":"string"}]`)
	owner := store.NewProcess("stopped-node")
	for _, update := range []bool{false, true} {
		key := &store.IdemKey{ID: "row-answer-" + map[bool]string{false: "post", true: "put"}[update], Fingerprint: "x", Owner: owner.String(), InWrite: true}
		ctx := context.WithValue(t.Context(), store.IdempotencyContextKey, key) //nolint:staticcheck // the key fasthttp's user values share
		opt := recordset.WriteOptions{Answer: func(res *recordset.WriteResult) ([]byte, error) {
			return []byte(`{"data":{"versionId":"` + res.VersionID + `"}}`), nil
		}}
		in := []recordset.RecordIn{{Values: map[string]recordset.CellIn{"email": {Value: json.RawMessage(`"z@x.io"`), HasValue: true}}}}
		var res *recordset.WriteResult
		var err error
		if update {
			in[0].ID = webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", webtest.Secret, nil))[0]["id"].(string)
			res, err = e.DB.UpdateRecords(ctx, sheetID, in, opt)
		} else {
			res, err = e.DB.InsertRecords(ctx, sheetID, in, opt)
		}
		if err != nil || !key.Claimed() || !key.Answered() {
			t.Fatalf("update %v: %v, claimed %v, answered %v", update, err, key.Claimed(), key.Answered())
		}
		// (the server stops here: nothing after the write keeps the answer)
		claim, err := e.DB.ClaimIdempotencyKey(t.Context(), key.ID, "x", store.NewProcess("new-node"), time.Now())
		if err != nil || claim.State != store.IdemDone || claim.Status != 200 || string(claim.Body) != `{"data":{"versionId":"`+res.VersionID+`"}}` {
			t.Fatalf("update %v: a retry finds %+v (%v), want the answer kept", update, claim, err)
		}
	}
}

// A key in flight on another node is busy while that node runs: a retry sent here neither
// writes again nor is told the server stopped. Once that node's process is gone (the node
// started again as a new process, or fell silent past the timeout), a retry of a request that
// wrote is told so, and one that wrote nothing runs.
func TestIdempotencyKeyInFlightOnAnotherNode(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sheetID := e.MustCreateRecordSheet(t, `[{"key":"email","type":"string"}]`)
	path := "/v1/sheets/" + sheetID + "/records"
	body := `[{"email":{"value":"a@x.io"}}]`
	if st, _, _ := e.SendKeyed(t, "POST", path, "other-1", webtest.Secret, body); st != 200 {
		t.Fatal(st)
	}
	// The key as node-b's running request leaves it: claimed under its process, written.
	inFlight := func(committed int) {
		t.Helper()
		if err := e.DB.ExecForTest(t.Context(), `UPDATE idempotency_keys SET status = NULL, node = 'node-b/run-1', committed = ? WHERE fingerprint LIKE 'POST %'`, committed); err != nil {
			t.Fatal(err)
		}
	}
	beat := func(run string, at time.Time) {
		t.Helper()
		if err := e.DB.ExecForTest(t.Context(), `INSERT INTO nodes (id, started_at, seen_at, process) VALUES ('node-b', 0, ?, ?)
			ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, process = excluded.process`, at.UnixMilli(), run); err != nil {
			t.Fatal(err)
		}
	}
	beat("run-1", e.DB.Now())
	n := e.CountRecords(t, sheetID)
	for _, committed := range []int{1, 0} {
		inFlight(committed)
		st, msg, _ := e.SendKeyed(t, "POST", path, "other-1", webtest.Secret, body)
		if st != http.StatusConflict || !strings.Contains(msg, "still being carried out") {
			t.Fatalf("retry while node-b runs the request (written: %d): %d %s", committed, st, msg)
		}
	}
	if got := e.CountRecords(t, sheetID); got != n {
		t.Fatalf("a retry wrote %d records while the first request ran elsewhere", got-n)
	}
	// node-b started again: its old run's keys are abandoned at once.
	inFlight(1)
	beat("run-2", e.DB.Now())
	if st, msg, _ := e.SendKeyed(t, "POST", path, "other-1", webtest.Secret, body); st != http.StatusConflict || !strings.Contains(msg, "server stopped before answering") {
		t.Fatalf("retry after node-b restarted: %d %s", st, msg)
	}
	// node-b silent past the timeout: a request that wrote nothing runs.
	inFlight(0)
	beat("run-1", e.DB.Now().Add(-time.Hour))
	if st, _, re := e.SendKeyed(t, "POST", path, "other-1", webtest.Secret, body); st != 200 || re {
		t.Fatalf("retry after node-b fell silent: %d replayed=%v", st, re)
	}
	if got := e.CountRecords(t, sheetID); got != n+1 {
		t.Fatalf("the retried request wrote %d records, want 1", got-n)
	}
}

// Many sends of one key at once, on two nodes, write once: each answer is the first
// request's (200, or its replay) or "still being carried out" (409), never a second write.
// The claims run beside other writes, so it is the key's row that decides.
func TestIdempotencyKeyClaimedOnceUnderConcurrency(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sheetID := e.MustCreateRecordSheet(t, `[{"key":"email","type":"string"}]`)
	sealer, _ := auth.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	var apps []*fiber.App
	for _, node := range []string{"node-a", "node-b"} {
		if err := e.DB.Heartbeat(t.Context(), node, "run-1"); err != nil {
			t.Fatal(err)
		}
		e.Tune = func(d *web.Deps) { d.Process, d.NodeTimeout = store.Process{Node: node, Run: "run-1"}, time.Minute }
		apps = append(apps, e.NewApp(sealer))
	}
	e.Tune = nil
	path := "/v1/sheets/" + sheetID + "/records"
	codes := make([]int, 16)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("POST", path, strings.NewReader(`[{"email":{"value":"once@x.io"}}]`))
			req.Header.Set("Authorization", "Bearer "+webtest.Secret)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "at-once")
			resp, err := apps[i%2].Test(req, -1)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK && c != http.StatusConflict {
			t.Errorf("send %d: %d, want 200 or 409", i, c)
		}
	}
	if n := e.CountRecords(t, sheetID); n != 1 {
		t.Fatalf("%d records written by %v, want 1", n, codes)
	}
}

// A key past its 24 hours is a new request's, whether the write claims it (a sheet's records)
// or its request wrote nothing and only its answer was kept; and an update of records sent
// twice with one key changes the records once.
func TestIdempotencyKeyPastTheWindowRunsAgain(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sheetID := e.MustCreateRecordSheet(t, `[{"key":"email","type":"string"}]`)
	path := "/v1/sheets/" + sheetID + "/records"
	body := `[{"email":{"value":"a@x.io"}}]`
	age := func() {
		t.Helper()
		if err := e.DB.ExecForTest(t.Context(), `UPDATE idempotency_keys SET created_at = ?`, e.DB.Now().Add(-store.IdempotencyWindow-time.Minute).UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []bool{false, true} {
		if st, _, re := e.SendKeyed(t, "POST", path, "old-1", webtest.Secret, body); st != 200 || re != want {
			t.Fatalf("send %d: %d replayed=%v", i, st, re)
		}
	}
	age()
	if st, _, re := e.SendKeyed(t, "POST", path, "old-1", webtest.Secret, body); st != 200 || re {
		t.Fatalf("a key past the window: %d replayed=%v", st, re)
	}
	if n := e.CountRecords(t, sheetID); n != 2 {
		t.Fatalf("%d records, want 2 (one per window)", n)
	}
	bad := `[{"nope":{"value":1}}]`
	if st, _, _ := e.SendKeyed(t, "POST", path, "old-2", webtest.Secret, bad); st != 400 {
		t.Fatal(st)
	}
	age()
	if st, _, re := e.SendKeyed(t, "POST", path, "old-2", webtest.Secret, body); st != 200 || re {
		t.Fatalf("a kept error past the window, used for another request: %d replayed=%v", st, re)
	}

	id := webtest.RecordsOf(t, e.MustCall(t, "GET", path, webtest.Secret, nil))[0]["id"].(string)
	upd := `[{"id":"` + id + `","values":{"email":{"value":"b@x.io"}}}]`
	st1, first, re1 := e.SendKeyed(t, "PUT", path, "upd-1", webtest.Secret, upd)
	st2, second, re2 := e.SendKeyed(t, "PUT", path, "upd-1", webtest.Secret, upd)
	if st1 != 200 || st2 != 200 || re1 || !re2 || first != second {
		t.Fatalf("update replay: %d %v / %d %v", st1, re1, st2, re2)
	}
	var versions int
	if err := e.DB.Reader.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM record_versions`).Scan(&versions); err != nil {
		t.Fatal(err)
	}
	if versions != 4 { // three inserts and one update
		t.Fatalf("%d record versions, want 4", versions)
	}
}
