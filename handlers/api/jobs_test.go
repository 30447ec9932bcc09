package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"
)

func TestJobLifecycle(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	j := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "export", "source": spaceID, "metadata": map[string]any{"k": "v"}})
	id := j["id"].(string)
	if !strings.HasPrefix(id, "us_jb_") || j["status"] != "created" || j["spaceId"] != spaceID || j["environmentId"] != e.EnvID || j["createdBy"] == "" {
		t.Fatalf("got %v, want a created job in the space", j)
	}
	e.MustCall(t, "POST", "/v1/jobs/"+id+"/execute", webtest.Secret, nil)
	if st, out := e.Call(t, "POST", "/v1/jobs/"+id+"/execute", webtest.Secret, nil); st != http.StatusConflict || !strings.Contains(out["errors"].([]any)[0].(map[string]any)["message"].(string), "ready") {
		t.Fatalf("second execute: got %d %v, want 409 naming ready", st, out)
	}
	e.Now = e.Now.Add(time.Second)
	got := webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs/"+id+"/ack", webtest.Secret, map[string]any{"info": "Accepted", "progress": 10,
		"estimatedCompletionAt": "2026-01-02T04:00:00.000Z"}))
	if got["status"] != "executing" || got["progress"] != 10.0 || got["info"] != "Accepted" || got["startedAt"] == nil || got["estimatedCompletionAt"] != "2026-01-02T04:00:00.000Z" {
		t.Fatalf("after ack: got %v", got)
	}
	e.MustCall(t, "POST", "/v1/jobs/"+id+"/ack", webtest.Secret, map[string]any{"progress": 60})
	if st, _ := e.Call(t, "POST", "/v1/jobs/"+id+"/ack", webtest.Secret, map[string]any{"progress": 101}); st != http.StatusBadRequest {
		t.Fatalf("progress 101: got %d, want 400", st)
	}
	if st, _ := e.Call(t, "POST", "/v1/jobs/"+id+"/outcome/ack", webtest.Secret, nil); st != http.StatusConflict {
		t.Fatalf("outcome ack while executing: got %d, want 409", st)
	}
	outcome := map[string]any{"acknowledge": true, "message": "Done", "heading": "Export", "buttonText": "Open",
		"trigger": map[string]any{"type": "automatic", "audience": "originator"},
		"next":    map[string]any{"type": "id", "id": "us_sh_1", "path": "/sheets", "query": "a=b", "label": "See"}}
	got = webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs/"+id+"/complete", webtest.Secret, map[string]any{"outcome": outcome, "info": "ok"}))
	if got["status"] != "complete" || got["progress"] != 100.0 || got["finishedAt"] == nil || got["outcome"].(map[string]any)["next"].(map[string]any)["path"] != "/sheets" {
		t.Fatalf("after complete: got %v", got)
	}
	st, out := e.Call(t, "POST", "/v1/jobs/"+id+"/fail", webtest.Secret, nil)
	if st != http.StatusConflict || !strings.Contains(webtest.ErrMsg(out), "from complete to failed") {
		t.Fatalf("fail after complete: got %d %v, want 409 naming complete and failed", st, out)
	}
	if st, _ := e.Call(t, "POST", "/v1/jobs/"+id+"/retry", webtest.Secret, nil); st != http.StatusConflict {
		t.Fatalf("retry of a complete job: got %d, want 409", st)
	}
	got = webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs/"+id+"/outcome/ack", webtest.Secret, nil))
	if got["outcomeAcknowledgedAt"] == nil {
		t.Fatalf("after outcome ack: got %v", got)
	}
	e.MustCall(t, "POST", "/v1/jobs/"+id+"/outcome/ack", webtest.Secret, nil) // twice: no second event
	want := []string{"job:created", "job:ready", "job:updated", "job:updated", "job:completed", "job:outcome-acknowledged"}
	evs := e.JobEvents(t, id)
	if !slices.Equal(webtest.TopicsOf(evs), want) {
		t.Fatalf("got events %v, want %v", webtest.TopicsOf(evs), want)
	}
	p := evs[4]["payload"].(map[string]any)
	if p["job"] != "space:export" || p["domain"] != "space" || p["operation"] != "export" || p["status"] != "complete" || p["isPart"] != false {
		t.Fatalf("job:completed payload: got %v", p)
	}
	c := evs[4]["context"].(map[string]any)
	if c["spaceId"] != spaceID || c["environmentId"] != e.EnvID || c["accountId"] == nil || c["actorId"] == nil {
		t.Fatalf("job:completed context: got %v", c)
	}
	e.MustCall(t, "DELETE", "/v1/jobs/"+id, webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", "/v1/jobs/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted job: got %d, want 404", st)
	}
	if got := e.Topics(t, "&topic=job:deleted"); len(got) != 1 {
		t.Fatalf("got %v, want one job:deleted", got)
	}
}

