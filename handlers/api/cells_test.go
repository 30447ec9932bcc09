package api_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/sluice/sluice/web/webtest"

	"github.com/sluice/sluice/store/sqldb"
)

// A field with a value per record answers GET …/cells from its counted values once they are
// built, the same as it was counted before: pages by count and by value, and the whole list.
func TestCellsOfAFieldWithAValuePerRecord(t *testing.T) {
	// Counted by the database's GROUP BY, then tallied (distinct_tally.go), then from the
	// counted values built after that: the same answers.
	e := webtest.NewAPI(t)
	e.DB.Reconfigure(func(s *sqldb.Settings) { s.ValueCountsMin, s.TallyMin = 1<<40, 1<<40 })
	_, sh := e.MustCreateRecordSheet(t, `[{"key":"code","type":"string"},{"key":"tags","type":"string-list"},{"key":"n","type":"number"}]`)
	var recs []map[string]any
	for i := 0; i < 5000; i++ {
		r := map[string]any{"code": map[string]any{"value": fmt.Sprintf("c<%04d>", i%4800)}, "tags": map[string]any{"value": []string{fmt.Sprint("t", i), "x"}},
			"n": map[string]any{"value": i}}
		if i%100 == 0 {
			r["n"] = map[string]any{"value": "n/a"}
		}
		recs = append(recs, r)
	}
	e.MustCall(t, "POST", "/v1/sheets/"+sh+"/records", webtest.Secret, recs)
	queries := []string{"&includeCounts=true&pageSize=5", "&includeCounts=true&pageSize=4&pageNumber=3&filter=error", "&sortField=%s&sortDirection=desc&pageSize=6",
		"&sortField=%s&pageSize=3&pageNumber=2", "&includeCounts=true"}
	answers := func() map[string]any {
		out := map[string]any{}
		for _, f := range []string{"code", "tags", "n"} {
			for _, q := range queries {
				if q[1] == 's' {
					q = fmt.Sprintf(q, f)
				}
				out[f+q] = e.MustCall(t, "GET", "/v1/sheets/"+sh+"/cells?distinct=true&fieldKey="+f+q, webtest.Secret, nil)["data"].(map[string]any)[f]
			}
		}
		return out
	}
	counted := answers()
	e.DB.Reconfigure(func(s *sqldb.Settings) { s.TallyMin = 1 })
	tallied := answers()
	e.DB.Reconfigure(func(s *sqldb.Settings) { s.ValueCountsMin, s.TallyMin = 1, sqldb.DefaultTallyMin })
	for k, want := range counted {
		if got := tallied[k]; !reflect.DeepEqual(got, want) {
			t.Fatalf("%s tallied:\n got  %.400v\n want %.400v", k, got, want)
		}
	}
	answers() // (starts the builds)
	if n := len(counted["code&includeCounts=true"].([]any)); n != 4800 {
		t.Fatalf("%d codes, want 4,800", n)
	}
	if got := counted["code&includeCounts=true&pageSize=5"].([]any)[0].(map[string]any); got["value"] != "c<0000>" || got["counts"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("most frequent code: %v, want c<0000> twice", got)
	}
	sqldb.Eventually(t, "values not counted", func() bool {
		n, _ := e.DB.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values WHERE state = 2`)
		return n == 3
	})
	after := answers()
	for k, want := range counted {
		if got := after[k]; !reflect.DeepEqual(got, want) {
			t.Fatalf("%s from counted values:\n got  %.400v\n want %.400v", k, got, want)
		}
	}
}
