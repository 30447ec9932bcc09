package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The caps of issue 13 through the API: a sheet too wide, a key too long and a value too
// long are refused with 400 naming the cap and the value found; what was there stays.
func TestAPICapsAreRefusedClearly(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "caps"})
	spaceID := sp["id"].(string)
	fields := make([]any, 2001)
	for i := range fields {
		fields[i] = map[string]any{"key": fmt.Sprintf("f%d", i), "type": "string"}
	}
	status, out := e.call(t, "POST", "/v1/workbooks", testSecret, map[string]any{"name": "Wide", "spaceId": spaceID,
		"sheets": []any{map[string]any{"name": "Wide", "fields": fields}}})
	if status != http.StatusBadRequest || !strings.Contains(errorMessage(out), "2,001 columns; the limit is 2,000 (SLUICE_MAX_COLUMNS)") {
		t.Fatalf("2,001 fields: %d %v", status, out)
	}
	status, out = e.call(t, "POST", "/v1/workbooks", testSecret, map[string]any{"name": "Long", "spaceId": spaceID,
		"sheets": []any{map[string]any{"name": "Long", "fields": []any{map[string]any{"key": strings.Repeat("k", 1001), "type": "string"}}}}})
	if status != http.StatusBadRequest || !strings.Contains(errorMessage(out), "1,001 characters long; the limit is 1,000") {
		t.Fatalf("a 1,001-character key: %d %v", status, out)
	}

	_, sheetID := e.mustCreateRecordSheet(t, `[{"key":"email","type":"string"},{"key":"tags","type":"string-list"}]`)
	e.mustInsertRecords(t, sheetID, "kept@x.io")
	long := strings.Repeat("é", 100_001)
	status, out = e.call(t, "POST", "/v1/sheets/"+sheetID+"/records", testSecret, []any{
		map[string]any{"email": map[string]any{"value": "new@x.io"}},
		map[string]any{"email": map[string]any{"value": long}}})
	if status != http.StatusBadRequest || !strings.Contains(errorMessage(out), `Field "email" holds a value of 100,001 characters; the limit is 100,000 (SLUICE_MAX_CELL_LENGTH)`) {
		t.Fatalf("a 100,001-character value: %d %v", status, out)
	}
	recs := recordsOf(t, e.mustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", testSecret, nil))
	if len(recs) != 1 {
		t.Fatalf("after the refused insert the sheet holds %d records, want the 1 it had", len(recs))
	}
	id := recs[0]["id"].(string)
	status, out = e.call(t, "PUT", "/v1/sheets/"+sheetID+"/records", testSecret, []any{
		map[string]any{"id": id, "values": map[string]any{"tags": map[string]any{"value": []string{strings.Repeat("t", 60_000), strings.Repeat("u", 60_000)}}}}})
	if status != http.StatusBadRequest || !strings.Contains(errorMessage(out), `Field "tags" holds a value of`) {
		t.Fatalf("a list of 120,000 characters: %d %v", status, out)
	}
	ok := strings.Repeat("é", 100_000)
	e.mustCall(t, "PUT", "/v1/sheets/"+sheetID+"/records", testSecret, []any{map[string]any{"id": id, "values": map[string]any{"email": map[string]any{"value": ok}}}})
}

// An upload past a cap fails with the cap's message and leaves no workbook behind.
func TestUploadPastACapFailsCleanly(t *testing.T) {
	e := newAPI(t)
	startWorker(t, e)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "caps"})
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
	f := e.mustUpload(t, spaceID, "wide.csv", wide.String())
	if f["status"] != "failed" || !strings.Contains(f["description"].(string), "the table has 100,000 columns; the limit is 2,000 (SLUICE_MAX_COLUMNS)") {
		t.Fatalf("100,000 columns: %v %v", f["status"], f["description"])
	}
	long := "name,notes\n" + strings.Repeat("a,b\n", 4000) + "z," + strings.Repeat("n", 200_000) + "\n"
	f = e.mustUpload(t, spaceID, "long.csv", long)
	if f["status"] != "failed" || !strings.Contains(f["description"].(string), `data row 4,001, column "notes", holds a value of 200,000 characters`) {
		t.Fatalf("a 200,000-character cell: %v %v", f["status"], f["description"])
	}
	if wbs := listOf(e.mustCall(t, "GET", "/v1/workbooks?spaceId="+spaceID, testSecret, nil)); len(wbs) != 0 {
		t.Fatalf("failed uploads left %d workbook(s)", len(wbs))
	}
}
