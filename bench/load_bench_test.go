package bench_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// BenchmarkLoad is the write and read load of several clients at once: writers send batches
// of 10 records to 4 sheets (with an Idempotency-Key each, retried with the same key, on the
// other node when there are two, after a timeout or a 5xx), readers read pages of 100 records,
// for SLUICE_LOAD_SECONDS (default 20) per kind of load. It runs against one SQLite node and,
// with SLUICE_TEST_DATABASE_URL, against one and two PostgreSQL nodes sharing a fresh
// database, and prints records written per second, p50/p99 latencies, and what was
// acknowledged, lost (acknowledged, not stored) and duplicated (stored twice).
// SLUICE_LOAD_ONLY="PostgreSQL, 2 nodes: writers only" runs the rows whose "setup: load"
// contains it.
func BenchmarkLoad(b *testing.B) {
	bin := os.Getenv("SLUICE_BIN")
	if bin == "" {
		b.Skip("set SLUICE_BIN (make bench-load does)")
	}
	secs := envInt("SLUICE_LOAD_SECONDS", 20)
	writers, readers := envInt("SLUICE_LOAD_WRITERS", 20), envInt("SLUICE_LOAD_READERS", 20)
	type setup struct {
		name   string
		capped bool // each node on a CPU share of its own
		nodes  func(b *testing.B) []*server
	}
	setups := []setup{{"SQLite, 1 node", false, func(b *testing.B) []*server {
		return []*server{startServer(b, bin, filepath.Join(b.TempDir(), "data"))}
	}}}
	var skipped string
	var pairs [][3]string // setups whose records/s are compared after the table (ratios)
	if base := os.Getenv("SLUICE_TEST_DATABASE_URL"); strings.HasPrefix(base, "postgres") {
		pgNodes := func(n int, cores float64) func(b *testing.B) []*server {
			return func(b *testing.B) []*server {
				dbURL := freshDatabase(b, base)
				var out []*server
				for i := range n {
					env := []string{"SLUICE_DATABASE_URL=" + dbURL, "SLUICE_MASTER_KEY=bench-master-key-0123456789abcdef", fmt.Sprintf("SLUICE_NODE_ID=load-%d", i)}
					if p := os.Getenv("SLUICE_CPU_PROFILE"); p != "" { // one profile a node
						env = append(env, fmt.Sprintf("SLUICE_CPU_PROFILE=%s.%d-%d", p, n, i))
					}
					var cg *cpuCap
					if cores > 0 {
						var err error
						if cg, err = newCPUCap(fmt.Sprintf("sluice-load-%d-%d", os.Getpid(), i), cores); err != nil {
							b.Fatal(err)
						}
						b.Cleanup(cg.remove) // after the node's own cleanup has stopped it
					}
					node := startServer(b, bin, filepath.Join(b.TempDir(), "data"), env...)
					if cg != nil {
						if err := cg.add(node.cmd.Process.Pid); err != nil {
							b.Fatal(err)
						}
					}
					out = append(out, node)
				}
				return out
			}
		}
		plural := map[bool]string{true: "s"}
		for _, n := range []int{1, 2} {
			setups = append(setups, setup{fmt.Sprintf("PostgreSQL, %d node%s", n, plural[n > 1]), false, pgNodes(n, 0)})
		}
		pairs = append(pairs, [3]string{"two PostgreSQL nodes / one (shared cores)", "PostgreSQL, 2 nodes", "PostgreSQL, 1 node"},
			[3]string{"two PostgreSQL nodes / one SQLite node", "PostgreSQL, 2 nodes", "SQLite, 1 node"})
		// Each node on a CPU share of its own (SLUICE_LOAD_NODE_CPU cores, default 0.25; 0:
		// none), where the cgroups can be written: what a second node adds where the nodes'
		// CPU is the limit, as on machines of their own.
		if cores := envFloat("SLUICE_LOAD_NODE_CPU", 0.25); cores > 0 {
			if probe, err := newCPUCap(fmt.Sprintf("sluice-load-%d-probe", os.Getpid()), cores); err != nil {
				skipped = fmt.Sprintf("rows of nodes on %.2f cores each skipped: %v\n", cores, err)
			} else {
				probe.remove()
				for _, n := range []int{1, 2} {
					setups = append(setups, setup{fmt.Sprintf("PostgreSQL, %d node%s of %.2f cores", n, plural[n > 1], cores), true, pgNodes(n, cores)})
				}
				pairs = append(pairs, [3]string{fmt.Sprintf("two PostgreSQL nodes / one (%.2f cores each)", cores),
					fmt.Sprintf("PostgreSQL, 2 nodes of %.2f cores", cores), fmt.Sprintf("PostgreSQL, 1 node of %.2f cores", cores)})
			}
		}
	}
	kinds := []loadKind{{"writers, keyed, with readers", writers, readers, true, false}, {"writers only, keyed", writers, 0, true, false},
		{"writers only, no keys", writers, 0, false, false}, {"keyed, a node SIGKILLed twice", writers, 0, true, true}}
	var table strings.Builder
	rates := map[string]float64{} // records/s by "setup: load"
	fmt.Fprintf(&table, "\nload benchmark: %d s per row, batches of 10 records into 4 sheets, GOMAXPROCS of the clients %d\n", secs, runtime.GOMAXPROCS(0))
	fmt.Fprintf(&table, "%-34s %-30s %10s %8s %10s %10s %10s %10s %8s %6s %6s %7s %9s %11s  %s\n", "setup", "load", "records/s", "reads/s", "write p50", "write p99", "read p50", "read p99",
		"acked", "lost", "dup", "failed", "timeouts", "answer lost", "CPU ms/1k rec (nodes/pg/client), idle")
	for _, s := range setups {
		for _, k := range kinds {
			if k.kill && (!strings.Contains(s.name, "2 nodes") || s.capped) {
				continue // a node killed needs another to retry on; a capped one, its cgroup again
			}
			if only := os.Getenv("SLUICE_LOAD_ONLY"); only != "" && !strings.Contains(s.name+": "+k.name, only) {
				continue
			}
			nodes := s.nodes(b)
			r := runLoad(b, bin, nodes, k, time.Duration(secs)*time.Second)
			for _, n := range nodes {
				n.stop()
			}
			fmt.Fprintf(&table, "%-34s %-30s %10.0f %8.0f %10s %10s %10s %10s %8d %6d %6d %7d %9d %11d  %s\n", s.name, k.name, r.perSecond, float64(len(r.reads))/r.seconds,
				msText(pct(r.writes, 50)), msText(pct(r.writes, 99)), msText(pct(r.reads, 50)), msText(pct(r.reads, 99)), r.acked, r.lost, r.duplicated,
				r.failedBatches, r.timeouts, r.answersLost, r.cpuText())
			rates[s.name+": "+k.name] = r.perSecond
		}
	}
	fmt.Print(table.String() + skipped + ratios(rates, kinds, pairs))
}

