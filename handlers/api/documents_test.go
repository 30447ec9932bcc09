package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestDocuments(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "docs"})
	base := "/v1/spaces/" + sp["id"].(string) + "/documents"
	if st, out := e.Call(t, "POST", base, webtest.Secret, map[string]any{"body": "x"}); st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "title" {
		t.Fatalf("missing title: got %d %v", st, out)
	}
	d := webtest.DataOf(e.MustCall(t, "POST", base, webtest.Secret, map[string]any{"title": "Welcome", "body": "# Hi\n<embed type=\"embedded-sheet\" name=\"Contacts\">",
		"treatments": []string{"ephemeral"}, "actions": []any{map[string]any{"operation": "go", "label": "Go"}}}))
	id := d["id"].(string)
	if !strings.HasPrefix(id, "us_dc_") || d["treatments"].([]any)[0] != "ephemeral" {
		t.Fatalf("got %v", d)
	}
	upd := webtest.DataOf(e.MustCall(t, "PATCH", base+"/"+id, webtest.Secret, map[string]any{"body": "changed"}))
	if upd["body"] != "changed" || upd["title"] != "Welcome" {
		t.Fatalf("got %v, want body changed and title kept", upd)
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", base, webtest.Secret, nil)); len(l) != 1 {
		t.Fatalf("got %d documents, want 1", len(l))
	}
	other := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "other"})
	if st, _ := e.Call(t, "GET", "/v1/spaces/"+other["id"].(string)+"/documents/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("document through another space: got %d, want 404", st)
	}
	e.MustCall(t, "DELETE", base+"/"+id, webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", base+"/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted document: got %d, want 404", st)
	}
	got := e.Topics(t, "&domain=document")
	if want := []string{"document:created", "document:updated", "document:deleted"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
