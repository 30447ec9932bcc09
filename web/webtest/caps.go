package webtest

import (
	"fmt"
	"testing"
)

// MustCreateWideSheet makes a sheet of cols string fields (field_0000…, labelled "Field N")
// holding rows records whose values read "value <row>/<column>".
func (e *Env) MustCreateWideSheet(t *testing.T, cols, rows int) (spaceID, sheetID string) {
	t.Helper()
	spaceID = e.MustCreateSpace(t, Secret, map[string]any{"name": "wide"})["id"].(string)
	fields := make([]any, cols)
	for i := range fields {
		fields[i] = map[string]any{"key": fmt.Sprintf("field_%04d", i), "label": fmt.Sprintf("Field %d", i), "type": "string"}
	}
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "Wide", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Wide", "fields": fields}}})
	sheetID = wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	recs := make([]any, rows)
	for r := range recs {
		rec := map[string]any{}
		for i := range cols {
			rec[fmt.Sprintf("field_%04d", i)] = map[string]any{"value": fmt.Sprintf("value %d/%d", r, i)}
		}
		recs[r] = rec
	}
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", Secret, recs)
	return spaceID, sheetID
}
