package ui_test

import (
	"io"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"

	"github.com/PuerkitoBio/goquery"
)

func TestGridTools(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "grid tools"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": sp["id"], "sheets": []any{map[string]any{"name": "People", "fields": []any{
		map[string]any{"key": "name", "type": "string", "label": "Name", "constraints": []any{map[string]any{"type": "required"}}},
		map[string]any{"key": "tier", "type": "enum", "label": "Tier", "config": map[string]any{"sortBy": "ordinal", "options": []any{
			map[string]any{"value": "b", "label": "Bronze", "ordinal": 3}, map[string]any{"value": "g", "label": "Gold", "ordinal": 1}, map[string]any{"value": "s", "label": "Silver", "ordinal": 2}}}},
		map[string]any{"key": "id", "type": "string", "label": "ID", "readonly": true},
		map[string]any{"key": "note", "type": "string", "label": "Note"}}}}})
	sheet := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	e.MustCall(t, "POST", "/v1/sheets/"+sheet+"/records", webtest.Secret, []any{
		map[string]any{"name": map[string]any{"value": "Cy"}, "tier": map[string]any{"value": "g"}, "id": map[string]any{"value": "1"}, "note": map[string]any{"value": "call"}},
		map[string]any{"name": map[string]any{"value": "Ann"}, "tier": map[string]any{"value": "s"}, "id": map[string]any{"value": "2"}, "note": map[string]any{"value": "call back"}},
		map[string]any{"tier": map[string]any{"value": "b"}, "id": map[string]any{"value": "3"}},
	})
	b := webtest.LoggedIn(t, e)
	base := "/space/" + sp["id"].(string) + "/sheet/" + sheet

	_, doc := b.Do(t, "GET", base+"?sort=name&dir=desc", nil, false)
	if got := webtest.GridTexts(doc, "name"); strings.Join(got, ",") != "Cy,Ann," {
		t.Errorf("sorted by name, descending: got %v", got)
	}
	_, doc = b.Do(t, "GET", base+"?field=name", nil, false)
	if got := webtest.GridTexts(doc, "id"); strings.Join(got, ",") != "3" {
		t.Errorf("errors in name: got ids %v, want 3", got)
	}
	_, doc = b.Do(t, "GET", base+"?q="+url.QueryEscape(`"note" eq "call"`), nil, false)
	if got := webtest.GridTexts(doc, "id"); strings.Join(got, ",") != "1" {
		t.Errorf("filter by value: got %v, want 1", got)
	}
	_, doc = b.Do(t, "GET", base+"?q="+url.QueryEscape(`name is error`)+"&filter=error", nil, false)
	if got := webtest.GridTexts(doc, "id"); strings.Join(got, ",") != "3" {
		t.Errorf("is error with the error tab: got %v, want 3", got)
	}
	_, doc = b.Do(t, "GET", base+"?q="+url.QueryEscape(`name eq`), nil, false)
	if doc.Find(`[data-testid=grid-filter-error]`).Length() != 1 {
		t.Error("a malformed filter shows no message")
	}
	// The filter-by-value menu loads when a column menu opens: the values of the whole sheet,
	// the most frequent first, each a link that keeps the grid's other parameters.
	_, doc = b.Do(t, "GET", base+"?filter=error&page=1", nil, false)
	if src, _ := doc.Find(`th[data-key=tier] [data-testid=value-menu]`).Attr("hx-get"); src != base+"/values/tier?filter=error" {
		t.Errorf("tier's value menu loads from %q", src)
	}
	e.MustCall(t, "POST", "/v1/sheets/"+sheet+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Di"}, "tier": map[string]any{"value": "g"}}})
	menu := func(query string) []string {
		_, doc := b.Do(t, "GET", base+"/values/tier"+query, nil, true)
		var entries []string
		doc.Find(`[data-testid=value-filter]`).Each(func(_ int, s *goquery.Selection) {
			href, _ := s.Attr("href")
			entries = append(entries, strings.Join(strings.Fields(s.Text()), " ")+" "+href)
		})
		return entries
	}
	entries := menu("?page=2")
	if want := []string{"Gold 2 " + base + "?q=" + url.QueryEscape(`"tier" eq "g"`), "Bronze 1", "Silver 1"}; len(entries) != 3 || entries[0] != want[0] || !strings.HasPrefix(entries[1], want[1]) || !strings.HasPrefix(entries[2], want[2]) {
		t.Errorf("tier's values: got %q, want Gold (2), then Bronze and Silver, labelled, filtering on the value", entries)
	}
	// On the Errors tab: the values of the records in error, with their error counts.
	if entries := menu("?filter=error"); len(entries) != 1 || entries[0] != "Bronze 1 "+base+"?filter=error&q="+url.QueryEscape(`"tier" eq "b"`) {
		t.Errorf("tier's values on the Errors tab: got %q, want Bronze alone", entries)
	}
	// Enum cells show their option's label.
	_, doc = b.Do(t, "GET", base, nil, false)
	if got := webtest.GridTexts(doc, "tier"); strings.Join(got, ",") != "Gold,Silver,Bronze,Gold" {
		t.Errorf("enum cells: got %v, want their labels", got)
	}
	if resp, _ := b.Do(t, "GET", base+"/values/nope", nil, true); resp.StatusCode != 400 {
		t.Errorf("values of an unknown column: got %d, want 400", resp.StatusCode)
	}

	// The enum editor lists options in ordinal order; the read-only column has no editor.
	rec := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheet+"/records", webtest.Secret, nil))["records"].([]any)[0].(map[string]any)["id"].(string)
	_, ed := b.Do(t, "GET", base+"/cell/"+rec+"/tier/edit", nil, true)
	var opts []string
	ed.Find(`select option`).Each(func(_ int, s *goquery.Selection) { opts = append(opts, s.Text()) })
	if strings.Join(opts, ",") != ",Gold,Silver,Bronze" {
		t.Errorf("enum editor: got options %v, want Gold, Silver, Bronze (ordinal)", opts)
	}
	if resp, _ := b.Do(t, "GET", base+"/cell/"+rec+"/id/edit", nil, true); resp.StatusCode != 403 {
		t.Errorf("editing a read-only cell: got %d, want 403", resp.StatusCode)
	}
	// A line break survives the text area.
	b.Do(t, "POST", base+"/cell/"+rec+"/note", url.Values{"value": {"line 1\r\nline 2"}}, true)
	if v := webtest.CellValue(webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheet+"/records?ids="+rec, webtest.Secret, nil))["records"].([]any)[0].(map[string]any), "note"); v != "line 1\nline 2" {
		t.Errorf("multi-line cell: got %q", v)
	}

	// Find and replace over the shown records, then clear a column (refused for read-only).
	resp, _ := b.Do(t, "POST", base+"/find-replace", url.Values{"column": {"note"}, "find": {"call"}, "replace": {"ring"}}, true)
	if loc := resp.Header.Get("HX-Redirect"); !strings.Contains(loc, "notice=replaced%3A1") && !strings.Contains(loc, "notice=replaced:1") {
		t.Errorf("find & replace: got redirect %q, want 1 replaced (the first note was rewritten above)", loc)
	}
	_, doc = b.Do(t, "GET", base+"?notice=replaced:2", nil, false)
	if !strings.Contains(doc.Find(`[data-testid=grid-notice]`).Text(), "2 record") {
		t.Errorf("notice: got %q", doc.Find(`[data-testid=grid-notice]`).Text())
	}
	if resp, part := b.Do(t, "POST", base+"/clear/id", nil, true); resp.StatusCode != 400 || !strings.Contains(part.Text(), "Column is readonly and cannot be cleared") {
		t.Errorf("clearing a read-only column: got %d %q", resp.StatusCode, part.Text())
	}
	if resp, _ := b.Do(t, "POST", base+"/clear/note", nil, true); !strings.Contains(resp.Header.Get("HX-Redirect"), "cleared") {
		t.Errorf("clear column: got %d %q", resp.StatusCode, resp.Header.Get("HX-Redirect"))
	}

	// Add a row, then delete it with the selection.
	before := len(webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheet+"/records", webtest.Secret, nil))["records"].([]any))
	if resp, _ := b.Do(t, "POST", base+"/rows", nil, true); !strings.Contains(resp.Header.Get("HX-Redirect"), "added") {
		t.Fatalf("add row: got %d %q", resp.StatusCode, resp.Header.Get("HX-Redirect"))
	}
	recs := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheet+"/records", webtest.Secret, nil))["records"].([]any)
	if len(recs) != before+1 {
		t.Fatalf("got %d records, want %d", len(recs), before+1)
	}
	last := recs[len(recs)-1].(map[string]any)["id"].(string)
	if resp, part := b.Do(t, "POST", base+"/delete", url.Values{}, true); resp.StatusCode != 400 || !strings.Contains(part.Text(), "Select the rows") {
		t.Errorf("delete without a selection: got %d %q", resp.StatusCode, part.Text())
	}
	b.Do(t, "POST", base+"/delete", url.Values{"ids": {last}}, true)
	if n := len(webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheet+"/records", webtest.Secret, nil))["records"].([]any)); n != before {
		t.Errorf("after delete: got %d records, want %d", n, before)
	}

	// Save the current filter as a view; it is listed as mine and applies its parameters.
	resp, _ = b.Do(t, "POST", base+"/views", url.Values{"name": {"Missing names"}, "field": {"name"}, "sort": {"id"}, "dir": {"desc"}}, true)
	loc := resp.Header.Get("HX-Redirect")
	if !strings.Contains(loc, "?view=us_vi_") {
		t.Fatalf("save view: got %d %q", resp.StatusCode, loc)
	}
	resp, _ = b.Do(t, "GET", loc, nil, false)
	if to := resp.Header.Get("Location"); !strings.Contains(to, "field=name") || !strings.Contains(to, "sort=id") || !strings.Contains(to, "dir=desc") {
		t.Errorf("applying the view: got %q", to)
	}
	_, doc = b.Do(t, "GET", base, nil, false)
	if doc.Find(`[data-testid=view-link]`).Length() != 2 { // listed under My views and All views
		t.Errorf("views menu: got %d links", doc.Find(`[data-testid=view-link]`).Length())
	}
	if resp, _ := b.Do(t, "POST", base+"/views", url.Values{"name": {" "}}, true); resp.StatusCode != 400 {
		t.Errorf("unnamed view: got %d, want 400", resp.StatusCode)
	}

	// A locked sheet shows why and offers no editing.
	e.MustCall(t, "POST", "/v1/sheets/"+sheet+"/lock", webtest.Secret, nil)
	_, doc = b.Do(t, "GET", base, nil, false)
	if doc.Find(`[data-testid=grid-readonly]`).Length() != 1 || doc.Find(`[data-testid=add-row]`).Length() != 0 || doc.Find(`td[hx-get]`).Length() != 0 {
		t.Error("a locked sheet still offers editing")
	}
	if resp, _ := b.Do(t, "POST", base+"/rows", nil, true); resp.StatusCode != 403 {
		t.Errorf("adding a row to a locked sheet: got %d, want 403", resp.StatusCode)
	}
}

