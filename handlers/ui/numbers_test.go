package ui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"

	"github.com/PuerkitoBio/goquery"
)

// Numbers show with the page language's grouping and decimal mark; the stored value stays
// what a copy takes.
func TestGridNumbersInThePageLanguage(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Ada"}, "age": map[string]any{"value": 12000.5}}})
	b := webtest.LoggedIn(t, e)
	for lang, want := range map[string]string{"en": "12,000.5", "de": "12.000,5"} {
		b.Cookies["lang"] = lang
		_, doc := b.Do(t, "GET", "/space/"+spaceID+"/sheet/"+sheetID, nil, false)
		cell := doc.Find(`td[data-field-key=age]`)
		raw, _ := cell.Attr("data-raw")
		if got := strings.TrimSpace(cell.Text()); got != want || raw != "12000.5" {
			t.Errorf("%s: the cell shows %q (raw %q), want %q (raw 12000.5)", lang, got, raw, want)
		}
	}
}

// The find & replace dialog says how many records Replace all would change before it runs.
func TestFindReplaceCount(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Ada"}},
		map[string]any{"name": map[string]any{"value": "Adam"}}, map[string]any{"name": map[string]any{"value": "Bo"}}})
	b := webtest.LoggedIn(t, e)
	count := func(find string) string {
		_, doc := b.Do(t, "GET", "/space/"+spaceID+"/sheet/"+sheetID+"/find-replace/count?column=name&find="+find, nil, true)
		return strings.TrimSpace(doc.Text())
	}
	if got := count("ada"); got != "2 records match" {
		t.Errorf("find ada: %q", got)
	}
	if got := count("%22Bo%22"); got != "1 record matches" {
		t.Errorf(`find "Bo": %q`, got)
	}
	if got := count("zzz"); got != "0 records match" {
		t.Errorf("find zzz: %q", got)
	}
	if got := webtest.SheetLines(t, e, sheetID); len(got) != 3 || !strings.HasPrefix(got[0], "Ada|") {
		t.Errorf("counting changed the records: %v", got)
	}
}

// On the Errors tab a column's filter-by-value menu lists the offending values, most errors
// first, even when valid values are far more frequent.
func TestErrorsTabListsOffendingValues(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sheetID := e.MustCreateRecordSheet(t, webtest.SpreadsheetFields)
	var in []any
	for i := 0; i < 30; i++ {
		in = append(in, map[string]any{"name": map[string]any{"value": fmt.Sprintf("ok%02d", i)}, "status": map[string]any{"value": "on"}})
	}
	in = append(in, map[string]any{"name": map[string]any{"value": "bad1"}, "status": map[string]any{"value": "paused"}},
		map[string]any{"name": map[string]any{"value": "bad2"}, "status": map[string]any{"value": "paused"}},
		map[string]any{"name": map[string]any{"value": "bad3"}, "status": map[string]any{"value": "maybe"}})
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, in)
	b := webtest.LoggedIn(t, e)
	values := func(query string) []string {
		_, doc := b.Do(t, "GET", "/space/"+spaceID+"/sheet/"+sheetID+"/values/status"+query, nil, true)
		var out []string
		doc.Find(`[data-testid=value-filter]`).Each(func(_ int, s *goquery.Selection) { out = append(out, strings.Join(strings.Fields(s.Text()), " ")) })
		return out
	}
	if got := values("?filter=error"); fmt.Sprint(got) != "[paused 2 maybe 1]" {
		t.Errorf("the Errors tab's values: %v, want [paused 2 maybe 1]", got)
	}
	if got := values(""); len(got) == 0 || !strings.HasPrefix(got[0], "Running 30") {
		t.Errorf("the All tab's values: %v", got)
	}
}