func TestJobFailRetryCancel(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	j := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "x", "source": sp["id"], "trigger": "immediate"})
	id := j["id"].(string)
	if j["status"] != "ready" {
		t.Fatalf("immediate trigger: got status %v, want ready", j["status"])
	}
	e.MustCall(t, "POST", "/v1/jobs/"+id+"/ack", webtest.Secret, nil)
	got := webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs/"+id+"/fail", webtest.Secret, map[string]any{"info": "boom",
		"outcome": map[string]any{"acknowledge": true, "message": "boom", "next": map[string]any{"type": "retry", "label": "Again"}}}))
	if got["status"] != "failed" || got["info"] != "boom" {
		t.Fatalf("after fail: got %v", got)
	}
	got = webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs/"+id+"/retry", webtest.Secret, nil))
	if got["status"] != "ready" || got["outcome"] != nil || got["progress"] != 0.0 || got["finishedAt"] != nil {
		t.Fatalf("after retry: got %v, want a fresh ready job", got)
	}
	got = webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs/"+id+"/cancel", webtest.Secret, map[string]any{"info": "stop"}))
	if got["status"] != "canceled" {
		t.Fatalf("after cancel: got %v", got)
	}
	if st, _ := e.Call(t, "POST", "/v1/jobs/"+id+"/ack", webtest.Secret, nil); st != http.StatusConflict {
		t.Fatalf("ack of a canceled job: got %d, want 409", st)
	}
	want := []string{"job:created", "job:ready", "job:updated", "job:failed", "job:ready", "job:updated"}
	if got := webtest.TopicsOf(e.JobEvents(t, id)); !slices.Equal(got, want) {
		t.Fatalf("got events %v, want %v", got, want)
	}
}

func TestJobPatch(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	id := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "map", "source": sp["id"]})["id"].(string)
	got := webtest.DataOf(e.MustCall(t, "PATCH", "/v1/jobs/"+id, webtest.Secret, map[string]any{"status": "planning", "info": "planning", "metadata": map[string]any{"a": 1}}))
	if got["status"] != "planning" || got["metadata"].(map[string]any)["a"] != 1.0 {
		t.Fatalf("got %v", got)
	}
	if st, out := e.Call(t, "PATCH", "/v1/jobs/"+id, webtest.Secret, map[string]any{"status": "executing"}); st != http.StatusConflict || !strings.Contains(webtest.ErrMsg(out), "planning to executing") {
		t.Fatalf("planning -> executing: got %d %v, want 409", st, out)
	}
	if st, _ := e.Call(t, "PATCH", "/v1/jobs/"+id, webtest.Secret, map[string]any{"status": "nope"}); st != http.StatusBadRequest {
		t.Fatalf("unknown status: got %d, want 400", st)
	}
	e.MustCall(t, "PATCH", "/v1/jobs/"+id, webtest.Secret, map[string]any{"status": "ready"})
	want := []string{"job:created", "job:updated", "job:updated", "job:ready"}
	if got := webtest.TopicsOf(e.JobEvents(t, id)); !slices.Equal(got, want) {
		t.Fatalf("got events %v, want %v", got, want)
	}
}

