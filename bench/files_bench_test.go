// Package bench_test holds end-to-end benchmarks that run the real server binary.
package bench_test

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/formats"
)

func envInt(key string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(key)); err == nil && v > 0 {
		return v
	}
	return def
}

// envFloat is a number setting: def when unset or not a number (0 and below are kept: "none").
func envFloat(key string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(key), 64); err == nil {
		return v
	}
	return def
}

// writeCSV writes rows × 8 columns of realistic values and returns the path and size.
func writeCSV(b testing.TB, dir string, rows int) (string, int64) {
	cities := []string{"Berlin", "São Paulo", "Zürich", "Paris", "Lagos", "Osaka", "Austin", "Kraków"}
	return writeFile(b, filepath.Join(dir, "people.csv"), func(w *bufio.Writer) {
		fmt.Fprintln(w, "id,first_name,last_name,email,city,country,amount,signup_date")
		for i := 0; i < rows; i++ {
			fmt.Fprintf(w, "%d,First%d,Last%d,user%d@example.com,%s,%s,%d.%02d,2024-%02d-%02d\n",
				i+1, i%997, i%1009, i, cities[i%8], []string{"DE", "BR", "CH", "FR"}[i%4], i%10000, i%100, i%12+1, i%28+1)
		}
	})
}

// writeFile writes what write writes to path and returns the path and size.
func writeFile(b testing.TB, path string, write func(w *bufio.Writer)) (string, int64) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	write(w)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	return path, st.Size()
}