func TestGridExport(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "export"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": sp["id"], "sheets": []any{map[string]any{"name": "People", "slug": "people", "fields": []any{
		map[string]any{"key": "name", "type": "string", "label": "Full name", "constraints": []any{map[string]any{"type": "required"}}}}}}})
	sheet := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	e.MustCall(t, "POST", "/v1/sheets/"+sheet+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Zoë, \"Z\""}}, map[string]any{}})
	b := webtest.LoggedIn(t, e)
	req := httptest.NewRequest("GET", "/space/"+sp["id"].(string)+"/sheet/"+sheet+"/export?format=csv&filter=valid", nil)
	for k, v := range b.Cookies {
		req.Header.Add("Cookie", k+"="+v)
	}
	resp, _ := e.App.Test(req, -1)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "\ufeffFull name\n\"Zoë, \"\"Z\"\"\"\n" || !strings.Contains(resp.Header.Get("Content-Disposition"), "people.csv") {
		t.Errorf("export: got %d %q %q", resp.StatusCode, body, resp.Header.Get("Content-Disposition"))
	}
	// A query the records cannot be read with is refused before the file starts (it streams).
	req = httptest.NewRequest("GET", "/space/"+sp["id"].(string)+"/sheet/"+sheet+"/export?format=csv&sort=nope", nil)
	for k, v := range b.Cookies {
		req.Header.Add("Cookie", k+"="+v)
	}
	resp, _ = e.App.Test(req, -1)
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode < 400 || strings.Contains(resp.Header.Get("Content-Disposition"), "people.csv") {
		t.Errorf("export sorted by an unknown field: got %d %q, want it refused", resp.StatusCode, body)
	}
}

