package web_test

import (
	"strings"
	"testing"
)

// Numbers show with the page language's grouping and decimal mark; the stored value stays
// what a copy takes.
func TestGridNumbersInThePageLanguage(t *testing.T) {
	e := newAPI(t)
	spaceID, sheetID := e.mustCreateRecordSheet(t, spreadsheetFields)
	e.mustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", testSecret, []any{map[string]any{"name": map[string]any{"value": "Ada"}, "age": map[string]any{"value": 12000.5}}})
	b := loggedIn(t, e)
	for lang, want := range map[string]string{"en": "12,000.5", "de": "12.000,5"} {
		b.cookies["lang"] = lang
		_, doc := b.do(t, "GET", "/space/"+spaceID+"/sheet/"+sheetID, nil, false)
		cell := doc.Find(`td[data-field-key=age]`)
		raw, _ := cell.Attr("data-raw")
		if got := strings.TrimSpace(cell.Text()); got != want || raw != "12000.5" {
			t.Errorf("%s: the cell shows %q (raw %q), want %q (raw 12000.5)", lang, got, raw, want)
		}
	}
}
