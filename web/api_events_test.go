package web_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func jwtFor(t *testing.T, e *apiEnv) string {
	t.Helper()
	_, out := e.call(t, "POST", "/api/v1/auth", "", map[string]any{"email": testEmail, "password": testPassword})
	return out["accessToken"].(string)
}

func TestEnvironmentLifecycle(t *testing.T) {
	e := newAPI(t)
	jwt := jwtFor(t, e)
	if st, _ := e.call(t, "POST", "/v1/environments", testSecret, map[string]any{"name": "x", "isProd": false}); st != http.StatusForbidden {
		t.Fatalf("secret key creating an environment: got %d, want 403", st)
	}
	if st, out := e.call(t, "POST", "/v1/environments", jwt, map[string]any{"name": "x"}); st != http.StatusBadRequest || errorKey(t, out) != "isProd" {
		t.Fatalf("missing isProd: got %d %v, want 400 about isProd", st, out)
	}
	env := dataOf(e.mustCall(t, "POST", "/v1/environments", jwt, map[string]any{"name": "Staging", "isProd": false,
		"namespaces": []string{"a"}, "metadata": map[string]any{"showSpaceInfo": false}}))
	id := env["id"].(string)
	if !strings.HasPrefix(id, "us_env_") || env["metadata"].(map[string]any)["showSpaceInfo"] != false {
		t.Fatalf("got %v, want a us_env_ id and showSpaceInfo false", env)
	}
	// PATCH answers with a bare environment, as Flatfile does.
	_, bare := e.call(t, "PATCH", "/v1/environments/"+id, jwt, map[string]any{"name": "Stage", "metadata": map[string]any{"showSpaceInfo": true}})
	if bare["name"] != "Stage" || bare["data"] != nil {
		t.Fatalf("got %v, want a bare environment named Stage", bare)
	}
	if st, _ := e.call(t, "PATCH", "/v1/environments/"+id, jwt, map[string]any{"metadata": map[string]any{"showSpaceInfo": "no"}}); st != http.StatusBadRequest {
		t.Fatalf("showSpaceInfo not a boolean: got %d, want 400", st)
	}
	if l := listOf(e.mustCall(t, "GET", "/v1/environments", jwt, nil)); len(l) != 2 {
		t.Fatalf("account token: got %d environments, want 2", len(l))
	}
	if l := listOf(e.mustCall(t, "GET", "/v1/environments", testSecret, nil)); len(l) != 1 {
		t.Fatalf("secret key: got %d environments, want only its own", len(l))
	}
	if st, _ := e.call(t, "GET", "/v1/environments/"+id, testSecret, nil); st != http.StatusNotFound {
		t.Fatalf("secret key reading another environment: got %d, want 404", st)
	}
	e.mustCall(t, "DELETE", "/v1/environments/"+id, jwt, nil)
	if st, _ := e.call(t, "GET", "/v1/environments/"+id, jwt, nil); st != http.StatusNotFound {
		t.Fatalf("deleted environment: got %d, want 404", st)
	}
	if st, _ := e.call(t, "DELETE", "/v1/environments/"+e.envID, jwt, nil); st != http.StatusConflict {
		t.Fatalf("deleting the last environment: got %d, want 409", st)
	}
	out := e.mustCall(t, "GET", "/v1/events?domain=environment&pageSize=100", jwt, nil)
	var got []string
	for _, ev := range listOf(out) {
		m := ev.(map[string]any)
		if m["context"].(map[string]any)["environmentId"] == id {
			got = append(got, m["topic"].(string))
		}
	}
	if want := []string{"environment:created", "environment:updated", "environment:deleted"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestEventFilters(t *testing.T) {
	e := newAPI(t)
	a := e.mustCreateSpace(t, testSecret, map[string]any{"autoConfigure": true, "name": "a"})
	e.now = e.now.Add(time.Minute)
	since := e.now
	b := e.mustCreateSpace(t, testSecret, map[string]any{"name": "b"})
	e.mustCall(t, "POST", "/v1/spaces/"+b["id"].(string)+"/archive", testSecret, nil)

	tests := []struct {
		query string
		want  []string
	}{
		// A space created with autoConfigure gets a space:configure job, whose events carry the spaceId.
		{"?spaceId=" + a["id"].(string), []string{"space:created", "job:created", "job:ready"}},
		{"?domain=space&spaceId=" + a["id"].(string), []string{"space:created"}},
		{"?domain=space", []string{"space:created", "space:created", "space:archived"}},
		{"?topic=space:archived", []string{"space:archived"}},
		{"?since=" + since.Format(time.RFC3339Nano) + "&domain=space", []string{"space:created", "space:archived"}},
		{"?environmentId=" + e.envID + "&pageSize=1&pageNumber=2&domain=space", []string{"space:created"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var got []string
			for _, ev := range listOf(e.mustCall(t, "GET", "/v1/events"+tt.query, testSecret, nil)) {
				got = append(got, ev.(map[string]any)["topic"].(string))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("get, ack and includeAcknowledged", func(t *testing.T) {
		list := listOf(e.mustCall(t, "GET", "/v1/events?topic=space:archived", testSecret, nil))
		ev := list[0].(map[string]any)
		id := ev["id"].(string)
		ctx := ev["context"].(map[string]any)
		if !strings.HasPrefix(id, "us_evt_") || ctx["accountId"] == nil || ctx["environmentId"] != e.envID || ctx["spaceId"] != b["id"] {
			t.Fatalf("got event %v, want us_evt_ id and a full context", ev)
		}
		got := dataOf(e.mustCall(t, "GET", "/v1/events/"+id, testSecret, nil))
		if got["topic"] != "space:archived" {
			t.Fatalf("got %v, want the archived event", got)
		}
		e.mustCall(t, "POST", "/v1/events/"+id+"/ack", testSecret, nil)
		if l := listOf(e.mustCall(t, "GET", "/v1/events?topic=space:archived", testSecret, nil)); len(l) != 0 {
			t.Fatalf("acknowledged event still listed by default: %v", l)
		}
		if l := listOf(e.mustCall(t, "GET", "/v1/events?topic=space:archived&includeAcknowledged=true", testSecret, nil)); len(l) != 1 {
			t.Fatalf("includeAcknowledged: got %d events, want 1", len(l))
		}
	})
	t.Run("bad since", func(t *testing.T) {
		if st, out := e.call(t, "GET", "/v1/events?since=yesterday", testSecret, nil); st != http.StatusBadRequest || errorKey(t, out) != "since" {
			t.Fatalf("got %d %v, want 400 about since", st, out)
		}
	})
	t.Run("unknown event", func(t *testing.T) {
		if st, _ := e.call(t, "GET", "/v1/events/us_evt_nope", testSecret, nil); st != http.StatusNotFound {
			t.Fatalf("got %d, want 404", st)
		}
	})
	t.Run("custom event", func(t *testing.T) {
		ev := dataOf(e.mustCall(t, "POST", "/v1/events", testSecret, map[string]any{"topic": "job:ready", "domain": "job",
			"payload": map[string]any{"x": 1}, "context": map[string]any{"environmentId": e.envID, "actionId": "us_act_1"}}))
		if ev["context"].(map[string]any)["actionId"] != "us_act_1" {
			t.Fatalf("got %v, want actionId kept in the context", ev)
		}
	})
}

func TestAccountCurrent(t *testing.T) {
	e := newAPI(t)
	acc := dataOf(e.mustCall(t, "GET", "/v1/accounts/current", testSecret, nil))
	if !strings.HasPrefix(acc["id"].(string), "us_acc_") {
		t.Fatalf("got %v, want an account", acc)
	}
	got := dataOf(e.mustCall(t, "PATCH", "/v1/accounts/current", jwtFor(t, e), map[string]any{"name": "Acme"}))
	if got["name"] != "Acme" {
		t.Fatalf("got %v, want name Acme", got)
	}
	if st, _ := e.call(t, "PATCH", "/v1/accounts/current", jwtFor(t, e), map[string]any{"name": ""}); st != http.StatusBadRequest {
		t.Fatalf("empty name: got %d, want 400", st)
	}
}