// TestGridCellMessageLevels shows each message type an agent writes (Flatfile's error, warn
// and info) in its own colour on the cell and marks the row that has an error.
func TestGridCellMessageLevels(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sheetID := e.MustCreateRecordSheet(t, `[{"key":"a","type":"string"},{"key":"b","type":"string"},{"key":"c","type":"string"}]`)
	msg := func(v, typ, text string) map[string]any {
		return map[string]any{"value": v, "messages": []any{map[string]any{"type": typ, "message": text}}}
	}
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{
		map[string]any{"a": msg("x", "error", "Not allowed"), "b": msg("y", "warn", "Looks odd"), "c": msg("z", "info", "Normalised")}})
	_, doc := webtest.LoggedIn(t, e).Do(t, "GET", "/space/"+spaceID+"/sheet/"+sheetID, nil, false)
	for key, want := range map[string]string{"a": "error", "b": "warning", "c": "info"} {
		cell := doc.Find(`[data-testid=grid-row] td[data-key="` + key + `"]`)
		if level, _ := cell.Attr("data-level"); level != want {
			t.Errorf("cell %s: level %q, want %q", key, level, want)
		}
	}
	if title, _ := doc.Find(`[data-testid=grid-row] td[data-key="b"]`).Attr("title"); title != "Looks odd" {
		t.Errorf("the warning's text is not on the cell: %q", title)
	}
}

