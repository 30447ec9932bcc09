package bench_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// BenchmarkFileImportPostgres is BenchmarkFileImport on PostgreSQL: the same
// generated CSV uploaded over HTTP to a server on SLUICE_DATABASE_URL, beside psql's \copy of
// the file into a plain table of the same database server, then the first and 5,000th record
// pages and the Errors tab on the imported sheet (medians of SLUICE_BENCH_REPEAT).
func BenchmarkFileImportPostgres(b *testing.B) {
	bin, base := os.Getenv("SLUICE_BIN"), os.Getenv("SLUICE_TEST_DATABASE_URL")
	if bin == "" || !strings.HasPrefix(base, "postgres") {
		b.Skip("set SLUICE_BIN and SLUICE_TEST_DATABASE_URL (make bench-pg does)")
	}
	rows := envInt("SLUICE_BENCH_ROWS", 1_000_000)
	repeat := envInt("SLUICE_BENCH_REPEAT", 3)
	dir := b.TempDir()
	csvPath, size := writeCSV(b, dir, rows)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("sluice_bench_%d", os.Getpid())
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		b.Fatal(err)
	}
	defer admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
	u, _ := url.Parse(base)
	u.Path = "/" + name
	dbURL := u.String()

	psql := func(sql string) {
		if out, err := exec.Command("psql", dbURL, "-v", "ON_ERROR_STOP=1", "-qc", sql).CombinedOutput(); err != nil {
			b.Fatalf("psql %s: %v %s", sql, err, out)
		}
	}
	psql(`CREATE TABLE people (id text, first_name text, last_name text, email text, city text, country text, amount text, signup_date text)`)
	start := time.Now()
	psql(`\copy people FROM '` + csvPath + `' WITH (FORMAT csv, HEADER true)`)
	ref := time.Since(start)

	srv := startServer(b, bin, filepath.Join(dir, "data"), "SLUICE_DATABASE_URL="+dbURL, "SLUICE_MASTER_KEY=bench-master-key-0123456789abcdef")
	defer srv.stop()
	b.ResetTimer()
	took, sheet := srv.importFile(b, csvPath, rows)
	b.StopTimer()

	timed := func(path string) time.Duration {
		var ds []time.Duration
		for range repeat {
			t0 := time.Now()
			out := srv.call(b, "GET", path, nil, "")
			ds = append(ds, time.Since(t0))
			if _, ok := out["data"]; !ok {
				b.Fatalf("%s: %v", path, out)
			}
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	first := timed("/v1/sheets/" + sheet + "/records?pageSize=100&pageNumber=1")
	far := timed(fmt.Sprintf("/v1/sheets/%s/records?pageSize=100&pageNumber=%d", sheet, min(5000, rows/100)))
	errTab := timed("/v1/sheets/" + sheet + "/records?pageSize=100&filter=error")
	rss := peakRSS(srv.cmd.Process.Pid)
	b.ReportMetric(took.Seconds()/ref.Seconds(), "x-psql-copy")
	b.ReportMetric(float64(first.Microseconds())/1000, "first-page-ms")
	b.ReportMetric(float64(far.Microseconds())/1000, "page-5000-ms")
	b.ReportMetric(float64(errTab.Microseconds())/1000, "errors-tab-ms")
	fmt.Printf("PostgreSQL file import: %d rows (%.0f MiB CSV) in %.1fs = %.0f rows/s; psql \\copy %.1fs; ratio %.2fx (target <= 2.5x); server peak RSS %.0f MiB\n",
		rows, float64(size)/(1<<20), took.Seconds(), float64(rows)/took.Seconds(), ref.Seconds(), took.Seconds()/ref.Seconds(), rss)
	fmt.Printf("PostgreSQL pages at %d records (median of %d): first %.1f ms, page %d %.1f ms, Errors tab %.1f ms (target <= 50 ms each)\n",
		rows, repeat, float64(first.Microseconds())/1000, min(5000, rows/100), float64(far.Microseconds())/1000, float64(errTab.Microseconds())/1000)
	fmt.Print("PostgreSQL ")
	scanned := queryTimes(b, srv, sheet, rows)
	fmt.Print("PostgreSQL ")
	indexedSearch(b, srv, sheet, rows, scanned)
}
