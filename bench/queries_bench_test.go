package bench_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// timeGet times one GET of the API and fails the benchmark on an error status.
func (s *server) timeGet(b *testing.B, path string) time.Duration {
	req, _ := http.NewRequest("GET", s.base+path, nil)
	req.Header.Set("Authorization", "Bearer sk_bench")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var sink [32 << 10]byte
	for {
		if _, err := resp.Body.Read(sink[:]); err != nil {
			break
		}
	}
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != 200 {
		b.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	return took
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// queryTimes times the issue-17 queries on an imported sheet of rows people, each the median
// of 3: a search for one rare e-mail (all fields and one field) right after the import, the
// first page sorted by a field never sorted before (cold: three different fields) and pages
// 2, 500 and 5,000 right after it, the distinct values of a field with their counts (cold,
// then warm, then after a write), and the search again, while the sheet's search index
// (started once the import's writes paused) is being built. It returns how long indexProbe
// took right after the import (indexedSearch waits for the index to answer it sooner).
func queryTimes(b *testing.B, s *server, sheet string, rows int) (probeScanned time.Duration) {
	imported := time.Now()
	search, searchField := searchTimes(b, s, sheet, rows)
	probeScanned = s.timeGet(b, indexProbe(sheet, rows))
	base := "/v1/sheets/" + sheet
	var first, next []time.Duration
	fields := []string{"last_name", "city", "amount"} // text, text, number
	for _, f := range fields {
		q := base + "/records?pageSize=100&sortField=" + f + "&sortDirection=asc"
		first = append(first, s.timeGet(b, q+"&pageNumber=1"))
		for _, p := range []int{2, 500, 5000} {
			next = append(next, s.timeGet(b, fmt.Sprintf("%s&pageNumber=%d", q, p)))
		}
	}
	var distinctCold, distinct []time.Duration
	for _, f := range []string{"first_name", "country", "signup_date"} {
		q := base + "/cells?distinct=true&includeCounts=true&fieldKey=" + f
		distinctCold = append(distinctCold, s.timeGet(b, q))
		distinct = append(distinct, s.timeGet(b, q))
	}
	// Exact after writes: one record changed, then the lists again (kept in step by the
	// write, not counted again). A field with a value per record has no kept list: counted.
	rec := s.call(b, "GET", base+"/records?pageSize=1", nil, "")["data"].(map[string]any)["records"].([]any)[0].(map[string]any)
	edit := fmt.Sprintf(`[{"id":%q,"values":{"country":{"value":"PT"},"first_name":{"value":"Zed"}}}]`, rec["id"])
	s.call(b, "PUT", base+"/records", strings.NewReader(edit), "application/json")
	// The sorted pages after a write: the kept order is patched, not computed again.
	var sortedAfterWrite []time.Duration
	for _, f := range fields {
		sortedAfterWrite = append(sortedAfterWrite, s.timeGet(b, base+"/records?pageSize=100&sortField="+f+"&sortDirection=asc&pageNumber=2"))
	}
	var afterWrite []time.Duration
	for _, f := range []string{"first_name", "country", "signup_date"} {
		afterWrite = append(afterWrite, s.timeGet(b, base+"/cells?distinct=true&includeCounts=true&fieldKey="+f))
	}
	found := false
	for _, c := range s.call(b, "GET", base+"/cells?distinct=true&includeCounts=true&fieldKey=country", nil, "")["data"].(map[string]any)["country"].([]any) {
		found = found || c.(map[string]any)["value"] == "PT"
	}
	if !found {
		b.Fatal("the written country is not among the distinct values")
	}
	// A field with a value per record has no kept list: its first request tallies it and
	// starts building its counted values; the requests after that read them. The first page
	// in value order of another such field (page 500, ids from the last) is tallied too.
	emailPage := base + "/cells?distinct=true&includeCounts=true&pageSize=100&fieldKey=email"
	counted := s.timeGet(b, emailPage)
	idByValue := s.timeGet(b, base+"/cells?distinct=true&includeCounts=true&pageSize=100&fieldKey=id&sortField=id&sortDirection=desc&pageNumber=500")
	waited := time.Now()
	for time.Since(waited) < time.Minute && s.timeGet(b, emailPage) > counted/3 {
		time.Sleep(250 * time.Millisecond)
	}
	built := time.Since(waited)
	var page, byValue, whole []time.Duration
	for range 3 {
		page = append(page, s.timeGet(b, emailPage))
		byValue = append(byValue, s.timeGet(b, emailPage+"&sortField=email&pageNumber=500"))
		whole = append(whole, s.timeGet(b, base+"/cells?distinct=true&includeCounts=true&fieldKey=email"))
	}
	b.ReportMetric(ms(median(afterWrite)), "distinct-after-write-ms")
	b.ReportMetric(ms(median(page)), "distinct-per-record-page-ms")
	b.ReportMetric(ms(counted), "distinct-per-record-first-ms")
	fmt.Printf("distinct values after a write: %.0f ms (median of 3); of a field with a value per record: first page %.0f ms (tallied; target <= 200), of another page 500 by value %.0f ms, then counted ahead (ready %.1f s later): a page %.0f ms, page 500 by value %.0f ms, all %d values %.0f ms (medians of 3)\n",
		ms(median(afterWrite)), ms(counted), ms(idByValue), built.Seconds(), ms(median(page)), ms(median(byValue)), rows, ms(median(whole)))
	since := time.Since(imported)
	building, buildingField := searchTimes(b, s, sheet, rows)
	b.ReportMetric(ms(median(building)), "search-building-ms")
	fmt.Printf("search %.0f s after the import, while the search index is built: one e-mail %.0f ms, in its field %.0f ms (median of 3; target <= 100)\n", since.Seconds(), ms(median(building)), ms(median(buildingField)))
	fmt.Printf("first sorted page, cold, by field: %s %.0f ms, %s %.0f ms, %s %.0f ms; page 2 of each right after a write: %.0f, %.0f, %.0f ms\n", fields[0], ms(first[0]), fields[1], ms(first[1]), fields[2], ms(first[2]),
		ms(sortedAfterWrite[0]), ms(sortedAfterWrite[1]), ms(sortedAfterWrite[2]))
	b.ReportMetric(ms(median(sortedAfterWrite)), "sorted-after-write-ms")
	sort.Slice(next, func(i, j int) bool { return next[i] < next[j] })
	worstNext := next[len(next)-1]
	b.ReportMetric(ms(median(search)), "search-ms")
	b.ReportMetric(ms(median(first)), "sorted-first-page-ms")
	b.ReportMetric(ms(worstNext), "sorted-later-page-max-ms")
	b.ReportMetric(ms(median(distinctCold)), "distinct-cold-ms")
	fmt.Printf("queries at %d records (median of 3): search one e-mail right after the import %.0f ms, in its field %.0f ms (target <= 100); first sorted page, cold %.0f ms (target <= 500); pages 2, 500, 5,000 after it: median %.0f ms, worst %.0f ms (target <= 100); distinct values with counts cold %.0f ms, warm %.0f ms (target <= 200)\n",
		rows, ms(median(search)), ms(median(searchField)), ms(median(first)), ms(median(next)), ms(worstNext), ms(median(distinctCold)), ms(median(distinct)))
	return probeScanned
}

// indexProbe is a search the sheet's trigram index answers and PostgreSQL's search filters
// leave to it (a comma: a needle that may lie across a list's punctuation): a number and a
// comma, which no record holds.
func indexProbe(sheet string, rows int) string {
	return "/v1/sheets/" + sheet + "/records?pageSize=100&searchValue=" + url.QueryEscape(probeNeedle(rows))
}

func probeNeedle(rows int) string { return strconv.Itoa(rows/2+3) + "," }

// searchTimes times three searches for one rare e-mail each, over every field and in its own.
func searchTimes(b *testing.B, s *server, sheet string, rows int) (search, inField []time.Duration) {
	base := "/v1/sheets/" + sheet + "/records?pageSize=100"
	for i := 0; i < 3; i++ {
		email := url.QueryEscape(fmt.Sprintf("user%d@example.com", rows/3*(i+1)-7))
		search = append(search, s.timeGet(b, base+"&searchValue="+email))
		inField = append(inField, s.timeGet(b, base+"&searchField=email&searchValue="+email))
	}
	return search, inField
}

// indexedSearch times searches once the sheet's trigram index answers them (PostgreSQL's
// pg_trgm, SQLite's FTS5), built in the background since the import's writes paused: ready
// when indexProbe takes a quarter of the time it took scanning the sheet.
func indexedSearch(b *testing.B, s *server, sheet string, rows int, probeScanned time.Duration) {
	search := "/v1/sheets/" + sheet + "/records?pageSize=100&searchValue=" + url.QueryEscape(fmt.Sprintf("user%d@example.com", rows/2+3))
	probe := indexProbe(sheet, rows)
	waited := time.Now()
	for time.Since(waited) < 3*time.Minute && s.timeGet(b, probe) > probeScanned/4 {
		time.Sleep(time.Second)
	}
	ready := time.Since(waited)
	var ds, ps []time.Duration
	for i := 0; i < 3; i++ {
		ds = append(ds, s.timeGet(b, search))
		ps = append(ps, s.timeGet(b, probe))
	}
	b.ReportMetric(ms(median(ds)), "search-indexed-ms")
	b.ReportMetric(ms(median(ps)), "search-indexed-probe-ms")
	fmt.Printf("search once the sheet's trigram index is ready (%.0f s after the queries above; %q scanned for right after the import: %.0f ms): one e-mail %.0f ms, %q %.0f ms (medians of 3; target <= 100)\n",
		ready.Seconds(), probeNeedle(rows), ms(probeScanned), ms(median(ds)), probeNeedle(rows), ms(median(ps)))
	// A needle in every record, which the index would list whole: scanned for instead.
	base := "/v1/sheets/" + sheet
	common := map[string]string{
		"count":                   base + "/counts?searchValue=example.com",
		"first page":              base + "/records?pageSize=100&searchValue=example.com",
		"distinct e-mails page 1": base + "/cells?fieldKey=email&distinct=true&includeCounts=true&pageSize=50&searchValue=example.com",
	}
	fmt.Printf("search matching every record (example.com), medians of 3:")
	for _, what := range []string{"count", "first page", "distinct e-mails page 1"} {
		ds = ds[:0]
		for i := 0; i < 3; i++ {
			ds = append(ds, s.timeGet(b, common[what]))
		}
		b.ReportMetric(ms(median(ds)), "search-common-"+strings.ReplaceAll(what, " ", "-")+"-ms")
		fmt.Printf(" %s %.0f ms;", what, ms(median(ds)))
	}
	fmt.Println()
}
