package recordset_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// The records benchmark: SLUICE_BENCH_ROWS records (default 1,000,000) of 8 fields with one
// unique field, about 11% of them with errors. Each phase runs SLUICE_BENCH_REPEAT times
// (default 3) and reports the median. Run it with `make bench-records`.

var benchSheet = model.SheetConfig{Name: "People", Fields: []model.Field{
	{Key: "ref", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "unique"}}},
	{Key: "name", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "required"}}},
	{Key: "email", Type: model.FieldString},
	{Key: "age", Type: model.FieldNumber},
	{Key: "city", Type: model.FieldString},
	{Key: "country", Type: model.FieldEnum, Config: &model.FieldConfig{Options: []model.EnumOption{
		{Value: json.RawMessage(`"CH"`)}, {Value: json.RawMessage(`"DE"`)}, {Value: json.RawMessage(`"FR"`)}, {Value: json.RawMessage(`"IT"`)}}}},
	{Key: "joined", Type: model.FieldDate},
	{Key: "status", Type: model.FieldString},
}}

var benchCities = []string{"Zurich", "Geneva", "Basel", "Bern", "Lausanne", "Lugano", "Berlin", "Paris", "Milan", "Lyon"}

// benchRow returns row i: every 40th age is not a number, every 20th row repeats the ref
// of the row before it, so both twins are flagged.
func benchRow(i int) []string {
	ref := i
	if i%20 == 1 {
		ref = i - 1
	}
	age := strconv.Itoa(18 + i%60)
	if i%40 == 7 {
		age = "n/a"
	}
	return []string{
		fmt.Sprintf("R%08d", ref), fmt.Sprintf("Person %d", i), fmt.Sprintf("person%d@example.com", i), age,
		benchCities[i%len(benchCities)], []string{"CH", "DE", "FR", "IT"}[i%4], fmt.Sprintf("20%02d-%02d-%02d", 10+i%15, 1+i%12, 1+i%28), "new",
	}
}

func benchEnvInt(key string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(key)); err == nil && n > 0 {
		return n
	}
	return def
}