// ratios prints, for each pair {label, numerator setup, denominator setup}, the records/s of
// one setup over the other's for each kind of load this run measured in both.
func ratios(rates map[string]float64, kinds []loadKind, pairs [][3]string) string {
	var b strings.Builder
	for _, p := range pairs {
		var parts []string
		for _, k := range kinds {
			n, okN := rates[p[1]+": "+k.name]
			d, okD := rates[p[2]+": "+k.name]
			if okN && okD && d > 0 {
				parts = append(parts, fmt.Sprintf("%s %.2f ×", k.name, n/d))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "%s: %s\n", p[0], strings.Join(parts, ", "))
		}
	}
	return b.String()
}

type loadKind struct {
	name             string
	writers, readers int
	keyed            bool
	// kill: the first node is SIGKILLed at a third and at two thirds of the run and started
	// again under its node id a second later; its batches are retried on the other node
	kill bool
}

type loadResult struct {
	perSecond, seconds      float64
	writes, reads           []time.Duration
	acked, lost, duplicated int
	failedBatches, timeouts int
	answersLost             int // batches written whose answer was lost with a killed node (409)
	cpu                     cpuUse
}

// cpuText is where the CPU went per 1,000 records written (ms: nodes/PostgreSQL/client) and
// how much of the machine stayed idle.
func (r loadResult) cpuText() string {
	written := r.perSecond * r.seconds / 1000
	if r.cpu.total == 0 || written == 0 {
		return "-"
	}
	ms := func(ticks int64) float64 { return float64(ticks) * 1000 / clockTicks / written }
	return fmt.Sprintf("%.0f/%.0f/%.0f %3.0f%%", ms(r.cpu.nodes), ms(r.cpu.postgres), ms(r.cpu.client), 100*float64(r.cpu.total-r.cpu.busy)/float64(r.cpu.total))
}

