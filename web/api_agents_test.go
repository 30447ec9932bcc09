package web_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/events"
	"github.com/sluice/sluice/handlers/api"
)

func TestAgentVersions(t *testing.T) {
	e := newAPI(t)
	path := "/v1/agents?environmentId=" + e.envID
	v1 := dataOf(e.mustCall(t, "POST", path, testSecret, map[string]any{"topics": []string{"job:ready", "commit:created"}, "compiler": "js",
		"source": "module.exports = 1", "sourceMap": "{}", "slug": "my-agent", "options": map[string]any{"a": 1}}))
	id := v1["id"].(string)
	if !strings.HasPrefix(id, "us_ag_") || v1["environmentId"] != e.envID || v1["accountId"] == nil || v1["version"] != 1.0 || v1["source"] != "module.exports = 1" {
		t.Fatalf("got %v", v1)
	}
	// Deploying the same slug again replaces the agent with a new version.
	v2 := dataOf(e.mustCall(t, "POST", path, testSecret, map[string]any{"topics": []string{"job:ready"}, "compiler": "js", "source": "module.exports = 2", "slug": "my-agent"}))
	if v2["id"] != id || v2["version"] != 2.0 || v2["source"] != "module.exports = 2" {
		t.Fatalf("redeploy: got %v", v2)
	}
	versions := listOf(e.mustCall(t, "GET", "/v1/agents/"+id+"/versions", testSecret, nil))
	if len(versions) != 2 {
		t.Fatalf("got %d versions, want 2", len(versions))
	}
	first := versions[0].(map[string]any)
	if first["agent_id"] != id || first["version"] != 1.0 || first["origin"] != 1.0 || !strings.HasPrefix(first["id"].(string), "us_agv_") || first["source"] != "module.exports = 1" {
		t.Fatalf("version 1: got %v", first)
	}
	rev := dataOf(e.mustCall(t, "GET", "/v1/agents/"+id+"/versions/"+first["id"].(string)+"/revert", testSecret, nil))
	if rev["version"] != 3.0 || rev["origin"] != 1.0 || rev["source"] != "module.exports = 1" {
		t.Fatalf("revert: got %v", rev)
	}
	if got := dataOf(e.mustCall(t, "GET", "/v1/agents/"+id, testSecret, nil)); got["source"] != "module.exports = 1" || got["version"] != 3.0 {
		t.Fatalf("after revert: got %v", got)
	}
	if st, _ := e.call(t, "GET", "/v1/agents/"+id+"/versions/us_agv_nope/revert", testSecret, nil); st != http.StatusNotFound {
		t.Fatalf("unknown version: got %d, want 404", st)
	}
	e.mustCall(t, "DELETE", "/v1/agents/"+id, testSecret, nil)
	if st, _ := e.call(t, "GET", "/v1/agents/"+id, testSecret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted agent: got %d, want 404", st)
	}
	want := []string{"agent:created", "agent:updated", "agent:updated", "agent:deleted"}
	if got := e.topics(t, "&domain=agent"); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestAgentList(t *testing.T) {
	e := newAPI(t)
	var ids []string
	for _, slug := range []string{"alpha", "beta", "alphabet"} {
		ids = append(ids, dataOf(e.mustCall(t, "POST", "/v1/agents?environmentId="+e.envID, testSecret, map[string]any{"slug": slug, "topics": []string{"**"}}))["id"].(string))
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
		out := e.mustCall(t, "GET", "/v1/agents?environmentId="+e.envID+tt.query, testSecret, nil)
		if got := len(listOf(out)); got != tt.want {
			t.Errorf("%s: got %d agents, want %d", tt.query, got, tt.want)
		}
		if out["pagination"] == nil {
			t.Errorf("%s: no pagination", tt.query)
		}
	}
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	if st, _ := e.call(t, "GET", "/v1/agents", sp["accessToken"].(string), nil); st != http.StatusForbidden {
		t.Fatalf("space token listing agents: got %d, want 403", st)
	}
	if st, out := e.call(t, "POST", "/v1/agents?environmentId="+e.envID, testSecret, map[string]any{"compiler": "ts"}); st != http.StatusBadRequest || errorKey(t, out) != "compiler" {
		t.Fatalf("compiler ts: got %d %v", st, out)
	}
	if st, out := e.call(t, "POST", "/v1/agents?environmentId="+e.envID, testSecret, map[string]any{"url": "ftp://x"}); st != http.StatusBadRequest || errorKey(t, out) != "url" {
		t.Fatalf("ftp url: got %d %v", st, out)
	}
	if st, _ := e.call(t, "POST", "/v1/agents", jwtFor(t, e), map[string]any{"slug": "x"}); st != http.StatusBadRequest {
		t.Fatalf("no environmentId with an account token: got %d, want 400", st)
	}
}

func TestAgentWebhookLogs(t *testing.T) {
	e := newAPI(t)
	fail := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
	}))
	defer srv.Close()
	// The typed client strips unknown keys, so options.webhookUrl sets the URL too.
	a := dataOf(e.mustCall(t, "POST", "/v1/agents?environmentId="+e.envID, testSecret, map[string]any{"slug": "hook", "topics": []string{"space:created"},
		"options": map[string]any{"webhookUrl": srv.URL}}))
	if a["url"] != srv.URL {
		t.Fatalf("got %v, want the webhook url", a)
	}
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	w := &events.Webhooks{DB: e.db, Encode: api.EventBody, AllowPrivate: true}
	if err := w.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	logs := listOf(e.mustCall(t, "GET", "/v1/agents/"+a["id"].(string)+"/logs?environmentId="+e.envID, testSecret, nil))
	if len(logs) != 1 {
		t.Fatalf("got %d logs, want 1", len(logs))
	}
	l := logs[0].(map[string]any)
	if l["success"] != false || l["status"] != "pending" || l["attempts"] != 1.0 || !strings.Contains(l["log"].(string), "HTTP 503") || l["nextAttemptAt"] == nil {
		t.Fatalf("after a failed attempt: got %v", l)
	}
	fail = false
	e.now = e.now.Add(2 * time.Second) // past the first retry's backoff
	if err := w.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventID := l["eventId"].(string)
	detailed := listOf(e.mustCall(t, "GET", "/v1/agents/logs?environmentId="+e.envID+"&success=true", testSecret, nil))
	if len(detailed) != 1 {
		t.Fatalf("successful logs: got %v", detailed)
	}
	d := detailed[0].(map[string]any)
	if d["eventId"] != eventID || d["topic"] != "space:created" || d["context"].(map[string]any)["spaceId"] != sp["id"] || !strings.Contains(d["log"].(string), "HTTP 200 after 2 attempts") {
		t.Fatalf("detailed log: got %v", d)
	}
	ex := listOf(e.mustCall(t, "GET", "/v1/agents/executions?environmentId="+e.envID+"&agentId="+a["id"].(string)+"&spaceId="+sp["id"].(string), testSecret, nil))
	if len(ex) != 1 || ex[0].(map[string]any)["success"] != true {
		t.Fatalf("executions: got %v", ex)
	}
	one := dataOf(e.mustCall(t, "GET", "/v1/agents/log/"+eventID+"?environmentId="+e.envID, testSecret, nil))
	if one["eventId"] != eventID || one["success"] != true {
		t.Fatalf("log of one event: got %v", one)
	}
	if l := listOf(e.mustCall(t, "GET", "/v1/agents/logs?environmentId="+e.envID+"&success=false", testSecret, nil)); len(l) != 0 {
		t.Fatalf("failed logs: got %v, want none", l)
	}
}
