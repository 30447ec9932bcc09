package web_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// BenchmarkSheetPage renders the sheet grid of a SLUICE_BENCH_ROWS-record sheet (default
// 1,000,000, 8 fields, ~10% invalid) with 100 rows a page, and prints the median server time
// (the request through the whole app, session and CSRF included) of the first page, a page
// deep in the sheet, a sorted page, the error filter, a search, an FFQL filter and a column's
// filter-by-value menu. Target: ≤ 100 ms each. The first sort by a field reads every value
// once (the store then keeps the order for the next pages); it is measured on its own.
func BenchmarkSheetPage(b *testing.B) {
	n := 1000000
	if v, err := strconv.Atoi(os.Getenv("SLUICE_BENCH_ROWS")); err == nil && v > 0 {
		n = v
	}
	e := newAPI(b)
	// The page path's own costs: no search index built in the background meanwhile (the
	// search below scans; bench/ measures searches with the index).
	e.db.Configure(sqldb.Settings{SearchIndexMin: 1 << 40})
	e.now = time.Now()
	sp, ws := e.benchSheet(b, n)
	s := loggedIn(b, e)
	base := "/space/" + sp + "/sheet/" + ws + "?size=100"
	cases := []struct {
		name, path string
		once       bool // one request: the first sort by a field computes its whole order
	}{
		{"first page", base, false},
		{"page 5,000 (offset 499,900)", base + "&page=5000", false},
		{"first sort by city (1 request)", base + "&sort=city", true},
		{"sorted by name, page 2", base + "&sort=name&page=2", false},
		{"errors tab", base + "&filter=error", false},
		{"search \"Basel\"", base + "&search=Basel", false},
		{"FFQL age gt 60", base + "&q=age%20gt%2060", false},
		{"column menu values (city)", "/space/" + sp + "/sheet/" + ws + "/values/city", false},
	}
	b.ResetTimer()
	fmt.Printf("\nSheet page, %d records, 100 rows a page (median of 7 requests)\n", n)
	for _, c := range cases {
		var d []time.Duration
		n := 7
		if c.once {
			n = 1
		}
		for range n {
			req := httptest.NewRequest("GET", c.path, nil)
			for k, v := range s.cookies {
				req.Header.Add("Cookie", k+"="+v)
			}
			start := time.Now()
			resp, err := e.app.Test(req, -1)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			d = append(d, time.Since(start))
			if resp.StatusCode != 200 {
				b.Fatalf("%s: status %d", c.name, resp.StatusCode)
			}
		}
		slices.Sort(d)
		verdict := "ok"
		if d[len(d)/2] > 100*time.Millisecond {
			verdict = "OVER the 100 ms target"
		}
		fmt.Printf("  %-30s %8.1f ms  %s\n", c.name, float64(d[len(d)/2].Microseconds())/1000, verdict)
	}
}

// benchSheet makes a space with an n-record sheet (8 fields, a unique and a required one,
// every tenth record missing its name), inserted through the store's bulk stream.
func (e *apiEnv) benchSheet(b testing.TB, n int) (spaceID, sheetID string) {
	ctx := b.Context()
	sp := &model.Space{AccountID: e.account, EnvironmentID: e.envID, Name: "bench"}
	if err := e.db.CreateSpace(ctx, sp, "bench"); err != nil {
		b.Fatal(err)
	}
	cfg := model.SheetConfig{Name: "People", Slug: "people", Fields: []model.Field{
		{Key: "ref", Label: "Ref", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "unique"}}},
		{Key: "name", Label: "Name", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "required"}}},
		{Key: "email", Label: "Email", Type: model.FieldString},
		{Key: "age", Label: "Age", Type: model.FieldNumber},
		{Key: "city", Label: "City", Type: model.FieldString},
		{Key: "country", Label: "Country", Type: model.FieldString},
		{Key: "joined", Label: "Joined", Type: model.FieldString},
		{Key: "status", Label: "Status", Type: model.FieldString},
	}}
	wb := &model.Workbook{AccountID: e.account, EnvironmentID: e.envID, SpaceID: sp.ID, Name: "Bench", Sheets: []*model.Sheet{{Config: cfg}}}
	if err := e.db.CreateWorkbook(ctx, wb, "bench"); err != nil {
		b.Fatal(err)
	}
	keys := []string{"ref", "name", "email", "age", "city", "country", "joined", "status"}
	cities := []string{"Zurich", "Geneva", "Basel", "Bern", "Lausanne", "Lugano", "Berlin", "Paris", "Milan", "Lyon"}
	i := 0
	src := func() ([]json.RawMessage, error) {
		if i == n {
			return nil, io.EOF
		}
		i++
		name := records.Quote("Person " + strconv.Itoa(i))
		if i%10 == 0 {
			name = json.RawMessage("null")
		}
		return []json.RawMessage{records.Quote("R" + strconv.Itoa(i)), name, records.Quote("p" + strconv.Itoa(i) + "@example.com"),
			json.RawMessage(strconv.Itoa(18 + i%60)), records.Quote(cities[i%len(cities)]), records.Quote("CH"), records.Quote("2024-01-02"),
			records.Quote("active")}, nil
	}
	start := time.Now()
	if _, err := e.db.InsertStream(ctx, wb.Sheets[0].ID, keys, src, 10000, recordset.WriteOptions{Actor: "bench", AccountID: e.account}); err != nil && !errors.Is(err, io.EOF) {
		b.Fatal(err)
	}
	fmt.Printf("inserted %d records in %s\n", n, time.Since(start).Round(time.Millisecond))
	return sp.ID, wb.Sheets[0].ID
}