func runLoad(b *testing.B, bin string, nodes []*server, k loadKind, d time.Duration) loadResult {
	space := nodes[0].call(b, "POST", "/v1/spaces", strings.NewReader(`{"name":"load"}`), "application/json")["data"].(map[string]any)["id"].(string)
	var sheets []string
	body := `{"name":"Load","spaceId":"` + space + `","sheets":[`
	for i := range 4 {
		if i > 0 {
			body += ","
		}
		body += fmt.Sprintf(`{"name":"S%d","slug":"s%d","fields":[{"key":"tag","type":"string"},{"key":"email","type":"string"},{"key":"n","type":"number"}]}`, i, i)
	}
	wb := nodes[0].call(b, "POST", "/v1/workbooks", strings.NewReader(body+`]}`), "application/json")["data"].(map[string]any)
	for _, s := range wb["sheets"].([]any) {
		sheets = append(sheets, s.(map[string]any)["id"].(string))
	}
	client := &http.Client{Timeout: 10 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var mu sync.Mutex
	var res loadResult
	acked := map[string]bool{}
	var written atomic.Int64
	var wg sync.WaitGroup
	for w := range k.writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := 0; ctx.Err() == nil; batch++ {
				sheet := sheets[(w+batch)%len(sheets)]
				tags := make([]string, 10)
				var buf bytes.Buffer
				buf.WriteString("[")
				for i := range tags {
					tags[i] = fmt.Sprintf("w%d-b%d-r%d", w, batch, i)
					if i > 0 {
						buf.WriteString(",")
					}
					fmt.Fprintf(&buf, `{"tag":{"value":%q},"email":{"value":"%s@example.com"},"n":{"value":%d}}`, tags[i], tags[i], batch)
				}
				buf.WriteString("]")
				key := ""
				if k.keyed {
					key = fmt.Sprintf("load-%d-%d", w, batch)
				}
				start := time.Now()
				ok := false
				var answers []string // of a batch given up, logged
				for attempt := 0; attempt < 5 && !ok; attempt++ {
					node := nodes[(w+attempt)%len(nodes)] // a retry goes to the other node
					req, _ := http.NewRequest("POST", node.base+"/v1/sheets/"+sheet+"/records", bytes.NewReader(buf.Bytes()))
					req.Header.Set("Authorization", "Bearer sk_bench")
					req.Header.Set("Content-Type", "application/json")
					if key != "" {
						req.Header.Set("Idempotency-Key", key)
					}
					resp, err := client.Do(req)
					if err != nil {
						mu.Lock()
						res.timeouts++
						mu.Unlock()
						if !k.keyed {
							break // without a key a retry could write twice: the batch is not acknowledged
						}
						continue
					}
					msg, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if a := fmt.Sprintf("%d %s", resp.StatusCode, msg); resp.StatusCode != 200 && (len(answers) == 0 || answers[len(answers)-1] != a) {
						answers = append(answers, a)
					}
					switch {
					case resp.StatusCode == 200:
						ok = true
					case resp.StatusCode == 409 && k.keyed && bytes.Contains(msg, []byte("stopped before answering")):
						// written once, its answer lost with the node: acknowledged (the check
						// below then finds its records stored once), counted apart
						ok = true
						mu.Lock()
						res.answersLost++
						mu.Unlock()
					case resp.StatusCode == 409 && k.keyed:
						time.Sleep(200 * time.Millisecond) // still running elsewhere, or written before the answer was lost
						attempt--
						if time.Since(start) > 30*time.Second {
							attempt = 5
						}
					case resp.StatusCode >= 500 && k.keyed:
					default:
						attempt = 5
					}
				}
				took := time.Since(start)
				mu.Lock()
				if ok {
					res.writes = append(res.writes, took)
					for _, t := range tags {
						acked[t] = true
					}
					written.Add(int64(len(tags)))
				} else {
					res.failedBatches++
					b.Logf("batch %s given up after %v: %s", key, took.Round(time.Millisecond), strings.Join(answers, " | "))
				}
				mu.Unlock()
			}
		}()
	}
	for r := range k.readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				node := nodes[(r+i)%len(nodes)]
				start := time.Now()
				req, _ := http.NewRequest("GET", node.base+"/v1/sheets/"+sheets[(r+i)%len(sheets)]+"/records?pageSize=100", nil)
				req.Header.Set("Authorization", "Bearer sk_bench")
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				res.reads = append(res.reads, time.Since(start))
				mu.Unlock()
			}
		}()
	}
	var killer sync.WaitGroup // (the stored rows are read once the killed node is back)
	if k.kill {
		killer.Add(1)
		go func() {
			defer killer.Done()
			for round := 1; round <= 2; round++ {
				select {
				case <-ctx.Done():
					return
				case <-time.After(d / 3):
				}
				nodes[0].kill()
				time.Sleep(time.Second)
				nodes[0].restart(b, bin)
			}
		}()
	}
	began, cpuBefore := time.Now(), sampleCPU(pids(nodes))
	wg.Wait()
	if !k.kill { // a killed node's time goes with it
		res.cpu = sampleCPU(pids(nodes)).since(cpuBefore)
	}
	res.seconds = time.Since(began).Seconds()
	res.perSecond = float64(written.Load()) / res.seconds
	killer.Wait()
	// What is stored: every sheet read in full, tags counted.
	stored := map[string]int{}
	for _, sheet := range sheets {
		for page := 1; ; page++ {
			out := nodes[0].call(b, "GET", fmt.Sprintf("/v1/sheets/%s/records?pageSize=10000&pageNumber=%d", sheet, page), nil, "")
			recs, _ := out["data"].(map[string]any)["records"].([]any)
			for _, r := range recs {
				v := r.(map[string]any)["values"].(map[string]any)["tag"].(map[string]any)["value"].(string)
				stored[v]++
			}
			if len(recs) < 10000 {
				break
			}
		}
	}
	res.acked = len(acked)
	for t := range acked {
		if stored[t] == 0 {
			res.lost++
		}
	}
	for _, n := range stored {
		if n > 1 {
			res.duplicated += n - 1
		}
	}
	return res
}

// freshDatabase creates a database for one run on the server of base and drops it after.
func freshDatabase(b testing.TB, base string) string {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		b.Fatal(err)
	}
	name := fmt.Sprintf("sluice_load_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
		admin.Close()
	})
	u, _ := url.Parse(base)
	u.Path = "/" + name
	return u.String()
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func msText(d time.Duration) string {
	if d == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f ms", ms(d))
}
