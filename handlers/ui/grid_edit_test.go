package ui_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// POST …/sheet/:id/edit, the grid's paste and fill: a JSON edit in, the store's result, the
// counts and the undo state out; bad input gets a readable error and changes nothing. POST
// …/undo and …/redo take the user's changes back and forth, with a message in their language,
// whichever page made them (find & replace, row deletes).
func TestGridEditEndpoint(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	recs := webtest.RecordsOf(t, e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Ada"}}}))
	id := recs[0]["id"].(string)
	base := "/space/" + spaceID + "/sheet/" + sheetID
	postTo := func(path, body string) (int, string) { t.Helper(); return b.PostJSON(t, base+path, body) }
	post := func(body string) (int, string) { t.Helper(); return postTo("/edit", body) }
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"set":[`, 400, "not valid JSON"},
		{`{}`, 400, "changes nothing"},
		{`{"what":"wipe","add":[{"values":{}}]}`, 400, "paste, fill or edit"},
		{`{"set":[{"id":"` + id + `","values":{"nope":"1"}}]}`, 400, "nope"},
		{`{"remove":["us_rc_missing0000"]}`, 404, "not found"},
		{`{"add":[` + strings.Repeat(`{"values":{}},`, 50000) + `{"values":{}}]}`, 413, "at most 50000 records"},
	} {
		status, body := post(c.body)
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%.40s: got %d %.200s, want %d saying %q", c.body, status, body, c.status, c.says)
		}
	}
	if lines := webtest.SheetLines(t, e, sheetID); len(lines) != 1 || lines[0] != "Ada||||" {
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
	pasted := webtest.SheetLines(t, e, sheetID)
	replay := func(path, wantMessage string, wantLines []string) answer {
		t.Helper()
		status, body := postTo(path, "{}")
		var out answer
		if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil || out.Message != wantMessage {
			t.Fatalf("%s: %d %s, want the message %q", path, status, body, wantMessage)
		}
		if got := webtest.SheetLines(t, e, sheetID); fmt.Sprint(got) != fmt.Sprint(wantLines) {
			t.Fatalf("after %s the sheet is %q, want %q", path, got, wantLines)
		}
		return out
	}
	replay("/undo", "Undone: paste (2 records)", []string{"Ada||||"})
	replay("/redo", "Redone: paste (2 records)", pasted)
	// Page actions are undone the same way: a find & replace, then a row delete.
	form := func(path string, vals url.Values) {
		t.Helper()
		if resp, _ := b.Do(t, "POST", base+path, vals, true); resp.StatusCode >= 400 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
	}
	form("/find-replace", url.Values{"column": {"name"}, "find": {"Bob"}, "replace": {"Robert"}})
	replaced := webtest.SheetLines(t, e, sheetID)
	form("/delete", url.Values{"ids": {id}})
	if got := webtest.SheetLines(t, e, sheetID); len(got) != 1 {
		t.Fatalf("delete left %q", got)
	}
	replay("/undo", "Undone: row delete (1 record)", replaced)
	form("/rows", url.Values{})
	if got := webtest.SheetLines(t, e, sheetID); len(got) != 3 {
		t.Fatalf("add row left %q", got)
	}
	replay("/undo", "Undone: added row (1 record)", replaced)
	replay("/undo", "Undone: find & replace (1 record)", pasted)
	// In German, the message is German.
	b.Cookies["lang"] = "de"
	out = replay("/undo", "Rückgängig gemacht: Einfügen (2 Datensätze)", []string{"Ada||||"})
	if out.Undo.CanUndo || !out.Undo.CanRedo {
		t.Fatalf("after undoing everything: %+v", out.Undo)
	}
}

// Set value and delete work on the checked rows or, with all=1, on every row the grid shows
// across its pages (here a search), once the count the user confirmed (expect) still holds;
// each is one change to undo.
func TestGridBulkAcrossPages(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	var in []any
	for i := 0; i < 120; i++ {
		name := fmt.Sprintf("keep %03d", i)
		if i%12 < 7 {
			name = fmt.Sprintf("drop %03d", i)
		}
		in = append(in, map[string]any{"name": map[string]any{"value": name}, "code": map[string]any{"value": "c"}})
	}
	recs := webtest.RecordsOf(t, e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, in))
	base := "/space/" + spaceID + "/sheet/" + sheetID
	// The count the matching endpoint gives is the one the forms confirm.
	resp, doc := b.Do(t, "GET", base+"/matching?search=drop", nil, true)
	var m struct{ Count int }
	if err := json.Unmarshal([]byte(doc.Text()), &m); err != nil || resp.StatusCode != 200 || m.Count != 70 {
		t.Fatalf("matching: %d %q, want a count of 70", resp.StatusCode, doc.Text())
	}
	post := func(path string, vals url.Values, status int, says string) string {
		t.Helper()
		resp, doc := b.Do(t, "POST", base+path, vals, true)
		if status == 0 && resp.StatusCode < 300 {
			return resp.Header.Get("HX-Redirect")
		}
		if resp.StatusCode != status || !strings.Contains(doc.Text(), says) {
			t.Fatalf("%s %v: %d %q, want %d saying %q", path, vals, resp.StatusCode, doc.Text(), status, says)
		}
		return ""
	}
	count := func(want string) int {
		n := 0
		for _, l := range webtest.SheetLines(t, e, sheetID) {
			if strings.Contains(l, want) {
				n++
			}
		}
		return n
	}
	post("/set", url.Values{"all": {"1"}, "expect": {"69"}, "search": {"drop"}, "column": {"status"}, "value": {"Stopped"}}, 409, "changed since you selected them (70 now)")
	post("/set", url.Values{"ids": {recs[0]["id"].(string)}, "column": {"code"}, "value": {"x"}}, 400, "read-only")
	post("/set", url.Values{"column": {"status"}, "value": {"x"}}, 400, "Select the rows first")
	if loc := post("/set", url.Values{"all": {"1"}, "expect": {"70"}, "search": {"drop"}, "column": {"status"}, "value": {"Stopped"}}, 0, ""); !strings.Contains(loc, "notice=set%3A70") || !strings.Contains(loc, "search=drop") {
		t.Fatalf("set on all matching redirected to %q", loc)
	}
	if n := count("|off|"); n != 70 {
		t.Fatalf("%d records got the status, want the 70 matching ones", n)
	}
	if loc := post("/set", url.Values{"ids": {recs[7]["id"].(string), recs[8]["id"].(string)}, "column": {"age"}, "value": {"7"}}, 0, ""); !strings.Contains(loc, "notice=set%3A2") {
		t.Fatalf("set on two rows redirected to %q", loc)
	}
	if lines := webtest.SheetLines(t, e, sheetID); lines[7] != "keep 007|7|||c" || lines[8] != "keep 008|7|||c" {
		t.Fatalf("set on two rows: %q %q", lines[7], lines[8])
	}
	// Delete every matching row; undo brings back all of them, then the two-row set and the
	// status are undone in turn.
	post("/delete", url.Values{"all": {"1"}, "expect": {"70"}, "search": {"drop"}}, 0, "")
	if n := len(webtest.SheetLines(t, e, sheetID)); n != 50 {
		t.Fatalf("%d records left after deleting the 70 matching, want 50", n)
	}
	undo := func(says string) {
		t.Helper()
		resp, doc := b.Do(t, "POST", base+"/undo", url.Values{}, true)
		if resp.StatusCode != 200 || !strings.Contains(doc.Text(), says) {
			t.Fatalf("undo: %d %q, want %q", resp.StatusCode, doc.Text(), says)
		}
	}
	undo("Undone: row delete (70 records)")
	if n := len(webtest.SheetLines(t, e, sheetID)); n != 120 {
		t.Fatalf("%d records after undoing the delete, want 120", n)
	}
	undo("Undone: bulk edit (2 records)")
	undo("Undone: bulk edit (70 records)")
	if n := count("|off|") + count("|7|"); n != 0 {
		t.Fatalf("%d records still carry the bulk edits after undoing them", n)
	}
}

// POST …/layout keeps the user's column widths (shown on the grid as data-col-widths and
// saved with a view); unknown columns and widths out of range are refused.
func TestGridLayoutEndpoint(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	base := "/space/" + spaceID + "/sheet/" + sheetID
	post := func(body string) (int, string) { t.Helper(); return b.PostJSON(t, base+"/layout", body) }
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"widths":`, 400, "not valid JSON"},
		{`{"widths":{"nope":100}}`, 400, "no field"},
		{`{"widths":{"name":5}}`, 400, "40 to 1200 pixels"},
		{`{"widths":{"name":240,"age":80}}`, 204, ""},
	} {
		if status, body := post(c.body); status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %.200s, want %d saying %q", c.body, status, body, c.status, c.says)
		}
	}
	_, doc := b.Do(t, "GET", base, nil, false)
	if got, _ := doc.Find(`[data-grid]`).Attr("data-col-widths"); got != `{"age":80,"name":240}` {
		t.Fatalf("the grid carries the widths %q", got)
	}
	// A view saved now keeps them; opening it gives them back after a change.
	resp, _ := b.Do(t, "POST", base+"/views", url.Values{"name": {"Wide"}}, true)
	view := resp.Header.Get("HX-Redirect")
	post(`{"widths":{}}`)
	b.Do(t, "GET", view, nil, false)
	if _, doc = b.Do(t, "GET", base, nil, false); doc.Find(`[data-grid]`).AttrOr("data-col-widths", "") != `{"age":80,"name":240}` {
		t.Fatalf("opening the view did not bring its widths back: %q", doc.Find(`[data-grid]`).AttrOr("data-col-widths", ""))
	}
}
