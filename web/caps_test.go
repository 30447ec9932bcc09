package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// The caps of issue 13 through the API: a sheet too wide, a key too long and a value too
// long are refused with 400 naming the cap and the value found; what was there stays.
func TestAPICapsAreRefusedClearly(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "caps"})
	spaceID := sp["id"].(string)
	fields := make([]any, 2001)
	for i := range fields {
		fields[i] = map[string]any{"key": fmt.Sprintf("f%d", i), "type": "string"}
	}
	status, out := e.Call(t, "POST", "/v1/workbooks", webtest.Secret, map[string]any{"name": "Wide", "spaceId": spaceID,
		"sheets": []any{map[string]any{"name": "Wide", "fields": fields}}})
	if status != http.StatusBadRequest || !strings.Contains(webtest.ErrorMessage(out), "2,001 columns; the limit is 2,000 (SLUICE_MAX_COLUMNS)") {
		t.Fatalf("2,001 fields: %d %v", status, out)
	}
	status, out = e.Call(t, "POST", "/v1/workbooks", webtest.Secret, map[string]any{"name": "Long", "spaceId": spaceID,
		"sheets": []any{map[string]any{"name": "Long", "fields": []any{map[string]any{"key": strings.Repeat("k", 1001), "type": "string"}}}}})
	if status != http.StatusBadRequest || !strings.Contains(webtest.ErrorMessage(out), "1,001 characters long; the limit is 1,000") {
		t.Fatalf("a 1,001-character key: %d %v", status, out)
	}

	_, sheetID := e.MustCreateRecordSheet(t, `[{"key":"email","type":"string"},{"key":"tags","type":"string-list"}]`)
	e.MustInsertRecords(t, sheetID, "kept@x.io")
	long := strings.Repeat("é", 100_001)
	status, out = e.Call(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{
		map[string]any{"email": map[string]any{"value": "new@x.io"}},
		map[string]any{"email": map[string]any{"value": long}}})
	if status != http.StatusBadRequest || !strings.Contains(webtest.ErrorMessage(out), `Field "email" holds a value of 100,001 characters; the limit is 100,000 (SLUICE_MAX_CELL_LENGTH)`) {
		t.Fatalf("a 100,001-character value: %d %v", status, out)
	}
	recs := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", webtest.Secret, nil))
	if len(recs) != 1 {
		t.Fatalf("after the refused insert the sheet holds %d records, want the 1 it had", len(recs))
	}
	id := recs[0]["id"].(string)
	status, out = e.Call(t, "PUT", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{
		map[string]any{"id": id, "values": map[string]any{"tags": map[string]any{"value": []string{strings.Repeat("t", 60_000), strings.Repeat("u", 60_000)}}}}})
	if status != http.StatusBadRequest || !strings.Contains(webtest.ErrorMessage(out), `Field "tags" holds a value of`) {
		t.Fatalf("a list of 120,000 characters: %d %v", status, out)
	}
	ok := strings.Repeat("é", 100_000)
	e.MustCall(t, "PUT", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{map[string]any{"id": id, "values": map[string]any{"email": map[string]any{"value": ok}}}})
}

// An upload past a cap fails with the cap's message and leaves no workbook behind.
func TestUploadPastACapFailsCleanly(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "caps"})
	spaceID := sp["id"].(string)
	var wide strings.Builder
	for r := 0; r < 3; r++ {
		for c := 0; c < 100_000; c++ {
			if c > 0 {
				wide.WriteByte(',')
			}
			wide.WriteString("v")
		}
		wide.WriteByte('\n')
	}
	f := e.MustUpload(t, spaceID, "wide.csv", wide.String())
	if f["status"] != "failed" || !strings.Contains(f["description"].(string), "the table has 100,000 columns; the limit is 2,000 (SLUICE_MAX_COLUMNS)") {
		t.Fatalf("100,000 columns: %v %v", f["status"], f["description"])
	}
	long := "name,notes\n" + strings.Repeat("a,b\n", 4000) + "z," + strings.Repeat("n", 200_000) + "\n"
	f = e.MustUpload(t, spaceID, "long.csv", long)
	if f["status"] != "failed" || !strings.Contains(f["description"].(string), `data row 4,001, column "notes", holds a value of 200,000 characters`) {
		t.Fatalf("a 200,000-character cell: %v %v", f["status"], f["description"])
	}
	if wbs := webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks?spaceId="+spaceID, webtest.Secret, nil)); len(wbs) != 0 {
		t.Fatalf("failed uploads left %d workbook(s)", len(wbs))
	}
}

// A sheet of 2,000 columns is shown 40 columns at a time: the page stays small, and the
// window moves with its links and the "Go to column" list, keeping the rows' page.
func TestWideSheetPageIsWindowed(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sheetID := e.MustCreateWideSheet(t, 2000, 60)
	b := webtest.LoggedIn(t, e)
	base := "/space/" + spaceID + "/sheet/" + sheetID
	_, doc := b.Do(t, "GET", base, nil, false)
	html, _ := doc.Html()
	if len(html) > 2<<20 {
		t.Fatalf("the page of a 2,000-column sheet is %d KiB, want at most 2 MiB", len(html)>>10)
	}
	if n := doc.Find(`[data-testid=grid-column]`).Length(); n != 40 {
		t.Fatalf("the first window shows %d columns, want 40", n)
	}
	if got := strings.TrimSpace(doc.Find(`[data-testid=column-window]`).Text()); got != "Columns 1–40 of 2000" {
		t.Fatalf("column window label: %q", got)
	}
	if n := doc.Find(`#column-jump option`).Length(); n != 2000 {
		t.Fatalf("the jump list names %d columns, want 2000", n)
	}
	next, _ := doc.Find(`[data-testid=columns-next]`).Attr("href")
	if next != base+"?cols=40&page=1" {
		t.Fatalf("next columns link: %q", next)
	}
	// Page 2 of the rows, the window holding column 1,990.
	_, doc = b.Do(t, "GET", base+"?page=2&cols=1990", nil, false)
	first, _ := doc.Find(`[data-testid=grid-column]`).First().Attr("data-key")
	last, _ := doc.Find(`[data-testid=grid-column]`).Last().Attr("data-key")
	if first != "field_1960" || last != "field_1999" || doc.Find(`[data-testid=columns-next]`).Length() != 0 {
		t.Fatalf("the window of column 1,990: %s…%s", first, last)
	}
	cell := doc.Find(`[data-testid=grid-row]`).First().Find(`[data-testid=grid-cell]`).First()
	if cell.AttrOr("data-key", "") != "field_1960" || strings.TrimSpace(cell.Text()) != "value 50/1960" {
		t.Fatalf("first cell of page 2's window: %s %q", cell.AttrOr("data-key", ""), cell.Text())
	}
	if prev, _ := doc.Find(`[data-testid=columns-prev]`).Attr("href"); prev != base+"?cols=1920&page=2" {
		t.Fatalf("previous columns link: %q", prev)
	}
	if sel, _ := doc.Find(`#column-jump option[selected]`).Attr("value"); sel != "1960" {
		t.Fatalf("the jump list selects %q", sel)
	}
}
