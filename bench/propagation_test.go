package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// Propagation benchmark size: at least 200 changes, so that the p99 means something; more make the p99 a
// rank inside the sample rather than its largest value.
const (
	propagationChanges = 500
	propagationWarmup  = 20
	// pollBudget bounds the client's wait for one change, in requests and in time.
	pollBudget      = 20000
	pollDeadline    = 2 * time.Second
	propagationGoal = 15 * time.Millisecond
)

// BenchmarkPropagation moves a backend between two upstreams through
// PUT /api/v1/backends/{name}/endpoints and times, from just before the write to the first
// proxied response that comes from the new upstream, with a client that polls the proxy
// in a tight loop after each write.
func BenchmarkPropagation(b *testing.B) {
	for i := 0; i < b.N; i++ {
		load := loadAverage()
		in := start(b)
		s := newDynamicSetup(in, 0)
		s.run(propagationWarmup)
		r := s.run(propagationChanges)
		b.ReportMetric(ms(r.total.p50), "p50-ms")
		b.ReportMetric(ms(r.total.p99), "p99-ms")
		var w strings.Builder
		w.WriteString(header("Applier: propagation of an endpoint change (issue 3)", "BenchmarkPropagation", load))
		fmt.Fprintf(&w, "Scenario: the real `restyplane serve` (SQLite history, applier, managed nginx %s with the Lua module, one worker per core) on loopback; "+
			"one server routes `/` to backend `b-0000`, which %d `PUT /api/v1/backends/b-0000/endpoints` move back and forth between two upstream HTTP servers that answer with their name "+
			"(after %d unmeasured warm-up changes). After each write one client polls the proxy on a kept-alive connection until the answer comes from the new upstream "+
			"(at most %d requests or %s per change), then waits until `/status` reports the revision applied.\n\n",
			nginxVersion(), propagationChanges, propagationWarmup, pollBudget, pollDeadline)
		fmt.Fprintf(&w, "| measure | result | goal | |\n|---|---|---|---|\n")
		fmt.Fprintf(&w, "| propagation, API write to the first proxied response from the new endpoint, p99 | %s | ≤ 15 ms | %s |\n\n",
			fmtDur(r.total.p99), verdict(r.total.p99 <= propagationGoal))
		w.WriteString(spreadHeader)
		fmt.Fprintf(&w, "| write to first response from the new endpoint | %s |\n", r.total.row())
		fmt.Fprintf(&w, "| the API write alone (`PUT …/endpoints` answered, revision stored) | %s |\n", r.write.row())
		fmt.Fprintf(&w, "| the applier's dynamic apply (`durationMs` of its apply records) | %s |\n\n", r.apply.row())
		fmt.Fprintf(&w, "The polling client sent %.1f requests per change on average; every change reached the new upstream within the budget.\n",
			float64(r.polls)/float64(propagationChanges))
		report(b, "applier-propagation", w.String())
	}
}

// dynamicSetup is a backend that moves between two upstreams, and the host and path
// that route to it.
type dynamicSetup struct {
	in                  *instance
	proxy               *proxyClient
	ups                 [2]*upstream
	at                  int // which upstream the backend points at now
	backend, host, path string
	loaded              time.Duration
}

const dynamicHost = "dyn.bench.test"

// newDynamicSetup loads the setup with extra idle backends in one PUT /api/v1/config and
// waits until it is live.
func newDynamicSetup(in *instance, extra int) *dynamicSetup {
	in.tb.Helper()
	s := &dynamicSetup{in: in, proxy: newProxyClient(in), ups: [2]*upstream{newUpstream(in.tb, "a"), newUpstream(in.tb, "b")},
		backend: "b-0000", host: dynamicHost, path: "/"}
	cfg := server.ConfigRequest{
		Backends: []api.Backend{{Name: "b-0000", Endpoints: s.ups[0].endpoints()}},
		Servers: []api.Server{{Name: "dyn", Hostnames: []string{dynamicHost},
			Locations: []api.Location{{Path: "/", Backend: "b-0000"}}}},
	}
	for i := 1; i <= extra; i++ {
		cfg.Backends = append(cfg.Backends, api.Backend{Name: fmt.Sprintf("b-%04d", i), Endpoints: idleEndpoints(i)})
	}
	t0 := time.Now()
	rev := in.mustWrite("PUT", "/api/v1/config", cfg)
	in.waitApplied(rev, time.Minute)
	s.loaded = time.Since(t0)
	if code, from, err := s.proxy.get(dynamicHost, "/"); err != nil || code != 200 || from != "a" {
		in.tb.Fatalf("GET through the proxy = %d from %q (%v), want 200 from a", code, from, err)
	}
	return s
}

// idleEndpoints are endpoints on addresses nothing routes to: they make the config big.
func idleEndpoints(i int) []api.Endpoint {
	eps := make([]api.Endpoint, 2)
	for j := range eps {
		eps[j] = api.Endpoint{Address: fmt.Sprintf("10.%d.%d.%d", i/250, i%250, j+1), Port: 8080, Weight: 1}
	}
	return eps
}

// propagationResult is what run measured.
type propagationResult struct {
	total, write, apply spread
	polls               int
}

// run makes n endpoint changes, each timed from the write to the first proxied answer from
// the new upstream, and reads the applier's records of them.
func (s *dynamicSetup) run(n int) propagationResult {
	in := s.in
	in.tb.Helper()
	var res propagationResult
	var total, write []time.Duration
	var first, last int64
	for i := 0; i < n; i++ {
		s.at = 1 - s.at
		want := s.ups[s.at]
		t0 := time.Now()
		rev := in.mustWrite("PUT", "/api/v1/backends/"+s.backend+"/endpoints", server.EndpointsRequest{Endpoints: want.endpoints()})
		write = append(write, time.Since(t0))
		if first == 0 {
			first = rev
		}
		last = rev
		for k := 0; ; k++ {
			code, from, err := s.proxy.get(s.host, s.path)
			res.polls++
			if err == nil && code == 200 && from == want.name {
				total = append(total, time.Since(t0))
				break
			}
			if k >= pollBudget || time.Since(t0) > pollDeadline {
				in.tb.Fatalf("change %d (revision %d): after %d requests in %s the proxy answers %d from %q (%v), want 200 from %s",
					i, rev, k+1, time.Since(t0), code, from, err, want.name)
			}
		}
		in.waitApplied(rev, 10*time.Second)
	}
	var applies []time.Duration
	for _, a := range in.applies(1000) {
		if a.Revision >= first && a.Revision <= last && a.Mode == api.ModeDynamic && a.Outcome == api.OutcomeSuccess {
			applies = append(applies, time.Duration(a.DurationMS*float64(time.Millisecond)))
		}
	}
	res.total, res.write, res.apply = spreadOf(total), spreadOf(write), spreadOf(applies)
	return res
}