func freeAddr(b testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// peakRSS reads a process's high-water resident set size in MiB.
func peakRSS(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return -1
}

// writeWideCSV writes rows × 12 columns of a less tidy file than writeCSV's: accented
// names, quoted cells with commas and doubled quotes, phone numbers, booleans, dates, a
// column empty in three rows of four and a sentence per row.
func writeWideCSV(b *testing.B, dir string, rows int) (string, int64) {
	first := []string{"José", "Müller", "Ana", "Łukasz", "Chloé", "Søren", "Ming", "Olu", "Priya", "Zoë", "John", "Mary"}
	last := []string{"García", "Smith", "O'Brien", "Nguyễn", "Kowalski", "Dubois", "Ivanov", "Tanaka", "Okafor", "Patel"}
	tiers := []string{"gold", "silver", "bronze", "none"}
	return writeFile(b, filepath.Join(dir, "wide.csv"), func(w *bufio.Writer) {
		fmt.Fprintln(w, "id,name,company,email,phone,address,amount,active,joined,notes,bio,tier")
		for i := 0; i < rows; i++ {
			fn, ln := first[i%len(first)], last[(i/7)%len(last)]
			company := fmt.Sprintf("Company %d", i%5000)
			if i%3 == 0 {
				company = `"` + ln + ` & Sons, Inc."`
			}
			notes := ""
			if i%4 == 0 {
				notes = fmt.Sprintf(`"note %d: call back, maybe"`, i)
			}
			fmt.Fprintf(w, "%d,%s %s,%s,%s.%d@mail%d.test,+1 (555) %03d-%04d,\"%d \"\"Main\"\" St, Apt %d\",%d.%02d,%t,20%02d-%02d-%02d,%s,Loves %s things; with us for %d years and counting,%s\n",
				i, fn, ln, company, strings.ToLower(fn), i, i%50, i%1000, i%10000, i%999, i%40, (i*37)%1000, i%100, i%2 == 1,
				10+i%15, 1+i%12, 1+i%28, notes, tiers[(i/3)%4], i%30, tiers[i%4])
		}
	})
}

// importRuns uploads csvPath runs times, each into a fresh server beside the sqlite3 shell's
// .import of the same file, and prints each run; it returns the medians, the highest peak
// RSS, and the last run's server (running) and sheet.
func importRuns(b *testing.B, bin, dir, name, csvPath string, rows, runs int) (took, ref time.Duration, ratio, rss float64, srv *server, sheet string) {
	var tooks, refs, ratios []time.Duration
	for r := 0; r < runs; r++ {
		start := time.Now()
		imp := exec.Command("sqlite3", filepath.Join(dir, fmt.Sprintf("ref-%s%d.db", name, r)), "-cmd", ".mode csv", ".import "+csvPath+" people")
		if out, err := imp.CombinedOutput(); err != nil {
			b.Fatalf("sqlite3 .import: %v %s", err, out)
		}
		ref := time.Since(start)
		if srv != nil {
			srv.stop()
		}
		srv = startServer(b, bin, filepath.Join(dir, fmt.Sprintf("data-%s%d", name, r)))
		b.ResetTimer()
		var took time.Duration
		took, sheet = srv.importFile(b, csvPath, rows)
		b.StopTimer()
		tooks, refs = append(tooks, took), append(refs, ref)
		ratios = append(ratios, time.Duration(float64(time.Second)*took.Seconds()/ref.Seconds()))
		peak := peakRSS(srv.cmd.Process.Pid)
		rss = max(rss, peak)
		fmt.Printf("%s file import, run %d: %.2fs; sqlite3 .import %.2fs; ratio %.2fx; server peak RSS %.0f MiB\n", name, r+1, took.Seconds(), ref.Seconds(), took.Seconds()/ref.Seconds(), peak)
	}
	return median(tooks), median(refs), median(ratios).Seconds(), rss, srv, sheet
}

// BenchmarkFileImport uploads a generated CSV over HTTP until every record is stored,
// validated and queryable, beside the sqlite3 shell's .import of the same file, three times
// (each into a fresh server and database, each beside its own .import), and reports the
// medians; then it times the issue-17 queries on the last import's sheet. Then the same
// imports of a wider, less tidy file (writeWideCSV).
func BenchmarkFileImport(b *testing.B) {
	bin := os.Getenv("SLUICE_BIN")
	if bin == "" {
		b.Skip("set SLUICE_BIN to a built server (make bench does)")
	}
	rows := envInt("SLUICE_BENCH_ROWS", 1_000_000)
	runs := envInt("SLUICE_BENCH_RUNS", 3)
	dir := b.TempDir()
	csvPath, size := writeCSV(b, dir, rows)
	took, ref, ratio, rss, srv, sheet := importRuns(b, bin, dir, "people", csvPath, rows, runs)
	scanned := queryTimes(b, srv, sheet, rows)
	indexedSearch(b, srv, sheet, rows, scanned)
	srv.stop()
	infer := inferenceTime(b, csvPath)
	b.ReportMetric(100*infer.Seconds()/took.Seconds(), "%-inference")
	fmt.Printf("format inference over every value of the %d columns: %.2fs = %.1f%% of the import (target <= 10%%)\n", 8, infer.Seconds(), 100*infer.Seconds()/took.Seconds())
	b.ReportMetric(float64(rows)/took.Seconds(), "rows/s")
	b.ReportMetric(ratio, "x-sqlite3-import")
	b.ReportMetric(rss, "peak-RSS-MiB")
	fmt.Printf("file import: %d rows (%.0f MiB CSV), median of %d: %.2fs = %.0f rows/s; sqlite3 .import %.2fs; ratio %.2fx (target <= 2x); server peak RSS at most %.0f MiB (target <= 300)\n",
		rows, float64(size)/(1<<20), runs, took.Seconds(), float64(rows)/took.Seconds(), ref.Seconds(), ratio, rss)

	widePath, wideSize := writeWideCSV(b, dir, rows)
	took, ref, ratio, rss, srv, _ = importRuns(b, bin, dir, "wide", widePath, rows, runs)
	srv.stop()
	b.ReportMetric(ratio, "x-sqlite3-import-wide")
	b.ReportMetric(rss, "peak-RSS-wide-MiB")
	fmt.Printf("wide file import: %d rows × 12 columns (%.0f MiB CSV), median of %d: %.2fs = %.0f rows/s; sqlite3 .import %.2fs; ratio %.2fx (target <= 2x); server peak RSS at most %.0f MiB (target <= 300)\n",
		rows, float64(wideSize)/(1<<20), runs, took.Seconds(), float64(rows)/took.Seconds(), ref.Seconds(), ratio, rss)
}

// server is a built Sluice started for a benchmark.
type server struct {
	cmd  *exec.Cmd
	base string
}

// startServer starts bin on a free port with dataDir and extra settings, and waits for it.
func startServer(b testing.TB, bin, dataDir string, env ...string) *server {
	addr := freeAddr(b)
	cmd := exec.Command(bin)
	cmd.Env = append(append(os.Environ(), "SLUICE_ADDR="+addr, "SLUICE_DATA_DIR="+dataDir, "SLUICE_SECRET_KEY=sk_bench"), env...)
	serverLog(b, cmd)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &server{cmd: cmd, base: "http://" + addr}
	// A benchmark that fails half way leaves no node running to slow the next one (the
	// node as last started: restart replaces the command).
	b.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.kill()
		}
	})
	if !s.waitUp() {
		s.stop()
		b.Fatal("server did not start")
	}
	return s
}