func writeBenchCSV(b *testing.B, path string, n int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := csv.NewWriter(bufio.NewWriterSize(f, 1<<20))
	for i := 0; i < n; i++ {
		_ = w.Write(benchRow(i))
	}
	w.Flush()
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// heapPeak samples the Go heap while a phase runs.
type heapPeak struct {
	peak atomic.Uint64
	stop chan struct{}
	wg   sync.WaitGroup
}

func watchHeap() *heapPeak {
	h := &heapPeak{stop: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > h.peak.Load() {
				h.peak.Store(m.HeapInuse)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) done() uint64 { close(h.stop); h.wg.Wait(); return h.peak.Load() }

type benchResult struct {
	name string
	runs []time.Duration
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// sqliteImport times the sqlite3 shell importing the CSV into a plain table.
func sqliteImport(b *testing.B, dir, csvPath string) time.Duration {
	db := filepath.Join(dir, "plain.db")
	os.Remove(db)
	script := "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\nCREATE TABLE t (ref TEXT, name TEXT, email TEXT, age TEXT, city TEXT, country TEXT, joined TEXT, status TEXT);\n.mode csv\n.import " + csvPath + " t\n"
	cmd := exec.Command("sqlite3", db)
	cmd.Stdin = strings.NewReader(script)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("sqlite3 .import: %v: %s", err, out)
	}
	d := time.Since(start)
	os.Remove(db)
	return d
}

// storeImport streams the CSV into the store: InsertStream parses and checks rows in one
// goroutine while another writes batches of 10,000, as a file import does.
func storeImport(b *testing.B, e *sheetEnv, sheetID, csvPath string) time.Duration {
	f, err := os.Open(csvPath)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	keys := make([]string, len(benchSheet.Fields))
	for i, fd := range benchSheet.Fields {
		keys[i] = fd.Key
	}
	start := time.Now()
	r := csv.NewReader(bufio.NewReaderSize(f, 1<<20))
	r.ReuseRecord = true
	var quote records.Quoter // (as the server's import quotes its cells)
	src := func() ([]json.RawMessage, error) {
		rec, err := r.Read()
		if err != nil {
			return nil, err
		}
		return quote.Row(rec), nil
	}
	res, err := e.db.InsertStream(context.Background(), sheetID, keys, src, benchEnvInt("SLUICE_BENCH_BATCH", 10000), recordset.WriteOptions{Actor: "bench", DisableHooks: true})
	if err != nil {
		b.Fatal(err)
	}
	if res.Count == 0 {
		b.Fatal("inserted nothing")
	}
	return time.Since(start)
}

func timed(fn func()) time.Duration {
	start := time.Now()
	fn()
	return time.Since(start)
}

// timed5 is the median of five calls: page loads and counts repeat in use.
func timed5(fn func()) time.Duration {
	d := make([]time.Duration, 5)
	for i := range d {
		d[i] = timed(fn)
	}
	return median(d)
}

func BenchmarkRecords(b *testing.B) {
	n := benchEnvInt("SLUICE_BENCH_ROWS", 1000000)
	reps := benchEnvInt("SLUICE_BENCH_REPEAT", 3)
	dir := b.TempDir()
	csvPath := filepath.Join(dir, "rows.csv")
	writeBenchCSV(b, csvPath, n)
	results := map[string]*benchResult{}
	order := []string{}
	rec := func(name string, d time.Duration) {
		if results[name] == nil {
			results[name] = &benchResult{name: name}
			order = append(order, name)
		}
		results[name].runs = append(results[name].runs, d)
	}
	var peaks []uint64
	for rep := 0; rep < reps; rep++ {
		b.StopTimer()
		if _, err := exec.LookPath("sqlite3"); err == nil {
			rec("sqlite3 .import (plain table)", sqliteImport(b, dir, csvPath))
		} else if rep == 0 {
			b.Log("sqlite3 shell not found: no .import baseline")
		}
		e := mustOpenDB(b)
		// The store's own costs: no search index built in the background after the insert
		// (the search below is the scan; bench/ measures searches with the index).
		e.db.Configure(sqldb.Settings{SearchIndexMin: 1 << 40})
		sh := e.mustCreateSheet(b, benchSheet)
		runtime.GC()
		h := watchHeap()
		b.StartTimer()
		rec("store insert (validated)", storeImport(b, e, sh, csvPath))
		runBenchQueries(b, e, sh, n, rec)
		b.StopTimer()
		peaks = append(peaks, h.done())
		e.db.Close()
	}
	printBench(b, n, reps, results, order, peaks)
}

func runBenchQueries(b *testing.B, e *sheetEnv, sh string, n int, rec func(string, time.Duration)) {
	ctx := context.Background()
	get := func(q recordset.RecordQuery) int {
		recs, _, err := e.db.GetRecords(ctx, e.account, sh, q, false)
		if err != nil {
			b.Fatal(err)
		}
		return len(recs)
	}
	c, err := e.db.GetRecordCounts(ctx, e.account, sh)
	if err != nil {
		b.Fatal(err)
	}
	if c.Total != int64(n) {
		b.Fatalf("got total %d, want %d", c.Total, n)
	}
	const size = 20
	last := int(c.Error+size-1) / size
	page := min(5000, last)
	rec("counts", timed5(func() {
		if _, err := e.db.GetRecordCounts(ctx, e.account, sh); err != nil {
			b.Fatal(err)
		}
	}))
	rec("filter=error page 1 (20/page)", timed5(func() { get(recordset.RecordQuery{Filter: "error", Page: model.Page{Size: size, Number: 1}}) }))
	rec(fmt.Sprintf("filter=error page %d (20/page)", page), timed5(func() {
		if got := get(recordset.RecordQuery{Filter: "error", Page: model.Page{Size: size, Number: page}}); got == 0 {
			b.Fatalf("page %d of filter=error is empty", page)
		}
	}))
	rec("page 1 of all (10,000/page)", timed5(func() { get(recordset.RecordQuery{Page: model.Page{Size: 10000, Number: 1}}) }))
	rec("search \"person4242@\" (scan)", timed(func() { get(recordset.RecordQuery{SearchValue: "person4242@", Page: model.Page{Size: 100, Number: 1}}) }))
	rec("q: age gt 70 and city eq Bern", timed5(func() {
		get(recordset.RecordQuery{Q: "age gt 70 and city eq Bern", Page: model.Page{Size: 100, Number: 1}})
	}))
	rec("find & replace every row (status)", timed(func() {
		res, err := e.db.FindAndReplace(ctx, sh, recordset.RecordQuery{}, recordset.FindReplace{FieldKey: "status", Find: json.RawMessage(`"new"`),
			Replace: json.RawMessage(`"imported"`)}, recordset.WriteOptions{Actor: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if res.Count != n {
			b.Fatalf("replaced %d, want %d", res.Count, n)
		}
	}))
	rec("counts after find & replace", timed5(func() {
		if _, err := e.db.GetRecordCounts(ctx, e.account, sh); err != nil {
			b.Fatal(err)
		}
	}))
}

func printBench(b *testing.B, n, reps int, results map[string]*benchResult, order []string, peaks []uint64) {
	var w strings.Builder
	fmt.Fprintf(&w, "\nrecords benchmark: %d records x 8 fields (1 unique), median of %d runs, GOMAXPROCS=%d\n", n, reps, runtime.GOMAXPROCS(0))
	fmt.Fprintf(&w, "%-40s %12s   %s\n", "phase", "median", "runs")
	for _, name := range order {
		r := results[name]
		runs := make([]string, len(r.runs))
		for i, d := range r.runs {
			runs[i] = fmtDur(d)
		}
		extra := ""
		if strings.Contains(name, "insert") || strings.Contains(name, "import") || strings.HasPrefix(name, "find & replace") {
			extra = fmt.Sprintf("  (%.0f rows/s)", float64(n)/median(r.runs).Seconds())
		}
		fmt.Fprintf(&w, "%-40s %12s   %s%s\n", name, fmtDur(median(r.runs)), strings.Join(runs, ", "), extra)
	}
	if imp, ins := results["sqlite3 .import (plain table)"], results["store insert (validated)"]; imp != nil && ins != nil {
		fmt.Fprintf(&w, "insert throughput vs sqlite3 .import: %.0f%% (target >= 40%%)\n", 100*median(imp.runs).Seconds()/median(ins.runs).Seconds())
	}
	var ps []string
	for _, p := range peaks {
		ps = append(ps, fmt.Sprintf("%.0f MiB", float64(p)/(1<<20)))
	}
	fmt.Fprintf(&w, "peak Go heap in use per run: %s\n", strings.Join(ps, ", "))
	b.Log(w.String())
	fmt.Print(w.String())
}

func fmtDur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}
