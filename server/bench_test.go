package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/benchmd"
	"github.com/restyplane/restyplane/server"
)

// The size of the history benchmark: the numbers its report's goals are stated for.
const (
	benchBackends  = 5000
	benchEndpoints = 4
	benchEdits     = 10000
	benchClients   = 4
	benchRuns      = 9 // repetitions of each read measurement
	benchRollbacks = 9 // rollbacks to the old revision, each followed by one back to the edited state
)

// BenchmarkHistory loads 5,000 backends of 4 endpoints, makes 10,000 single-endpoint edits
// through the HTTP API from a few concurrent clients over loopback, and measures what the
// history costs: database bytes per revision, API writes per second, the state at the
// revision 10,000 back, a rollback to it, and the diff across the 10,000 revisions.
//
// Run it with `make bench`, which sets RESTYPLANE_BENCH_OUT so that the results are written
// into BENCHMARKS.md. One iteration is the whole scenario; use -benchtime 1x.
func BenchmarkHistory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		res := runHistoryBench(b)
		b.ReportMetric(res.bytesPerRevision, "bytes/revision")
		b.ReportMetric(res.writesPerSec, "writes/s")
		b.ReportMetric(ms(res.state.median), "state-ms")
		b.ReportMetric(ms(res.rollback.median), "rollback-ms")
		b.ReportMetric(ms(res.diff.median), "diff-ms")
		if out := os.Getenv("RESTYPLANE_BENCH_OUT"); out != "" {
			if err := benchmd.WriteSection(out, "history", res.markdown()); err != nil {
				b.Fatalf("write %s: %v", out, err)
			}
		}
	}
}

// spread is a set of timings reduced to the figures the report shows.
type spread struct {
	runs        int
	median, p90 time.Duration
	min, max    time.Duration
}

func spreadOf(ds []time.Duration) spread {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	p90 := (len(s)*9 + 9) / 10 // ceil(0.9 n)
	return spread{runs: len(s), median: s[len(s)/2], p90: s[p90-1], min: s[0], max: s[len(s)-1]}
}

type historyResult struct {
	load                      time.Duration
	edits                     time.Duration
	writesPerSec              float64
	editLatency               spread
	sizeBefore, sizeAfter     int64
	bytesPerRevision          float64
	oldRev, editedRev         int64
	state, stateHTTP, diff    spread
	rollback, rollbackRestore spread
	rollbackStore             spread
	rollbackBytes             int
	load1                     string
	diffEntries               int
	finalSize                 int64
	finalRevisions            int64
}