// TestGridReferenceLookup edits a reference cell: the editor suggests the referenced sheet's
// keys, the suggestions follow what is typed (reaching past the first 200), and a key chosen
// that way saves as a valid reference.
func TestGridReferenceLookup(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "refs"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "CRM", "spaceId": sp["id"], "sheets": []any{
		map[string]any{"name": "Companies", "slug": "companies", "fields": []any{map[string]any{"key": "name", "type": "string", "label": "Name"}}},
		map[string]any{"name": "Contacts", "slug": "contacts", "fields": []any{
			map[string]any{"key": "who", "type": "string", "label": "Who"},
			map[string]any{"key": "company", "type": "reference", "label": "Company", "config": map[string]any{"ref": "companies", "key": "name", "relationship": "has-one"}}}}}})
	sheets := wb["sheets"].([]any)
	companies, contacts := sheets[0].(map[string]any)["id"].(string), sheets[1].(map[string]any)["id"].(string)
	var many []any
	for i := 1; i <= 250; i++ {
		many = append(many, map[string]any{"name": map[string]any{"value": "Company " + strconv.Itoa(i)}})
	}
	e.MustCall(t, "POST", "/v1/sheets/"+companies+"/records", webtest.Secret, many)
	e.MustCall(t, "POST", "/v1/sheets/"+contacts+"/records", webtest.Secret, []any{map[string]any{"who": map[string]any{"value": "Ada"}}})
	rec := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+contacts+"/records", webtest.Secret, nil))["records"].([]any)[0].(map[string]any)["id"].(string)
	b := webtest.LoggedIn(t, e)
	cellURL := "/space/" + sp["id"].(string) + "/sheet/" + contacts + "/cell/" + rec + "/company"

	_, ed := b.Do(t, "GET", cellURL+"/edit", nil, true)
	list, _ := ed.Find(`input[name=value]`).Attr("list")
	if list == "" || ed.Find(`datalist#`+list+` option`).Length() != 200 {
		t.Fatalf("reference editor: input list %q with %d suggestions, want a datalist of the first 200", list, ed.Find(`datalist option`).Length())
	}
	_, opts := b.Do(t, "GET", cellURL+"/lookup?value="+url.QueryEscape("company 25"), nil, true)
	var got []string
	opts.Find("option").Each(func(_ int, s *goquery.Selection) { v, _ := s.Attr("value"); got = append(got, v) })
	if strings.Join(got, ",") != "Company 25,Company 250" {
		t.Fatalf("look-up of %q: got %v", "company 25", got)
	}
	resp, doc := b.Do(t, "POST", cellURL, url.Values{"value": {"Company 250"}}, true)
	if level, _ := doc.Find(`[data-testid=grid-cell]`).Attr("data-level"); resp.StatusCode != 200 || level != "" {
		t.Fatalf("saving a looked-up reference: %d, level %q", resp.StatusCode, level)
	}
	if resp, _ := b.Do(t, "GET", "/space/"+sp["id"].(string)+"/sheet/"+contacts+"/cell/"+rec+"/who/lookup", nil, true); resp.StatusCode != 400 {
		t.Errorf("look-up on a text field: got %d, want 400", resp.StatusCode)
	}
}

// A number column's menu sorts 1 → 9, a text column's A → Z.
func TestSortLabelsFollowTheColumnType(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sheetID := e.MustCreateRecordSheet(t, `[{"key":"name","type":"string","label":"Name"},{"key":"age","type":"number","label":"Age"}]`)
	b := webtest.LoggedIn(t, e)
	_, doc := b.Do(t, "GET", "/space/"+spaceID+"/sheet/"+sheetID, nil, false)
	asc := doc.Find(`[data-testid=sort-asc]`)
	if asc.Length() != 2 || !strings.Contains(asc.Eq(0).Text(), "A → Z") || !strings.Contains(asc.Eq(1).Text(), "1 → 9") {
		t.Fatalf("sort entries %q, %q; want A → Z for Name and 1 → 9 for Age", asc.Eq(0).Text(), asc.Eq(1).Text())
	}
}
