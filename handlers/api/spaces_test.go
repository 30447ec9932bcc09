package api_test

import (
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"
)

func TestSpaceListFilters(t *testing.T) {
	e := webtest.NewAPI(t)
	e.MustCall(t, "PATCH", "/v1/environments/"+e.EnvID, webtest.Secret, map[string]any{"namespaces": []string{"red", "blue"}})
	e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "plain"})
	e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "red one", "namespace": "red", "appId": "us_app_1"})
	e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "blue one", "namespace": "blue", "isAppTemplate": true})
	arch := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "old"})
	e.MustCall(t, "POST", "/v1/spaces/"+arch["id"].(string)+"/archive", webtest.Secret, nil)

	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{"blue one", "plain", "red one"}},
		{"?appId=us_app_1", []string{"red one"}},
		{"?appId=us_app_unknown", nil},
		{"?namespace=", []string{"plain"}},
		{"?namespace=red", []string{"red one"}},
		{"?isAppTemplate=true", []string{"blue one"}},
		{"?isAppTemplate=false", []string{"plain", "red one"}},
		{"?archived=true", []string{"blue one", "old", "plain", "red one"}},
		{"?search=ONE", []string{"blue one", "red one"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			out := e.MustCall(t, "GET", "/v1/spaces"+tt.query, webtest.Secret, nil)
			if got := webtest.Names(webtest.ListOf(out)); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("pagination", func(t *testing.T) {
		out := e.MustCall(t, "GET", "/v1/spaces?pageSize=2&pageNumber=2&sortField=name", webtest.Secret, nil)
		if got := webtest.Names(webtest.ListOf(out)); !slices.Equal(got, []string{"red one"}) {
			t.Fatalf("got %v, want [red one]", got)
		}
		p := out["pagination"].(map[string]any)
		if p["totalCount"] != 3.0 || p["pageCount"] != 2.0 || p["currentPage"] != 2.0 {
			t.Fatalf("got pagination %v, want 3 total, 2 pages, page 2", p)
		}
	})
	t.Run("bad page size", func(t *testing.T) {
		st, out := e.Call(t, "GET", "/v1/spaces?pageSize=zero", webtest.Secret, nil)
		if st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "pageSize" {
			t.Fatalf("got %d %v, want 400 about pageSize", st, out)
		}
	})
}

func TestSpaceNamespaceFromEnvironment(t *testing.T) {
	e := webtest.NewAPI(t)
	e.MustCall(t, "PATCH", "/v1/environments/"+e.EnvID, webtest.Secret, map[string]any{"namespaces": []string{"red"}})
	st, out := e.Call(t, "POST", "/v1/spaces", webtest.Secret, map[string]any{"name": "x", "namespace": "green"})
	if st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "namespace" {
		t.Fatalf("got %d %v, want 400 about namespace", st, out)
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces", webtest.Secret, nil)); len(l) != 0 {
		t.Fatalf("got %d spaces after a rejected create, want 0", len(l))
	}
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "x", "namespace": "red"})
	id := sp["id"].(string)
	if st, _ := e.Call(t, "PATCH", "/v1/spaces/"+id, webtest.Secret, map[string]any{"namespace": "green"}); st != http.StatusBadRequest {
		t.Fatalf("PATCH to an unknown namespace: got %d, want 400", st)
	}
	e.MustCall(t, "PATCH", "/v1/environments/"+e.EnvID, webtest.Secret, map[string]any{"namespaces": []string{"red", "green"}})
	got := webtest.DataOf(e.MustCall(t, "PATCH", "/v1/spaces/"+id, webtest.Secret, map[string]any{"namespace": "green"}))
	if got["namespace"] != "green" {
		t.Fatalf("got namespace %v, want green", got["namespace"])
	}
}

