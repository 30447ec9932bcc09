package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkGridPaste times the grid's paste of 10,000 rows × 5 columns (issue 16, target
// ≤ 2 s) on the server: the JSON edit grid-edit.js sends for a spreadsheet block pasted
// below the first record, decoded, read as each field's type, validated, written as one
// commit with its events and undo notes, and answered with the counts. Three pastes, each
// into a fresh sheet; the median is reported (the browser's whole paste, parse to rows shown
// again, is timed by TestBrowserGridPasteTenThousandRows).
func BenchmarkGridPaste(b *testing.B) {
	const rows = 10000
	for i := 0; i < b.N; i++ {
		var runs []time.Duration
		for r := 0; r < 3; r++ {
			runs = append(runs, pasteOnce(b, rows))
		}
		sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
		b.ReportMetric(float64(runs[1].Milliseconds()), "median-ms")
		b.ReportMetric(float64(runs[0].Milliseconds()), "min-ms")
		b.ReportMetric(runs[1].Seconds()/2, "x-target-2s")
	}
}

func pasteOnce(b *testing.B, rows int) time.Duration {
	b.StopTimer()
	e := newAPI(b)
	s := loggedIn(b, e)
	spaceID, sheetID := e.mustCreateRecordSheet(b, spreadsheetFields)
	out := e.mustCall(b, "POST", "/v1/sheets/"+sheetID+"/records", testSecret, []any{map[string]any{"name": map[string]any{"value": "first"}}})
	first := recordsOf(b, out)[0]["id"].(string)
	edit := map[string]any{"what": "paste"}
	var add []any
	for i := 0; i < rows; i++ {
		vals := map[string]any{"name": fmt.Sprintf("name %d", i), "age": fmt.Sprint(i), "active": []string{"no", "yes"}[i%2],
			"status": []string{"Stopped", "Running"}[min(i%3, 1)], "code": fmt.Sprintf("c%d", i)}
		if i == 0 {
			edit["set"] = []any{map[string]any{"id": first, "values": vals}}
		} else {
			add = append(add, map[string]any{"values": vals})
		}
	}
	edit["add"] = add
	body, _ := json.Marshal(edit)
	req := httptest.NewRequest("POST", "/space/"+spaceID+"/sheet/"+sheetID+"/edit", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", s.csrf)
	for k, v := range s.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	b.StartTimer()
	start := time.Now()
	resp, err := e.app.Test(req, -1)
	took := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(raw), fmt.Sprintf(`"all":%d`, rows)) {
		b.Fatalf("paste: %d %.300s", resp.StatusCode, raw)
	}
	return took
}