func TestJobPredecessors(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	a := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "a", "source": sp["id"], "trigger": "immediate"})["id"].(string)
	b := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "b", "source": sp["id"], "trigger": "immediate"})["id"].(string)
	c := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "c", "source": sp["id"], "trigger": "immediate", "predecessorIds": []string{a, b}})
	if c["status"] != "waiting" {
		t.Fatalf("got %v, want waiting while predecessors run", c["status"])
	}
	cid := c["id"].(string)
	e.MustCall(t, "POST", "/v1/jobs/"+a+"/complete", webtest.Secret, nil)
	if got := webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+cid, webtest.Secret, nil)); got["status"] != "waiting" {
		t.Fatalf("one of two predecessors done: got %v, want waiting", got["status"])
	}
	e.MustCall(t, "POST", "/v1/jobs/"+b+"/complete", webtest.Secret, nil)
	if got := webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+cid, webtest.Secret, nil)); got["status"] != "ready" {
		t.Fatalf("both predecessors done: got %v, want ready", got["status"])
	}
	if got := webtest.TopicsOf(e.JobEvents(t, cid)); !slices.Equal(got, []string{"job:created", "job:ready"}) {
		t.Fatalf("got %v, want created then ready", got)
	}
	// A failing predecessor fails its waiting dependents.
	d := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "d", "source": sp["id"], "trigger": "immediate"})["id"].(string)
	f := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "f", "source": sp["id"], "predecessorIds": []string{d}})["id"].(string)
	e.MustCall(t, "POST", "/v1/jobs/"+d+"/fail", webtest.Secret, nil)
	got := webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+f, webtest.Secret, nil))
	if got["status"] != "failed" || !strings.Contains(got["outcome"].(map[string]any)["message"].(string), d) {
		t.Fatalf("dependent of a failed job: got %v", got)
	}
	if st, _ := e.Call(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "space", "operation": "g", "source": sp["id"], "predecessorIds": []string{"us_jb_nope"}}); st != http.StatusNotFound {
		t.Fatalf("unknown predecessor: got %d, want 404", st)
	}
}

func TestJobParts(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"autoConfigure": true, "name": "s"})
	parent := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "big", "source": sp["id"]})["id"].(string)
	var parts []string
	for i := 1; i <= 2; i++ {
		parts = append(parts, e.MustCreateJob(t, map[string]any{"type": "space", "operation": "big", "source": sp["id"], "parentId": parent,
			"part": i, "trigger": "immediate"})["id"].(string))
	}
	evs := e.JobEvents(t, parts[0])
	if evs[0]["payload"].(map[string]any)["isPart"] != true {
		t.Fatalf("part event: got %v, want isPart true", evs[0]["payload"])
	}
	for _, p := range parts {
		e.MustCall(t, "POST", "/v1/jobs/"+p+"/complete", webtest.Secret, nil)
	}
	if got := webtest.TopicsOf(e.JobEvents(t, parent)); !slices.Contains(got, "job:parts-completed") {
		t.Fatalf("parent events: got %v, want job:parts-completed", got)
	}
	l := webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?parentId="+parent, webtest.Secret, nil))
	if len(l) != 2 {
		t.Fatalf("parentId filter: got %d jobs, want 2", len(l))
	}
	l = webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?excludeChildJobs=true&spaceId="+sp["id"].(string), webtest.Secret, nil))
	if len(l) != 2 { // the parent and the space:configure job
		t.Fatalf("excludeChildJobs: got %d jobs, want 2", len(l))
	}
}

