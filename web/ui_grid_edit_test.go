package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// POST …/sheet/:id/edit, the grid's paste and fill: a JSON edit in, the store's result, the
// counts and the undo state out; bad input gets a readable error and changes nothing. POST
// …/undo and …/redo take the user's changes back and forth, with a message in their language,
// whichever page made them (find & replace, row deletes).
func TestGridEditEndpoint(t *testing.T) {
	e := newAPI(t)
	b := loggedIn(t, e)
	spaceID, sheetID := e.mustCreateRecordSheet(t, spreadsheetFields)
	recs := recordsOf(t, e.mustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", testSecret, []any{map[string]any{"name": map[string]any{"value": "Ada"}}}))
	id := recs[0]["id"].(string)
	base := "/space/" + spaceID + "/sheet/" + sheetID
	postTo := func(path, body string) (int, string) {
		t.Helper()
		req := httptest.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", b.csrf)
		for k, v := range b.cookies {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		resp, err := e.app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	post := func(body string) (int, string) { t.Helper(); return postTo("/edit", body) }
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"set":[`, 400, "not valid JSON"},
		{`{}`, 400, "changes nothing"},
		{`{"what":"wipe","add":[{"values":{}}]}`, 400, "paste or fill"},
		{`{"set":[{"id":"` + id + `","values":{"nope":"1"}}]}`, 400, "nope"},
		{`{"remove":["us_rc_missing0000"]}`, 404, "not found"},
		{`{"add":[` + strings.Repeat(`{"values":{}},`, 50000) + `{"values":{}}]}`, 413, "at most 50000 records"},
	} {
		status, body := post(c.body)
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%.40s: got %d %.200s, want %d saying %q", c.body, status, body, c.status, c.says)
		}
	}
	if lines := sheetLines(t, e, sheetID); len(lines) != 1 || lines[0] != "Ada||||" {
		t.Fatalf("refused edits changed the sheet: %q", lines)
	}
	status, body := post(`{"set":[{"id":"` + id + `","values":{"name":"Ada L","age":"42"}}],"add":[{"values":{"name":"Bob"}}]}`)
	type answer struct {
		Data struct {
			Set   int      `json:"set"`
			Added []string `json:"added"`
			What  string   `json:"what"`
			Count int      `json:"count"`
		} `json:"data"`
		Message string `json:"message"`
		Undo    struct {
			CanUndo bool `json:"canUndo"`
			CanRedo bool `json:"canRedo"`
		} `json:"undo"`
		Counts struct {
			Counts map[string]int `json:"counts"`
		} `json:"counts"`
	}
	var out answer
	if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil {
		t.Fatalf("edit: %d %s", status, body)
	}
	if out.Data.Set != 1 || len(out.Data.Added) != 1 || out.Counts.Counts["all"] != 2 || !out.Undo.CanUndo || out.Undo.CanRedo {
		t.Fatalf("edit answered %s", body)
	}
	pasted := sheetLines(t, e, sheetID)
	replay := func(path, wantMessage string, wantLines []string) answer {
		t.Helper()
		status, body := postTo(path, "{}")
		var out answer
		if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil || out.Message != wantMessage {
			t.Fatalf("%s: %d %s, want the message %q", path, status, body, wantMessage)
		}
		if got := sheetLines(t, e, sheetID); fmt.Sprint(got) != fmt.Sprint(wantLines) {
			t.Fatalf("after %s the sheet is %q, want %q", path, got, wantLines)
		}
		return out
	}
	replay("/undo", "Undone: paste (2 records)", []string{"Ada||||"})
	replay("/redo", "Redone: paste (2 records)", pasted)
	// Page actions are undone the same way: a find & replace, then a row delete.
	form := func(path string, vals url.Values) {
		t.Helper()
		if resp, _ := b.do(t, "POST", base+path, vals, true); resp.StatusCode >= 400 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
	}
	form("/find-replace", url.Values{"field": {"name"}, "find": {"Bob"}, "replace": {"Robert"}})
	replaced := sheetLines(t, e, sheetID)
	form("/delete", url.Values{"ids": {id}})
	if got := sheetLines(t, e, sheetID); len(got) != 1 {
		t.Fatalf("delete left %q", got)
	}
	replay("/undo", "Undone: row delete (1 record)", replaced)
	replay("/undo", "Undone: find & replace (1 record)", pasted)
	// In German, the message is German.
	b.cookies["lang"] = "de"
	out = replay("/undo", "Rückgängig gemacht: Einfügen (2 Datensätze)", []string{"Ada||||"})
	if out.Undo.CanUndo || !out.Undo.CanRedo {
		t.Fatalf("after undoing everything: %+v", out.Undo)
	}
}
