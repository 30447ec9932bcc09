package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestGuests(t *testing.T) {
	e := webtest.NewAPI(t)
	a := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "A"})
	b := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "B"})
	wbA := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": a["id"], "sheets": []any{map[string]any{"name": "T", "fields": []any{map[string]any{"key": "x", "type": "string"}}}}})
	wbB := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": b["id"]})
	if st, _ := e.Call(t, "POST", "/v1/guests", webtest.Secret, []any{map[string]any{"name": "No mail"}}); st != http.StatusBadRequest {
		t.Fatalf("guest without e-mail: got %d, want 400", st)
	}
	guests := webtest.ListOf(e.MustCall(t, "POST", "/v1/guests", webtest.Secret, []any{map[string]any{"environmentId": e.EnvID, "email": "guest@partner.io", "name": "Pat", "spaces": []any{map[string]any{"id": a["id"]}}}}))
	g := guests[0].(map[string]any)
	id := g["id"].(string)
	if !strings.HasPrefix(id, "us_g_") || len(g["spaces"].([]any)) != 1 {
		t.Fatalf("got %v", g)
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/guests?spaceId="+a["id"].(string), webtest.Secret, nil)); len(l) != 1 {
		t.Fatalf("guests of A: got %d, want 1", len(l))
	}
	tok := webtest.DataOf(e.MustCall(t, "GET", "/v1/guests/"+id+"/token?spaceId="+a["id"].(string), webtest.Secret, nil))
	token := tok["token"].(string)
	if !strings.Contains(tok["url"].(string), "/space/"+a["id"].(string)+"?token=") {
		t.Fatalf("got %v, want a link to the space with the token", tok)
	}
	e.MustCall(t, "GET", "/v1/spaces/"+a["id"].(string), token, nil)
	sheet := wbA["sheets"].([]any)[0].(map[string]any)["id"].(string)
	e.MustCall(t, "POST", "/v1/sheets/"+sheet+"/records", token, []any{map[string]any{"x": map[string]any{"value": "by guest"}}})
	for _, path := range []string{"/v1/spaces/" + b["id"].(string), "/v1/workbooks/" + wbB["id"].(string)} {
		if st, _ := e.Call(t, "GET", path, token, nil); st != http.StatusNotFound {
			t.Errorf("guest of A reading %s: got %d, want 404", path, st)
		}
	}
	for _, c := range []struct{ method, path string }{{"GET", "/v1/spaces"}, {"POST", "/v1/spaces"}, {"GET", "/v1/secrets?environmentId=" + e.EnvID}, {"GET", "/v1/guests"}} {
		if st, _ := e.Call(t, c.method, c.path, token, map[string]any{}); st != http.StatusForbidden {
			t.Errorf("guest %s %s: got %d, want 403", c.method, c.path, st)
		}
	}
	ev := webtest.ListOf(e.MustCall(t, "GET", "/v1/events?topic=records:created&spaceId="+a["id"].(string), webtest.Secret, nil))
	if len(ev) == 0 || ev[0].(map[string]any)["context"].(map[string]any)["actorId"] != id {
		t.Fatalf("got %v, want the guest's write attributed to the guest", ev)
	}
	if topics := e.Topics(t, "&topic=space:guestAdded"); len(topics) != 1 {
		t.Fatalf("got %v, want one space:guestAdded", topics)
	}
	// Removing the grant ends access at once, token or not.
	e.MustCall(t, "DELETE", "/v1/guests/"+id+"?spaceId="+a["id"].(string), webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", "/v1/spaces/"+a["id"].(string), token, nil); st != http.StatusUnauthorized {
		t.Fatalf("after removing the grant: got %d, want 401", st)
	}
	if st, _ := e.Call(t, "GET", "/v1/guests/"+id+"/token?spaceId="+a["id"].(string), webtest.Secret, nil); st != http.StatusBadRequest {
		t.Fatalf("token for a space the guest lost: got %d, want 400", st)
	}
	e.MustCall(t, "PATCH", "/v1/guests/"+id, webtest.Secret, map[string]any{"name": "Pat B", "spaces": []any{map[string]any{"id": b["id"]}}})
	got := webtest.DataOf(e.MustCall(t, "GET", "/v1/guests/"+id, webtest.Secret, nil))
	if got["name"] != "Pat B" || got["spaces"].([]any)[0].(map[string]any)["id"] != b["id"] {
		t.Fatalf("got %v", got)
	}
	e.MustCall(t, "DELETE", "/v1/guests/"+id, webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", "/v1/guests/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted guest: got %d, want 404", st)
	}
}