func TestJobValidation(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	tests := []struct {
		name   string
		body   map[string]any
		status int
		key    string
	}{
		{"no type", map[string]any{"operation": "x", "source": spaceID}, 400, "type"},
		{"bad type", map[string]any{"type": "robot", "operation": "x", "source": spaceID}, 400, "type"},
		{"no operation", map[string]any{"type": "space", "source": spaceID}, 400, "operation"},
		{"no source", map[string]any{"type": "space", "operation": "x"}, 400, "source"},
		{"unknown space", map[string]any{"type": "space", "operation": "x", "source": "us_sp_nothere"}, 404, "source"},
		{"bad trigger", map[string]any{"type": "space", "operation": "x", "source": spaceID, "trigger": "now"}, 400, "trigger"},
		{"bad mode", map[string]any{"type": "space", "operation": "x", "source": spaceID, "mode": "loud"}, 400, "mode"},
		{"created complete", map[string]any{"type": "space", "operation": "x", "source": spaceID, "status": "complete"}, 400, "status"},
		{"bad next", map[string]any{"type": "space", "operation": "x", "source": spaceID, "outcome": map[string]any{"next": map[string]any{"type": "teleport"}}}, 400, "outcome.next.type"},
		{"view without columns", map[string]any{"type": "space", "operation": "x", "source": spaceID, "outcome": map[string]any{"next": map[string]any{"type": "view", "sheetId": "us_sh_1"}}}, 400, "outcome.next.hiddenColumns"},
		{"delete-records no config", map[string]any{"type": "sheet", "operation": "delete-records", "source": spaceID}, 400, "config"},
		{"delete-records no sheet", map[string]any{"type": "sheet", "operation": "delete-records", "source": spaceID, "config": map[string]any{"filter": "error"}}, 400, "config.sheet"},
		{"filterField without filter", map[string]any{"type": "sheet", "operation": "delete-records", "source": spaceID, "config": map[string]any{"sheet": "us_sh_x", "filterField": "email"}}, 400, "config.filterField"},
		{"bad filter", map[string]any{"type": "sheet", "operation": "delete-records", "source": spaceID, "config": map[string]any{"sheet": "us_sh_x", "filter": "some"}}, 400, "config.filter"},
		{"unknown sheet", map[string]any{"type": "sheet", "operation": "delete-records", "source": spaceID, "config": map[string]any{"sheet": "us_sh_x", "filter": "error", "filterField": "email"}}, 404, "config.sheet"},
		{"transform without program", map[string]any{"type": "workbook", "operation": "transform", "source": spaceID, "input": map[string]any{"version": "1"}}, 400, "input.programId"},
		{"transform bad keepRecordIds", map[string]any{"type": "workbook", "operation": "transform", "source": spaceID, "input": map[string]any{"programId": "p", "keepRecordIds": "yes"}}, 400, "input.keepRecordIds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, out := e.Call(t, "POST", "/v1/jobs", webtest.Secret, tt.body)
			if st != tt.status || webtest.ErrorKey(t, out) != tt.key {
				t.Fatalf("got %d %v, want %d about %s", st, out, tt.status, tt.key)
			}
		})
	}
	t.Run("transform keepRecordIds defaults to false", func(t *testing.T) {
		j := e.MustCreateJob(t, map[string]any{"type": "workbook", "operation": "transform", "source": spaceID, "input": map[string]any{"programId": "us_mp_1", "version": "3"}})
		in := j["input"].(map[string]any)
		if in["keepRecordIds"] != false || in["programId"] != "us_mp_1" || in["version"] != "3" {
			t.Fatalf("got input %v", in)
		}
	})
	t.Run("every outcome.next variant", func(t *testing.T) {
		for _, next := range []map[string]any{
			{"type": "id", "id": "us_sh_1", "label": "Go"},
			{"type": "url", "url": "https://x.test", "label": "Docs"},
			{"type": "download", "url": "https://x.test/f.csv", "fileName": "f.csv"},
			{"type": "files", "files": []any{map[string]any{"fileId": "us_fl_1", "label": "F"}}, "label": "Files"},
			{"type": "wait", "fade": true, "confetti": true},
			{"type": "snapshot", "snapshotId": "us_ss_1", "sheetId": "us_sh_1"},
			{"type": "retry", "label": "Again"},
			{"type": "view", "sheetId": "us_sh_1", "hiddenColumns": []string{"a"}, "label": "View"},
			{"type": "clearFilters", "sheetIds": []string{"us_sh_1"}},
		} {
			id := e.MustCreateJob(t, map[string]any{"type": "space", "operation": "x", "source": spaceID, "trigger": "immediate"})["id"].(string)
			got := webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs/"+id+"/complete", webtest.Secret, map[string]any{"outcome": map[string]any{"message": "m", "trigger": "manual", "next": next}}))
			if got["outcome"].(map[string]any)["next"].(map[string]any)["type"] != next["type"] {
				t.Fatalf("next %v: got %v", next, got["outcome"])
			}
		}
	})
}

