package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"
)

func TestEnvironmentLifecycle(t *testing.T) {
	e := webtest.NewAPI(t)
	jwt := webtest.JwtFor(t, e)
	if st, _ := e.Call(t, "POST", "/v1/environments", webtest.Secret, map[string]any{"name": "x", "isProd": false}); st != http.StatusForbidden {
		t.Fatalf("secret key creating an environment: got %d, want 403", st)
	}
	if st, out := e.Call(t, "POST", "/v1/environments", jwt, map[string]any{"name": "x"}); st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "isProd" {
		t.Fatalf("missing isProd: got %d %v, want 400 about isProd", st, out)
	}
	env := webtest.DataOf(e.MustCall(t, "POST", "/v1/environments", jwt, map[string]any{"name": "Staging", "isProd": false,
		"namespaces": []string{"a"}, "metadata": map[string]any{"showSpaceInfo": false}}))
	id := env["id"].(string)
	if !strings.HasPrefix(id, "us_env_") || env["metadata"].(map[string]any)["showSpaceInfo"] != false {
		t.Fatalf("got %v, want a us_env_ id and showSpaceInfo false", env)
	}
	// PATCH answers with a bare environment, as Flatfile does.
	_, bare := e.Call(t, "PATCH", "/v1/environments/"+id, jwt, map[string]any{"name": "Stage", "metadata": map[string]any{"showSpaceInfo": true}})
	if bare["name"] != "Stage" || bare["data"] != nil {
		t.Fatalf("got %v, want a bare environment named Stage", bare)
	}
	if st, _ := e.Call(t, "PATCH", "/v1/environments/"+id, jwt, map[string]any{"metadata": map[string]any{"showSpaceInfo": "no"}}); st != http.StatusBadRequest {
		t.Fatalf("showSpaceInfo not a boolean: got %d, want 400", st)
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/environments", jwt, nil)); len(l) != 2 {
		t.Fatalf("account token: got %d environments, want 2", len(l))
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/environments", webtest.Secret, nil)); len(l) != 1 {
		t.Fatalf("secret key: got %d environments, want only its own", len(l))
	}
	if st, _ := e.Call(t, "GET", "/v1/environments/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("secret key reading another environment: got %d, want 404", st)
	}
	e.MustCall(t, "DELETE", "/v1/environments/"+id, jwt, nil)
	if st, _ := e.Call(t, "GET", "/v1/environments/"+id, jwt, nil); st != http.StatusNotFound {
		t.Fatalf("deleted environment: got %d, want 404", st)
	}
	if st, _ := e.Call(t, "DELETE", "/v1/environments/"+e.EnvID, jwt, nil); st != http.StatusConflict {
		t.Fatalf("deleting the last environment: got %d, want 409", st)
	}
	out := e.MustCall(t, "GET", "/v1/events?domain=environment&pageSize=100", jwt, nil)
	var got []string
	for _, ev := range webtest.ListOf(out) {
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
	e := webtest.NewAPI(t)
	a := e.MustCreateSpace(t, webtest.Secret, map[string]any{"autoConfigure": true, "name": "a"})
	e.Now = e.Now.Add(time.Minute)
	since := e.Now
	b := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "b"})
	e.MustCall(t, "POST", "/v1/spaces/"+b["id"].(string)+"/archive", webtest.Secret, nil)

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
		{"?environmentId=" + e.EnvID + "&pageSize=1&pageNumber=2&domain=space", []string{"space:created"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var got []string
			for _, ev := range webtest.ListOf(e.MustCall(t, "GET", "/v1/events"+tt.query, webtest.Secret, nil)) {
				got = append(got, ev.(map[string]any)["topic"].(string))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("get, ack and includeAcknowledged", func(t *testing.T) {
		list := webtest.ListOf(e.MustCall(t, "GET", "/v1/events?topic=space:archived", webtest.Secret, nil))
		ev := list[0].(map[string]any)
		id := ev["id"].(string)
		ctx := ev["context"].(map[string]any)
		if !strings.HasPrefix(id, "us_evt_") || ctx["accountId"] == nil || ctx["environmentId"] != e.EnvID || ctx["spaceId"] != b["id"] {
			t.Fatalf("got event %v, want us_evt_ id and a full context", ev)
		}
		got := webtest.DataOf(e.MustCall(t, "GET", "/v1/events/"+id, webtest.Secret, nil))
		if got["topic"] != "space:archived" {
			t.Fatalf("got %v, want the archived event", got)
		}
		e.MustCall(t, "POST", "/v1/events/"+id+"/ack", webtest.Secret, nil)
		if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/events?topic=space:archived", webtest.Secret, nil)); len(l) != 0 {
			t.Fatalf("acknowledged event still listed by default: %v", l)
		}
		if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/events?topic=space:archived&includeAcknowledged=true", webtest.Secret, nil)); len(l) != 1 {
			t.Fatalf("includeAcknowledged: got %d events, want 1", len(l))
		}
	})
	t.Run("bad since", func(t *testing.T) {
		if st, out := e.Call(t, "GET", "/v1/events?since=yesterday", webtest.Secret, nil); st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "since" {
			t.Fatalf("got %d %v, want 400 about since", st, out)
		}
	})
	t.Run("unknown event", func(t *testing.T) {
		if st, _ := e.Call(t, "GET", "/v1/events/us_evt_nope", webtest.Secret, nil); st != http.StatusNotFound {
			t.Fatalf("got %d, want 404", st)
		}
	})
	t.Run("custom event", func(t *testing.T) {
		ev := webtest.DataOf(e.MustCall(t, "POST", "/v1/events", webtest.Secret, map[string]any{"topic": "job:ready", "domain": "job",
			"payload": map[string]any{"x": 1}, "context": map[string]any{"environmentId": e.EnvID, "actionId": "us_act_1"}}))
		if ev["context"].(map[string]any)["actionId"] != "us_act_1" {
			t.Fatalf("got %v, want actionId kept in the context", ev)
		}
	})
}

func TestAccountCurrent(t *testing.T) {
	e := webtest.NewAPI(t)
	acc := webtest.DataOf(e.MustCall(t, "GET", "/v1/accounts/current", webtest.Secret, nil))
	if !strings.HasPrefix(acc["id"].(string), "us_acc_") {
		t.Fatalf("got %v, want an account", acc)
	}
	got := webtest.DataOf(e.MustCall(t, "PATCH", "/v1/accounts/current", webtest.JwtFor(t, e), map[string]any{"name": "Acme"}))
	if got["name"] != "Acme" {
		t.Fatalf("got %v, want name Acme", got)
	}
	if st, _ := e.Call(t, "PATCH", "/v1/accounts/current", webtest.JwtFor(t, e), map[string]any{"name": ""}); st != http.StatusBadRequest {
		t.Fatalf("empty name: got %d, want 400", st)
	}
}
