package api_test

import (
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// A value holding the NUL character (U+0000): SQLite stores it; PostgreSQL cannot, and the
// API says so with a 400 instead of an internal error. Nothing is written either way but
// the record whole.
func TestNulCharacterInAValue(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sh := e.MustCreateRecordSheet(t, `[{"key":"a","type":"string"}]`)
	status, body := e.Call(t, "POST", "/v1/sheets/"+sh+"/records", webtest.Secret, []any{map[string]any{"a": map[string]any{"value": "x\u0000y"}}})
	recs := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sh+"/records", webtest.Secret, nil))
	if e.DB.Postgres() {
		errsList, _ := body["errors"].([]any)
		msg := ""
		if len(errsList) == 1 {
			msg, _ = errsList[0].(map[string]any)["message"].(string)
		}
		if status != 400 || !strings.Contains(msg, "NUL character") {
			t.Fatalf("PostgreSQL: %d %v, want 400 naming the NUL character", status, body)
		}
		if len(recs) != 0 {
			t.Fatalf("records after the refused write: %v", recs)
		}
		return
	}
	if status != 200 || len(recs) != 1 || recs[0]["values"].(map[string]any)["a"].(map[string]any)["value"] != "x\u0000y" {
		t.Fatalf("SQLite: %d %v, records %v", status, body, recs)
	}
}
