package webtest

import (
	"fmt"
	"strings"
	"testing"
)

// SpreadsheetFields has a text, a number, a boolean, an enum with labels and a read-only
// field, so a paste shows each coercion and the skipping of read-only cells.
const SpreadsheetFields = `[
	{"key":"name","type":"string","label":"Name"},
	{"key":"age","type":"number","label":"Age"},
	{"key":"active","type":"boolean","label":"Active"},
	{"key":"status","type":"enum","label":"Status","config":{"options":[{"value":"on","label":"Running"},{"value":"off","label":"Stopped"}]}},
	{"key":"code","type":"string","label":"Code","readonly":true}
]`

// names reads the sheet's records through the API as "name|age|active|status|code" lines in
// record order.
func SheetLines(t *testing.T, e *Env, sheetID string) []string {
	t.Helper()
	var out []string
	for _, r := range RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", Secret, nil)) {
		vals := r["values"].(map[string]any)
		var parts []string
		for _, k := range []string{"name", "age", "active", "status", "code"} {
			v := ""
			if c, ok := vals[k].(map[string]any); ok && c["value"] != nil {
				v = fmt.Sprint(c["value"])
			}
			parts = append(parts, v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}