func TestSpaceConfigureJob(t *testing.T) {
	e := webtest.NewAPI(t)
	// As on Flatfile, only a space created with autoConfigure gets a build job.
	plain := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "plain"})
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?spaceId="+plain["id"].(string), webtest.Secret, nil)); len(l) != 0 {
		t.Fatalf("a space without autoConfigure got jobs: %v", l)
	}
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"autoConfigure": true, "name": "s"})
	l := webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?spaceId="+sp["id"].(string), webtest.Secret, nil))
	if len(l) != 1 {
		t.Fatalf("got %d jobs, want the space:configure job", len(l))
	}
	j := l[0].(map[string]any)
	if j["type"] != "space" || j["operation"] != "configure" || j["status"] != "ready" || j["trigger"] != "immediate" || j["source"] != sp["id"] {
		t.Fatalf("got %v, want a ready space:configure job", j)
	}
	evs := e.JobEvents(t, j["id"].(string))
	if got := webtest.TopicsOf(evs); !slices.Equal(got, []string{"job:created", "job:ready"}) {
		t.Fatalf("got %v", got)
	}
	if p := evs[1]["payload"].(map[string]any); p["job"] != "space:configure" {
		t.Fatalf("job:ready payload: got %v, want job space:configure", p)
	}
}

func TestJobListAndReach(t *testing.T) {
	e := webtest.NewAPI(t)
	a := e.MustCreateSpace(t, webtest.Secret, map[string]any{"autoConfigure": true, "name": "a"})
	b := e.MustCreateSpace(t, webtest.Secret, map[string]any{"autoConfigure": true, "name": "b"})
	for i := 0; i < 3; i++ {
		e.Now = e.Now.Add(time.Second)
		e.MustCreateJob(t, map[string]any{"type": "space", "operation": "x", "source": a["id"]})
	}
	out := e.MustCall(t, "GET", "/v1/jobs?spaceId="+a["id"].(string)+"&pageSize=2&pageNumber=2&sortDirection=desc", webtest.Secret, nil)
	l := webtest.ListOf(out)
	pg := out["pagination"].(map[string]any)
	if len(l) != 2 || pg["totalCount"] != 4.0 || pg["pageCount"] != 2.0 || l[1].(map[string]any)["operation"] != "configure" {
		t.Fatalf("got %v %v", l, pg)
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?source="+b["id"].(string), webtest.Secret, nil)); len(l) != 1 {
		t.Fatalf("source filter: got %d, want 1", len(l))
	}
	// A space token sees only its own space's jobs.
	tok := b["accessToken"].(string)
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs", tok, nil)); len(l) != 1 {
		t.Fatalf("space token: got %d jobs, want 1", len(l))
	}
	id := webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?spaceId="+a["id"].(string), webtest.Secret, nil))[0].(map[string]any)["id"].(string)
	if st, _ := e.Call(t, "GET", "/v1/jobs/"+id, tok, nil); st != http.StatusNotFound {
		t.Fatalf("space token reading another space's job: got %d, want 404", st)
	}
	if st, _ := e.Call(t, "POST", "/v1/jobs", tok, map[string]any{"type": "space", "operation": "x", "source": a["id"]}); st != http.StatusNotFound {
		t.Fatalf("space token creating a job in another space: got %d, want 404", st)
	}
	if st, _ := e.Call(t, "GET", "/v1/jobs", webtest.Public, nil); st != http.StatusForbidden {
		t.Fatalf("publishable key: got %d, want 403", st)
	}
}
