package web_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestDocuments(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "docs"})
	base := "/v1/spaces/" + sp["id"].(string) + "/documents"
	if st, out := e.call(t, "POST", base, testSecret, map[string]any{"body": "x"}); st != http.StatusBadRequest || errorKey(t, out) != "title" {
		t.Fatalf("missing title: got %d %v", st, out)
	}
	d := dataOf(e.mustCall(t, "POST", base, testSecret, map[string]any{"title": "Welcome", "body": "# Hi\n<embed type=\"embedded-sheet\" name=\"Contacts\">",
		"treatments": []string{"ephemeral"}, "actions": []any{map[string]any{"operation": "go", "label": "Go"}}}))
	id := d["id"].(string)
	if !strings.HasPrefix(id, "us_dc_") || d["treatments"].([]any)[0] != "ephemeral" {
		t.Fatalf("got %v", d)
	}
	upd := dataOf(e.mustCall(t, "PATCH", base+"/"+id, testSecret, map[string]any{"body": "changed"}))
	if upd["body"] != "changed" || upd["title"] != "Welcome" {
		t.Fatalf("got %v, want body changed and title kept", upd)
	}
	if l := listOf(e.mustCall(t, "GET", base, testSecret, nil)); len(l) != 1 {
		t.Fatalf("got %d documents, want 1", len(l))
	}
	other := e.mustCreateSpace(t, testSecret, map[string]any{"name": "other"})
	if st, _ := e.call(t, "GET", "/v1/spaces/"+other["id"].(string)+"/documents/"+id, testSecret, nil); st != http.StatusNotFound {
		t.Fatalf("document through another space: got %d, want 404", st)
	}
	e.mustCall(t, "DELETE", base+"/"+id, testSecret, nil)
	if st, _ := e.call(t, "GET", base+"/"+id, testSecret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted document: got %d, want 404", st)
	}
	got := e.topics(t, "&domain=document")
	if want := []string{"document:created", "document:updated", "document:deleted"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