func runHistoryBench(b *testing.B) *historyResult {
	b.Helper()
	e := newEnv(b)
	ctx := context.Background()
	res := &historyResult{load1: loadAverage()}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients}}
	do := func(method, path string, body []byte) ([]byte, time.Duration) {
		b.Helper()
		start := time.Now()
		r, err := http.NewRequest(method, e.ts.URL+path, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+e.editor)
		if body != nil {
			r.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(r)
		if err != nil {
			b.Fatalf("%s %s: %v", method, path, err)
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("%s %s = %d %v: %.300s", method, path, resp.StatusCode, err, out)
		}
		return out, time.Since(start)
	}

	// Load the config in one declarative write.
	cfg := server.ConfigRequest{Backends: make([]api.Backend, 0, benchBackends)}
	for i := 0; i < benchBackends; i++ {
		cfg.Backends = append(cfg.Backends, api.Backend{Name: benchName(i), Endpoints: benchEndpointsFor(i, -1)})
	}
	body, _ := json.Marshal(cfg)
	_, res.load = do("PUT", "/api/v1/config?message=load", body)
	res.oldRev = e.st.Head().Revision
	if err := e.st.Checkpoint(ctx); err != nil {
		b.Fatal(err)
	}
	res.sizeBefore = mustSize(b, e)

	// 10,000 single-endpoint edits from concurrent clients; edit i moves one endpoint of
	// backend i mod 5,000 to a port that no earlier edit used, so every edit is a change.
	b.ResetTimer()
	jobs := make(chan int)
	lat := make([][]time.Duration, benchClients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < benchClients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				body, _ := json.Marshal(server.EndpointsRequest{Endpoints: benchEndpointsFor(i%benchBackends, i)})
				_, d := do("PUT", "/api/v1/backends/"+benchName(i%benchBackends)+"/endpoints", body)
				lat[c] = append(lat[c], d)
			}
		}()
	}
	for i := 0; i < benchEdits; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	res.edits = time.Since(start)
	b.StopTimer()
	res.writesPerSec = benchEdits / res.edits.Seconds()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	res.editLatency = spreadOf(all)
	res.editedRev = e.st.Head().Revision
	if got, want := res.editedRev-res.oldRev, int64(benchEdits); got != want {
		b.Fatalf("edits made %d revisions, want %d", got, want)
	}
	if err := e.st.Checkpoint(ctx); err != nil {
		b.Fatal(err)
	}
	res.sizeAfter = mustSize(b, e)
	res.bytesPerRevision = float64(res.sizeAfter-res.sizeBefore) / benchEdits

	// The state at the revision 10,000 back: computed by the store, and served over HTTP
	// (which adds encoding 5,000 backends as JSON).
	var stateTimes, httpTimes, diffTimes []time.Duration
	for r := 0; r < benchRuns; r++ {
		t0 := time.Now()
		st, err := e.st.State(ctx, res.oldRev, false)
		stateTimes = append(stateTimes, time.Since(t0))
		if err != nil || len(st.Backends) != benchBackends {
			b.Fatalf("state at %d: %v (%d backends)", res.oldRev, err, len(st.Backends))
		}
		_, d := do("GET", fmt.Sprintf("/api/v1/config?revision=%d", res.oldRev), nil)
		httpTimes = append(httpTimes, d)
		out, d := do("GET", fmt.Sprintf("/api/v1/revisions/%d/diff?against=%d", res.editedRev, res.oldRev), nil)
		diffTimes = append(diffTimes, d)
		var diff api.Diff
		if err := json.Unmarshal(out, &diff); err != nil {
			b.Fatal(err)
		}
		res.diffEntries = len(diff.Entries)
	}
	res.state, res.stateHTTP, res.diff = spreadOf(stateTimes), spreadOf(httpTimes), spreadOf(diffTimes)

	// Roll back to the old revision and forward to the edited state again, timing both;
	// each rollback rewrites every backend.
	// The same through the store alone shows what HTTP and JSON add.
	var back, forth, storeBack []time.Duration
	meta := api.Meta{Actor: "bench", Source: api.SourceAPI, Message: "bench"}
	for r := 0; r < benchRollbacks; r++ {
		out, d := do("POST", fmt.Sprintf("/api/v1/revisions/%d/rollback?message=bench", res.oldRev), nil)
		back = append(back, d)
		res.rollbackBytes = len(out)
		_, d = do("POST", fmt.Sprintf("/api/v1/revisions/%d/rollback?message=bench", res.editedRev), nil)
		forth = append(forth, d)
		t0 := time.Now()
		if _, err := e.st.Rollback(ctx, meta, res.oldRev); err != nil {
			b.Fatal(err)
		}
		storeBack = append(storeBack, time.Since(t0))
		if _, err := e.st.Rollback(ctx, meta, res.editedRev); err != nil {
			b.Fatal(err)
		}
	}
	res.rollback, res.rollbackRestore, res.rollbackStore = spreadOf(back), spreadOf(forth), spreadOf(storeBack)
	res.finalSize = mustSize(b, e)
	res.finalRevisions = e.revisions()
	return res
}

func benchName(i int) string { return fmt.Sprintf("svc-%04d", i) }

// benchEndpointsFor returns backend i's endpoints; edit >= 0 moves one of them to a port
// unique to that edit.
func benchEndpointsFor(i, edit int) []api.Endpoint {
	eps := make([]api.Endpoint, benchEndpoints)
	for j := range eps {
		eps[j] = api.Endpoint{Address: fmt.Sprintf("10.%d.%d.%d", i/250, i%250, j+1), Port: 8080, Weight: 1}
	}
	if edit >= 0 {
		eps[edit%benchEndpoints].Port = 10000 + edit
	}
	return eps
}