func TestSpaceArchiveAndUnarchive(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "a"})
	id := sp["id"].(string)
	if sp["archivedAt"] != nil {
		t.Fatalf("new space: got archivedAt %v, want null", sp["archivedAt"])
	}
	e.MustCall(t, "POST", "/v1/spaces/"+id+"/archive", webtest.Secret, nil)
	got := webtest.DataOf(e.MustCall(t, "GET", "/v1/spaces/"+id, webtest.Secret, nil))
	if got["archivedAt"] == nil {
		t.Fatal("after archive: got archivedAt null, want a time")
	}
	// PATCH archivedAt:null restores it.
	got = webtest.DataOf(e.MustCall(t, "PATCH", "/spaces/"+id, webtest.Secret, `{"archivedAt":null}`))
	if got["archivedAt"] != nil {
		t.Fatalf("after PATCH archivedAt null: got %v, want null", got["archivedAt"])
	}
	e.MustCall(t, "POST", "/v1/spaces/"+id+"/archive", webtest.Secret, nil)
	e.MustCall(t, "POST", "/v1/spaces/"+id+"/unarchive", webtest.Secret, nil)
	topics := e.Topics(t, "&domain=space&spaceId="+id)
	want := []string{"space:created", "space:archived", "space:updated", "space:unarchived", "space:archived", "space:unarchived"}
	if !slices.Equal(topics, want) {
		t.Fatalf("got events %v, want %v", topics, want)
	}
	// A PATCH that does not mention archivedAt leaves it alone.
	e.MustCall(t, "POST", "/v1/spaces/"+id+"/archive", webtest.Secret, nil)
	got = webtest.DataOf(e.MustCall(t, "PATCH", "/v1/spaces/"+id, webtest.Secret, map[string]any{"name": "b"}))
	if got["archivedAt"] == nil {
		t.Fatal("PATCH without archivedAt unarchived the space")
	}
}

func TestSpaceFieldsAndLastActivity(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "m", "metadata": map[string]any{"theme": map[string]any{"root": map[string]any{"borderColor": "#123"}}, "n": 1}})
	la, _ := sp["lastActivityAt"].(string)
	at, err := time.Parse(time.RFC3339, la)
	if err != nil || at.Nanosecond() != 0 || !strings.HasSuffix(la, ".000Z") {
		t.Fatalf("got lastActivityAt %q, want a UTC time at second precision", la)
	}
	meta := sp["metadata"].(map[string]any)
	if meta["theme"].(map[string]any)["root"].(map[string]any)["borderColor"] != "#123" {
		t.Fatalf("got metadata %v, want the theme kept", meta)
	}
	if !strings.HasPrefix(sp["id"].(string), "us_sp_") {
		t.Fatalf("got id %v, want us_sp_ prefix", sp["id"])
	}
	for _, body := range []string{`{"name":5}`, `{"metadata":"x"}`, `{"name":"x"`, `[1]`, `{"archivedAt":"yesterday"}`} {
		st, out := e.Call(t, "POST", "/v1/spaces", webtest.Secret, body)
		if st != http.StatusBadRequest {
			t.Errorf("body %s: got %d %v, want 400", body, st, out)
		}
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces", webtest.Secret, nil)); len(l) != 1 {
		t.Fatalf("got %d spaces after bad requests, want 1", len(l))
	}
}

func TestSpaceDeleteCascades(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "d"})
	id := sp["id"].(string)
	ctx := t.Context()
	if err := e.DB.ExecForTest(ctx, `INSERT INTO workbooks (id, account_id, environment_id, space_id, created_at, updated_at) SELECT 'us_wb_1', account_id, environment_id, id, 0, 0 FROM spaces WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.ExecForTest(ctx, `INSERT INTO sheets (id, workbook_id, created_at, updated_at) VALUES ('us_sh_1', 'us_wb_1', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	e.MustCall(t, "DELETE", "/v1/spaces/"+id, webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", "/v1/spaces/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted space: got %d, want 404", st)
	}
	for _, table := range []string{"workbooks", "sheets"} {
		n, err := e.DB.CountForTest(ctx, `SELECT COUNT(*) FROM `+table+` WHERE deleted_at IS NULL`)
		if err != nil || n != 0 {
			t.Fatalf("%s not deleted: %d live rows (%v)", table, n, err)
		}
	}
	if st, _ := e.Call(t, "DELETE", "/v1/spaces/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("deleting twice: got %d, want 404", st)
	}
	if got := e.Topics(t, "&topic=space:deleted"); len(got) != 1 {
		t.Fatalf("got %v, want one space:deleted event", got)
	}
}

func TestOversizeBody(t *testing.T) {
	e := webtest.NewAPI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go e.App.Listener(ln)
	t.Cleanup(func() { e.App.Shutdown() })
	big := `{"name":"` + strings.Repeat("x", 11<<20) + `"}`
	req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/v1/spaces", strings.NewReader(big))
	req.Header.Set("Authorization", "Bearer "+webtest.Secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("got %d %v, want 413", resp.StatusCode, out)
	}
	webtest.ErrorKey(t, out)
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces", webtest.Secret, nil)); len(l) != 0 {
		t.Fatalf("got %d spaces after an oversize request, want 0", len(l))
	}
}
