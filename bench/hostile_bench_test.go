package bench_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkHostile: a guest's ten parallel hostile requests of each kind — a 10 MiB insert of
// 250,000 tiny records, a filter of as many `like` conditions as allowed over a sheet of
// SLUICE_BENCH_ROWS records (default 100,000), an upload form of 1,000,000 fields — sent again
// and again for SLUICE_BENCH_SECONDS (default 20) while one ordinary client reads a space and a
// page of records every 200 ms. Reported: the server's peak RSS (target < 1 GiB) and the
// ordinary client's slowest and median answer (target < 2 s).
func BenchmarkHostile(b *testing.B) {
	bin := os.Getenv("SLUICE_BIN")
	if bin == "" {
		b.Skip("SLUICE_BIN is not set: run make bench")
	}
	rows, secs := envInt("SLUICE_BENCH_ROWS", 100_000), envInt("SLUICE_BENCH_SECONDS", 20)
	dir := b.TempDir()
	csvPath, _ := writeCSV(b, dir, rows)
	srv := startServer(b, bin, filepath.Join(dir, "data"), "SLUICE_SEARCH_INDEX_MIN=0")
	defer srv.stop()
	_, sheet := srv.importFile(b, csvPath, rows)
	space := srv.call(b, "GET", "/v1/sheets/"+sheet, nil, "")["data"].(map[string]any)["workbookId"].(string)
	space = srv.call(b, "GET", "/v1/workbooks/"+space, nil, "")["data"].(map[string]any)["spaceId"].(string)

	// The hostile requests come from a guest of the space, as the probe sent them; the ordinary
	// client is the environment's key.
	env := srv.call(b, "GET", "/v1/spaces/"+space, nil, "")["data"].(map[string]any)["environmentId"].(string)
	guests := srv.call(b, "POST", "/v1/guests", strings.NewReader(`[{"environmentId":"`+env+`","email":"hostile@example.com","spaces":[{"id":"`+space+`"}]}]`), "application/json")
	guestID := guests["data"].([]any)[0].(map[string]any)["id"].(string)
	guest := srv.call(b, "GET", "/v1/guests/"+guestID+"/token?spaceId="+space, nil, "")["data"].(map[string]any)["token"].(string)

	insert := []byte("[" + strings.TrimSuffix(strings.Repeat("{},", 10<<20/3), ",") + "]")
	terms := make([]string, 50)
	for i := range terms {
		terms[i] = fmt.Sprintf(`email like "%%zz%dq%%"`, i)
	}
	filter := "/v1/sheets/" + sheet + "/records?q=" + url.QueryEscape(strings.Join(terms, " or "))
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	for range 1_000_000 {
		_ = mw.WriteField("actions", "{}")
	}
	_ = mw.Close()
	formBody, formType := form.Bytes(), mw.FormDataContentType()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var hostile, refused atomic.Int64
	send := func(method, path string, body []byte, ct string) {
		req, _ := http.NewRequest(method, srv.base+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+guest)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := http.DefaultClient.Do(req)
		hostile.Add(1)
		if err == nil {
			if resp.StatusCode >= 400 {
				refused.Add(1)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	for range 10 {
		for _, h := range []func(){
			func() { send("POST", "/v1/sheets/"+sheet+"/records", insert, "application/json") },
			func() { send("GET", filter, nil, "") },
			func() { send("POST", "/v1/files", formBody, formType) },
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						h()
					}
				}
			}()
		}
	}
	var waits []time.Duration
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	for time.Now().Before(deadline) {
		start := time.Now()
		srv.call(b, "GET", "/v1/spaces/"+space, nil, "")
		srv.call(b, "GET", "/v1/sheets/"+sheet+"/records?pageSize=50", nil, "")
		waits = append(waits, time.Since(start))
		time.Sleep(200 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	rss := peakRSS(srv.cmd.Process.Pid)
	worst, med := waits[len(waits)-1], waits[len(waits)/2]
	b.ReportMetric(rss, "peak-MiB")
	b.ReportMetric(ms(worst), "worst-ms")
	b.ReportMetric(ms(med), "median-ms")
	fmt.Printf("hostile: %d requests (%d refused) in %d s; peak RSS %.0f MiB (target < 1024); ordinary client: median %.0f ms, worst %.0f ms (target < 2000)\n",
		hostile.Load(), refused.Load(), secs, rss, ms(med), ms(worst))
	if rss > 1024 || worst > 2*time.Second {
		b.Errorf("over target: peak RSS %.0f MiB, worst answer %v", rss, worst)
	}
}
