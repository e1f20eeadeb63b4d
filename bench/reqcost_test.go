package bench

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/openresty/nginx"
)

// The request-cost benchmark's load, as a new user measures a proxy: wrk with 2 threads
// and 50 kept-alive connections, 8 s a run, nine rounds in which the two proxies take
// turns on each route (the order turning each round), after 2 s of warm-up each. The
// p99 of one run on two saturated cores moves by a third from run to run, and by as much
// for plain nginx as for restyplane: the median of nine rounds' ratios moves less than
// the median of three.
const (
	costRounds  = 9
	costRun     = 8 * time.Second
	costWarm    = 2 * time.Second
	costGoal    = 0.90 // restyplane's requests per second over plain nginx's, at least
	costP99Goal = 1.10 // restyplane's p99 over plain nginx's, at most
	// phasesRounds is the phase-by-phase benchmark's rounds: it compares CPU per
	// request, which moves less than p99.
	phasesRounds = 3
)

var costShape = wrkShape{threads: 2, connections: 50}

// costTarget is one proxy serving the routes: where wrk sends them, and its nginx master,
// whose workers' CPU time each run counts.
type costTarget struct {
	name, http, https string
	master            int
}

// costSample is one run: what wrk saw and the CPU time the proxy's workers spent.
type costSample struct {
	wrkResult
	cpu time.Duration
}

// cpuPerRequest is the workers' CPU time per answered request.
func (s costSample) cpuPerRequest() time.Duration {
	return s.cpu / time.Duration(max(s.Responses, 1))
}

func (t costTarget) url(r costRoute) string {
	if r.tls {
		return "https://" + t.https + "/"
	}
	return "http://" + t.http + "/"
}

// BenchmarkRequestCost compares what a request costs through restyplane's OpenResty with
// plain nginx proxying the same routes to the same origin: requests per second and
// latency under the same load, run after run in turn.
func BenchmarkRequestCost(b *testing.B) {
	for i := 0; i < b.N; i++ {
		load := loadAverage()
		origin := startOrigin(b)
		cert := newCostCert(b)
		// RESTYPLANE_COST_REUSEPORT=1, where net.ipv4.tcp_migrate_req is 1, runs restyplane
		// with --reuse-port and plain nginx with a socket per worker beside plain nginx.
		reuse := os.Getenv("RESTYPLANE_COST_REUSEPORT") != ""
		if reuse && !nginx.MigratesRequests(nginx.MigrateReqSysctl) {
			b.Fatal("RESTYPLANE_COST_REUSEPORT needs net.ipv4.tcp_migrate_req=1, without which restyplane keeps one socket")
		}
		var args []string
		if reuse {
			args = []string{"--reuse-port"}
		}
		targets := []costTarget{startPlainProxy(b, origin, cert), startCostRestyplane(b, origin, cert, args...)}
		if reuse {
			targets = append(targets, startPlainReusePort(b, origin, cert))
		}
		runs := measureCost(b, targets, costRoutes, costRounds)
		report(b, "request-cost", costReport(load, targets, costRoutes, runs))
	}
}

// startCostRestyplane runs restyplane serve with its managed nginx and configures the
// routes through the REST API, as a user would. restyplane runs in a session of its own,
// as its nginx does and as a service manager starts it: in the benchmark's session it
// shared wrk's slice of the CPU (with the kernel's autogroups), which only restyplane's
// rounds paid for (p99 3.60 and 4.06 ms there, 3.01 and 3.50 ms for the same conf run
// without restyplane's process, 3.63 ms in a session of its own, in two scratch runs).
func startCostRestyplane(tb testing.TB, origin string, cert costCert, args ...string) costTarget {
	tb.Helper()
	in := startAs(tb, true, args...)
	rev := in.mustWrite("PUT", "/api/v1/config", costConfig(origin, cert))
	in.waitApplied(rev, 60*time.Second)
	return costTarget{name: "restyplane", http: strings.TrimPrefix(in.Proxy, "http://"), https: in.TLS, master: in.NginxPID()}
}

// measureCost loads every route on every target for rounds rounds and returns the runs
// by route, target and round. Any request that fails stops the benchmark: a proxy that
// refuses part of the load is not measured.
func measureCost(tb testing.TB, targets []costTarget, routes []costRoute, rounds int) [][][]costSample {
	tb.Helper()
	runs := make([][][]costSample, len(routes))
	for k, r := range routes {
		runs[k] = make([][]costSample, len(targets))
		for _, t := range targets {
			waitCostServes(tb, t, r)
			costLoad(tb, t, r, costWarm)
		}
	}
	for round := 0; round < rounds; round++ {
		for k, r := range routes {
			for j := range targets {
				at := (j + round) % len(targets)
				runs[k][at] = append(runs[k][at], costLoad(tb, targets[at], r, costRun))
			}
		}
	}
	return runs
}

// costLoad runs wrk on one route of one target for d.
func costLoad(tb testing.TB, t costTarget, r costRoute, d time.Duration) costSample {
	tb.Helper()
	shape := costShape
	shape.header = r.header
	cpu := childrenCPU(t.master)
	w := startWrk(tb, t.url(r), r.host, shape)
	time.Sleep(d)
	res := w.stop()
	cpu = max(childrenCPU(t.master)-cpu, 0) // a worker that exits takes its time with it
	if res.failed() > 0 || res.Responses == 0 {
		tb.Fatalf("%s, %s: %d of %d requests failed", t.name, r.name, res.failed(), res.Requests)
	}
	return costSample{wrkResult: res, cpu: cpu}
}

// waitCostServes waits until the target answers the route from the origin, with the CORS
// header where the route sends an Origin.
func waitCostServes(tb testing.TB, t costTarget, r costRoute) {
	tb.Helper()
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequest("GET", t.url(r), nil)
		req.Host = r.host
		if name, value, ok := strings.Cut(r.header, ": "); ok {
			req.Header.Set(name, value)
		}
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			cors := r.header == "" || resp.Header.Get("Access-Control-Allow-Origin") == costOrigin
			if resp.StatusCode == 200 && resp.Header.Get("X-Upstream") == "origin" && cors {
				return
			}
			err = fmt.Errorf("status %d, headers %v", resp.StatusCode, resp.Header)
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s does not serve %s from the origin within 30 s: %v", t.name, r.name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
