package api_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/sluice/sluice/events"
	"github.com/sluice/sluice/handlers/api"
)

func TestAgentVersions(t *testing.T) {
	e := webtest.NewAPI(t)
	path := "/v1/agents?environmentId=" + e.EnvID
	v1 := webtest.DataOf(e.MustCall(t, "POST", path, webtest.Secret, map[string]any{"topics": []string{"job:ready", "commit:created"}, "compiler": "js",
		"source": "module.exports = 1", "sourceMap": "{}", "slug": "my-agent", "options": map[string]any{"a": 1}}))
	id := v1["id"].(string)
	if !strings.HasPrefix(id, "us_ag_") || v1["environmentId"] != e.EnvID || v1["accountId"] == nil || v1["version"] != 1.0 || v1["source"] != "module.exports = 1" {
		t.Fatalf("got %v", v1)
	}
	// Deploying the same slug again replaces the agent with a new version.
	v2 := webtest.DataOf(e.MustCall(t, "POST", path, webtest.Secret, map[string]any{"topics": []string{"job:ready"}, "compiler": "js", "source": "module.exports = 2", "slug": "my-agent"}))
	if v2["id"] != id || v2["version"] != 2.0 || v2["source"] != "module.exports = 2" {
		t.Fatalf("redeploy: got %v", v2)
	}
	versions := webtest.ListOf(e.MustCall(t, "GET", "/v1/agents/"+id+"/versions", webtest.Secret, nil))
	if len(versions) != 2 {
		t.Fatalf("got %d versions, want 2", len(versions))
	}
	first := versions[0].(map[string]any)
	if first["agent_id"] != id || first["version"] != 1.0 || first["origin"] != 1.0 || !strings.HasPrefix(first["id"].(string), "us_agv_") || first["source"] != "module.exports = 1" {
		t.Fatalf("version 1: got %v", first)
	}
	rev := webtest.DataOf(e.MustCall(t, "GET", "/v1/agents/"+id+"/versions/"+first["id"].(string)+"/revert", webtest.Secret, nil))
	if rev["version"] != 3.0 || rev["origin"] != 1.0 || rev["source"] != "module.exports = 1" {
		t.Fatalf("revert: got %v", rev)
	}
	if got := webtest.DataOf(e.MustCall(t, "GET", "/v1/agents/"+id, webtest.Secret, nil)); got["source"] != "module.exports = 1" || got["version"] != 3.0 {
		t.Fatalf("after revert: got %v", got)
	}
	if st, _ := e.Call(t, "GET", "/v1/agents/"+id+"/versions/us_agv_nope/revert", webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("unknown version: got %d, want 404", st)
	}
	e.MustCall(t, "DELETE", "/v1/agents/"+id, webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", "/v1/agents/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted agent: got %d, want 404", st)
	}
	want := []string{"agent:created", "agent:updated", "agent:updated", "agent:deleted"}
	if got := e.Topics(t, "&domain=agent"); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestAgentList(t *testing.T) {
	e := webtest.NewAPI(t)
	var ids []string
	for _, slug := range []string{"alpha", "beta", "alphabet"} {
		ids = append(ids, webtest.DataOf(e.MustCall(t, "POST", "/v1/agents?environmentId="+e.EnvID, webtest.Secret, map[string]any{"slug": slug, "topics": []string{"**"}}))["id"].(string))
	}
	tests := []struct {
		query string
		want  int
	}{
		{"", 3},
		{"&search=alpha", 2},
		{"&search=" + ids[1], 1},
		{"&pageSize=2&pageNumber=2", 1},
		{"&isSystem=true", 0},
	}
	for _, tt := range tests {
		out := e.MustCall(t, "GET", "/v1/agents?environmentId="+e.EnvID+tt.query, webtest.Secret, nil)
		if got := len(webtest.ListOf(out)); got != tt.want {
			t.Errorf("%s: got %d agents, want %d", tt.query, got, tt.want)
		}
		if out["pagination"] == nil {
			t.Errorf("%s: no pagination", tt.query)
		}
	}
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	if st, _ := e.Call(t, "GET", "/v1/agents", sp["accessToken"].(string), nil); st != http.StatusForbidden {
		t.Fatalf("space token listing agents: got %d, want 403", st)
	}
	if st, out := e.Call(t, "POST", "/v1/agents?environmentId="+e.EnvID, webtest.Secret, map[string]any{"compiler": "ts"}); st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "compiler" {
		t.Fatalf("compiler ts: got %d %v", st, out)
	}
	if st, out := e.Call(t, "POST", "/v1/agents?environmentId="+e.EnvID, webtest.Secret, map[string]any{"url": "ftp://x"}); st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "url" {
		t.Fatalf("ftp url: got %d %v", st, out)
	}
	if st, _ := e.Call(t, "POST", "/v1/agents", webtest.JwtFor(t, e), map[string]any{"slug": "x"}); st != http.StatusBadRequest {
		t.Fatalf("no environmentId with an account token: got %d, want 400", st)
	}
}

func TestAgentWebhookLogs(t *testing.T) {
	e := webtest.NewAPI(t)
	fail := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
	}))
	defer srv.Close()
	// The typed client strips unknown keys, so options.webhookUrl sets the URL too.
	a := webtest.DataOf(e.MustCall(t, "POST", "/v1/agents?environmentId="+e.EnvID, webtest.Secret, map[string]any{"slug": "hook", "topics": []string{"space:created"},
		"options": map[string]any{"webhookUrl": srv.URL}}))
	if a["url"] != srv.URL {
		t.Fatalf("got %v, want the webhook url", a)
	}
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	w := &events.Webhooks{DB: e.DB, Encode: api.EventBody, AllowPrivate: true}
	if err := w.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	logs := webtest.ListOf(e.MustCall(t, "GET", "/v1/agents/"+a["id"].(string)+"/logs?environmentId="+e.EnvID, webtest.Secret, nil))
	if len(logs) != 1 {
		t.Fatalf("got %d logs, want 1", len(logs))
	}
	l := logs[0].(map[string]any)
	if l["success"] != false || l["status"] != "pending" || l["attempts"] != 1.0 || !strings.Contains(l["log"].(string), "HTTP 503") || l["nextAttemptAt"] == nil {
		t.Fatalf("after a failed attempt: got %v", l)
	}
	fail = false
	e.Now = e.Now.Add(2 * time.Second) // past the first retry's backoff
	if err := w.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventID := l["eventId"].(string)
	detailed := webtest.ListOf(e.MustCall(t, "GET", "/v1/agents/logs?environmentId="+e.EnvID+"&success=true", webtest.Secret, nil))
	if len(detailed) != 1 {
		t.Fatalf("successful logs: got %v", detailed)
	}
	d := detailed[0].(map[string]any)
	if d["eventId"] != eventID || d["topic"] != "space:created" || d["context"].(map[string]any)["spaceId"] != sp["id"] || !strings.Contains(d["log"].(string), "HTTP 200 after 2 attempts") {
		t.Fatalf("detailed log: got %v", d)
	}
	ex := webtest.ListOf(e.MustCall(t, "GET", "/v1/agents/executions?environmentId="+e.EnvID+"&agentId="+a["id"].(string)+"&spaceId="+sp["id"].(string), webtest.Secret, nil))
	if len(ex) != 1 || ex[0].(map[string]any)["success"] != true {
		t.Fatalf("executions: got %v", ex)
	}
	one := webtest.DataOf(e.MustCall(t, "GET", "/v1/agents/log/"+eventID+"?environmentId="+e.EnvID, webtest.Secret, nil))
	if one["eventId"] != eventID || one["success"] != true {
		t.Fatalf("log of one event: got %v", one)
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/agents/logs?environmentId="+e.EnvID+"&success=false", webtest.Secret, nil)); len(l) != 0 {
		t.Fatalf("failed logs: got %v, want none", l)
	}
}