// serverLog appends the server's output to a file of SLUICE_BENCH_LOGS, when set: one file
// per address the benchmarks start servers at.
func serverLog(b testing.TB, cmd *exec.Cmd) {
	dir := os.Getenv("SLUICE_BENCH_LOGS")
	if dir == "" {
		return
	}
	addr := ""
	for _, kv := range cmd.Env {
		if v, ok := strings.CutPrefix(kv, "SLUICE_ADDR="); ok {
			addr = v
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, strings.ReplaceAll(addr, ":", "_")+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	cmd.Stdout, cmd.Stderr = f, f
}

// waitUp waits up to 20 s for the server to answer /healthz.
func (s *server) waitUp() bool {
	for range 400 {
		if r, err := http.Get(s.base + "/healthz"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func (s *server) stop() { s.cmd.Process.Signal(os.Interrupt); s.cmd.Wait() }

// kill stops the server at once (SIGKILL), as a crash would.
func (s *server) kill() { s.cmd.Process.Kill(); s.cmd.Wait() }

// restart starts the server again as it was started (address, data, node id), and waits
// for it.
func (s *server) restart(b testing.TB, bin string) {
	cmd := exec.Command(bin)
	cmd.Env = s.cmd.Env
	serverLog(b, cmd)
	if err := cmd.Start(); err != nil {
		b.Error(err)
		return
	}
	s.cmd = cmd
	if !s.waitUp() {
		b.Error("server did not start again")
	}
}

// call sends an API request with the benchmark's key and decodes the answer.
func (s *server) call(b testing.TB, method, path string, body io.Reader, ct string) map[string]any {
	req, _ := http.NewRequest(method, s.base+path, body)
	req.Header.Set("Authorization", "Bearer sk_bench")
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return out
}

// upload streams the file at path into a new space and returns the file's answer.
func (s *server) upload(b testing.TB, path string) map[string]any {
	space := s.call(b, "POST", "/v1/spaces", strings.NewReader(`{"name":"bench"}`), "application/json")["data"].(map[string]any)["id"].(string)
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		mw.WriteField("spaceId", space)
		part, _ := mw.CreateFormFile("file", filepath.Base(path))
		f, _ := os.Open(path)
		io.Copy(part, f)
		f.Close()
		mw.Close()
		pw.Close()
	}()
	return s.call(b, "POST", "/v1/files", pr, mw.FormDataContentType())["data"].(map[string]any)
}

// importFile uploads the CSV into a new space, waits for its extraction and reads the counts
// and a page: the time a user waits until the records are validated and queryable.
func (s *server) importFile(b *testing.B, csvPath string, rows int) (time.Duration, string) {
	start := time.Now()
	file := s.upload(b, csvPath)
	got := s.waitFile(b, file["id"].(string), time.Hour)
	if got["status"] != "complete" {
		b.Fatalf("extraction failed: %v", got["description"])
	}
	sheet := got["sheetId"].(string)
	counts := s.call(b, "GET", "/v1/sheets/"+sheet+"/counts", nil, "")["data"].(map[string]any)["counts"].(map[string]any)
	page := s.call(b, "GET", "/v1/sheets/"+sheet+"/records?pageSize=100&pageNumber=2", nil, "")["data"].(map[string]any)["records"].([]any)
	took := time.Since(start)
	if int(counts["total"].(float64)) != rows || len(page) != 100 {
		b.Fatalf("got %v records and a page of %d, want %d and 100", counts["total"], len(page), rows)
	}
	return took, sheet
}

// waitFile polls the file id until its extraction ends (complete or failed) or for at most
// wait, and returns the file as last read.
func (s *server) waitFile(b testing.TB, id string, wait time.Duration) map[string]any {
	var got map[string]any
	for deadline := time.Now().Add(wait); ; time.Sleep(100 * time.Millisecond) {
		got, _ = s.call(b, "GET", "/v1/files/"+id, nil, "")["data"].(map[string]any)
		if got["status"] == "complete" || got["status"] == "failed" || time.Now().After(deadline) {
			return got
		}
	}
}

// inferenceTime is what format inference costs over a whole file: every value of
// every column counted as extraction counts them, timed apart from reading the file.
func inferenceTime(b *testing.B, path string) time.Duration {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(bufio.NewReaderSize(f, 1<<20)).ReadAll()
	if err != nil {
		b.Fatal(err)
	}
	cols := make([]formats.Column, len(rows[0]))
	start := time.Now()
	for _, row := range rows[1:] {
		for i, v := range row {
			cols[i].Add(v)
		}
	}
	took := time.Since(start)
	if r := cols[7].Date(); r.Format != formats.YMD || r.Readable != len(rows)-1 {
		b.Fatalf("signup_date reads as %+v", r)
	}
	return took
}