func mustSize(b *testing.B, e *env) int64 {
	b.Helper()
	n, err := e.st.SizeBytes(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fmtSpread(s spread) string {
	return fmt.Sprintf("%.1f ms | %.1f ms | %.1f–%.1f ms | %d", ms(s.median), ms(s.p90), ms(s.min), ms(s.max), s.runs)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

func (r *historyResult) markdown() string {
	var w strings.Builder
	fmt.Fprintf(&w, "## History and REST API (issue 2)\n\n")
	fmt.Fprintf(&w, "Command: `make bench` (runs `go test ./server -run '^$' -bench '^BenchmarkHistory$' -benchtime 1x`)  \n")
	fmt.Fprintf(&w, "Machine: %s  \nLoad average when it started (other work on the machine skews the figures): %s  \nDate: %s\n\n",
		machine(), r.load1, time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&w, "Scenario: a real SQLite file (WAL) behind the real router on a loopback HTTP server. %d backends of %d endpoints are loaded with one `PUT /api/v1/config` (%.1f s); then %d single-endpoint edits go through `PUT /api/v1/backends/{name}/endpoints` from %d concurrent keep-alive clients, each an authenticated, audited revision. Clients and server share the machine's cores.\n\n",
		benchBackends, benchEndpoints, r.load.Seconds(), benchEdits, benchClients)
	fmt.Fprintf(&w, "| measure | result | goal | |\n|---|---|---|---|\n")
	fmt.Fprintf(&w, "| database bytes per revision (file growth over the %d edits ÷ %d, audit rows included) | %.0f B | ≤ 2048 B | %s |\n",
		benchEdits, benchEdits, r.bytesPerRevision, verdict(r.bytesPerRevision <= 2048))
	fmt.Fprintf(&w, "| API writes per second (%d edits in %.2f s) | %.0f /s | ≥ 1000 /s on 2 cores | %s |\n",
		benchEdits, r.edits.Seconds(), r.writesPerSec, verdict(r.writesPerSec >= 1000))
	fmt.Fprintf(&w, "| state at the revision %d back (store), median | %.1f ms | < 200 ms | %s |\n",
		r.editedRev-r.oldRev, ms(r.state.median), verdict(r.state.median < 200*time.Millisecond))
	fmt.Fprintf(&w, "| rollback to it (`POST /revisions/%d/rollback`, %d backends rewritten), median | %.1f ms | < 200 ms | %s |\n\n",
		r.oldRev, benchBackends, ms(r.rollback.median), verdict(r.rollback.median < 200*time.Millisecond))
	fmt.Fprintf(&w, "| timing | median | p90 | min–max | runs |\n|---|---|---|---|---|\n")
	fmt.Fprintf(&w, "| edit latency (one `PUT …/endpoints`, as the client sees it) | %s |\n", fmtSpread(r.editLatency))
	fmt.Fprintf(&w, "| state at revision %d, computed by the store | %s |\n", r.oldRev, fmtSpread(r.state))
	fmt.Fprintf(&w, "| `GET /api/v1/config?revision=%d` (state + JSON of %d backends) | %s |\n", r.oldRev, benchBackends, fmtSpread(r.stateHTTP))
	fmt.Fprintf(&w, "| `POST /api/v1/revisions/%d/rollback` (back %d revisions and more) | %s |\n", r.oldRev, benchEdits, fmtSpread(r.rollback))
	fmt.Fprintf(&w, "| `POST /api/v1/revisions/%d/rollback` (forward again) | %s |\n", r.editedRev, fmtSpread(r.rollbackRestore))
	fmt.Fprintf(&w, "| the same rollback back, by the store alone (no HTTP, no JSON answer) | %s |\n", fmtSpread(r.rollbackStore))
	fmt.Fprintf(&w, "| `GET /api/v1/revisions/%d/diff?against=%d` (%d entries) | %s |\n\n", r.editedRev, r.oldRev, r.diffEntries, fmtSpread(r.diff))
	fmt.Fprintf(&w, "A rollback's answer (its revision with 5,000 changes and the diff with before and after) is %.1f MiB of JSON. ", mib(int64(r.rollbackBytes)))
	fmt.Fprintf(&w, "Database: %.1f MiB after loading, %.1f MiB after the edits, %.1f MiB after %d rollbacks (%d revisions in all).\n",
		mib(r.sizeBefore), mib(r.sizeAfter), mib(r.finalSize), 4*benchRollbacks, r.finalRevisions)
	return w.String()
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// machine describes where the benchmark ran.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%d CPUs (nproc), %s, GOMAXPROCS %d, %s %s/%s",
		runtime.NumCPU(), model, runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// loadAverage is the 1, 5 and 15 minute load averages from /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
