package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// POST …/sheet/:id/edit, the grid's paste, undo and redo: a JSON edit in, the store's result
// with its inverse and the counts out; bad input gets a readable error and changes nothing.
func TestGridEditEndpoint(t *testing.T) {
	e := newAPI(t)
	b := loggedIn(t, e)
	spaceID, sheetID := e.mustCreateRecordSheet(t, spreadsheetFields)
	recs := recordsOf(t, e.mustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", testSecret, []any{map[string]any{"name": map[string]any{"value": "Ada"}}}))
	id := recs[0]["id"].(string)
	post := func(body string) (int, string) {
		t.Helper()
		req := httptest.NewRequest("POST", "/space/"+spaceID+"/sheet/"+sheetID+"/edit", strings.NewReader(body))
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
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"set":[`, 400, "not valid JSON"},
		{`{}`, 400, "changes nothing"},
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
	var out struct {
		Data struct {
			Set     int      `json:"set"`
			Added   []string `json:"added"`
			Inverse struct {
				Set    []map[string]any `json:"set"`
				Remove []string         `json:"remove"`
			} `json:"inverse"`
		} `json:"data"`
		Counts struct {
			Counts map[string]int `json:"counts"`
		} `json:"counts"`
	}
	if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil {
		t.Fatalf("edit: %d %s", status, body)
	}
	if out.Data.Set != 1 || len(out.Data.Added) != 1 || out.Counts.Counts["all"] != 2 ||
		fmt.Sprint(out.Data.Inverse.Set) != fmt.Sprintf("[map[id:%s values:map[age:<nil> name:Ada]]]", id) || fmt.Sprint(out.Data.Inverse.Remove) != fmt.Sprint(out.Data.Added) {
		t.Fatalf("edit answered %s", body)
	}
}
