package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// The traffic benchmark's size: the numbers its report's goals are stated for.
const (
	trafficChanges = 200
	trafficReloads = 20
	trafficMinRPS  = 2000
	// reloadInterval is the minReloadInterval set for the reloads; they are spaced past it
	// so that each write is its own reload.
	reloadInterval = 100 * time.Millisecond
	reloadSpacing  = 150 * time.Millisecond
	changeSpacing  = 20 * time.Millisecond
	loadSettle     = 500 * time.Millisecond // load before the first change and after the last
)

const (
	loadHost = "load.bench.test"
	sideHost = "side.bench.test"
)

// The load: clients that keep their connections alive, as browsers and most HTTP clients
// do, and clients that open a new connection for every request, side by side.
var trafficShapes = [2]wrkShape{{threads: 2, connections: 16}, {threads: 1, connections: 8, fresh: true}}

// BenchmarkTraffic runs wrk through the proxy against one server while (a) 200 endpoint
// changes move its backend between two upstreams, and (b) 20 reloads add and remove a
// location on a second server, and counts the requests that did not end in a 2xx.
func BenchmarkTraffic(b *testing.B) {
	for i := 0; i < b.N; i++ {
		load := loadAverage()
		in := start(b)
		ua, ub := newUpstream(b, "a"), newUpstream(b, "b")
		rev := in.mustWrite("PUT", "/api/v1/config", server.ConfigRequest{
			Backends: []api.Backend{{Name: "web", Endpoints: ua.endpoints()}, {Name: "side", Endpoints: ub.endpoints()}},
			Servers: []api.Server{
				{Name: "load", Hostnames: []string{loadHost}, Locations: []api.Location{{Path: "/", Backend: "web"}}},
				sideServer(false),
			},
		})
		in.waitApplied(rev, 30*time.Second)
		in.waitApplied(in.setMinReloadInterval(reloadInterval.String()), 30*time.Second)

		// (a) endpoint changes under load.
		loaders := startLoad(b, in)
		servedA, servedB := ua.served.Load(), ub.served.Load()
		ups := [2]*upstream{ua, ub}
		var changeTimes []time.Duration
		t0 := time.Now()
		for k := 0; k < trafficChanges; k++ {
			c0 := time.Now()
			rev := in.mustWrite("PUT", "/api/v1/backends/web/endpoints", server.EndpointsRequest{Endpoints: ups[(k+1)%2].endpoints()})
			in.waitApplied(rev, 10*time.Second)
			changeTimes = append(changeTimes, time.Since(c0))
			time.Sleep(changeSpacing)
		}
		changeWindow := time.Since(t0)
		servedA, servedB = ua.served.Load()-servedA, ub.served.Load()-servedB
		dyn := stopLoad(loaders)

		// (b) reloads under load: a location comes and goes on the other server.
		loaders = startLoad(b, in)
		var first, last int64
		var reloadTimes []time.Duration
		t0 = time.Now()
		for k := 0; k < trafficReloads; k++ {
			c0 := time.Now()
			rev := in.mustWrite("PUT", "/api/v1/servers/side", sideServer(k%2 == 0))
			st := in.waitApplied(rev, 30*time.Second)
			reloadTimes = append(reloadTimes, time.Since(c0))
			if st.LastApply == nil || st.LastApply.Mode != api.ModeReload {
				b.Fatalf("revision %d applied as %+v, want a reload", rev, st.LastApply)
			}
			if first == 0 {
				first = rev
			}
			last = rev
			time.Sleep(reloadSpacing)
		}
		reloadWindow := time.Since(t0)
		rel := stopLoad(loaders)
		var reloads []time.Duration
		for _, a := range in.applies(200) {
			if a.Revision >= first && a.Revision <= last && a.Mode == api.ModeReload && a.Outcome == api.OutcomeSuccess {
				reloads = append(reloads, time.Duration(a.DurationMS*float64(time.Millisecond)))
			}
		}
		if got, want := len(reloads), trafficReloads; got != want {
			b.Fatalf("%d successful reloads recorded, want %d", got, want)
		}

		b.ReportMetric(float64(dyn[0].failed()+dyn[1].failed()), "failed-dynamic")
		b.ReportMetric(float64(rel[0].failed()+rel[1].failed()), "failed-reload")
		b.ReportMetric(dyn[0].rps()+dyn[1].rps(), "rps-dynamic")
		b.ReportMetric(rel[0].rps()+rel[1].rps(), "rps-reload")

		var sb strings.Builder
		sb.WriteString(header("Applier: failed requests under load during changes (issue 3)", "BenchmarkTraffic", load))
		fmt.Fprintf(&sb, "Scenario: the real `restyplane serve` with its managed nginx (one worker per core, upstream keep-alive on) on loopback. "+
			"Two Debian `wrk` processes, each with a Lua script that counts every answer that is not 2xx, request `/` of one server, "+
			"whose backend points at one of two upstream HTTP servers: one with %s (as browsers and most HTTP clients), one with %s. "+
			"Both run from %s before the first change to %s after the last, as fast as they can. "+
			"(a) %d `PUT /api/v1/backends/web/endpoints` move that backend between the two upstreams, each waited for in `/status`, %s apart; "+
			"(b) with `minReloadInterval` set to %s, %d `PUT /api/v1/servers/side` add and remove a location on a second server, each a reload waited for in `/status`, %s apart. "+
			"A failed request is a non-2xx answer or a request that wrk lost to a socket error or timeout. "+
			"Load generators, restyplane, nginx and upstreams share the machine's cores.\n\n",
			trafficShapes[0], trafficShapes[1], loadSettle, loadSettle, trafficChanges, changeSpacing, reloadInterval, trafficReloads, reloadSpacing)
		fmt.Fprintf(&sb, "| measure | result | goal | |\n|---|---|---|---|\n")
		for _, r := range []struct {
			what string
			res  [2]wrkResult
		}{{fmt.Sprintf("%d endpoint changes", trafficChanges), dyn}, {fmt.Sprintf("%d reloads", trafficReloads), rel}} {
			failed, total, rps := r.res[0].failed()+r.res[1].failed(), r.res[0].Responses+r.res[1].Responses, r.res[0].rps()+r.res[1].rps()
			fmt.Fprintf(&sb, "| failed requests during %s (of %d; kept-alive: %d, new connections: %d) | %d | 0 | %s |\n",
				r.what, total, r.res[0].failed(), r.res[1].failed(), failed, verdict(failed == 0))
			fmt.Fprintf(&sb, "| load during the %s | %.0f req/s | ≥ %d req/s | %s |\n", r.what, rps, trafficMinRPS, verdict(rps >= trafficMinRPS))
		}
		fmt.Fprintf(&sb, "\n| run | clients | requests | req/s | non-2xx | connect / read / write / timeout errors | latency p50 | p99 | max |\n|---|---|---|---|---|---|---|---|---|\n")
		for k, shape := range trafficShapes {
			fmt.Fprintf(&sb, "| (a) %d endpoint changes in %s | %s | %s |\n", trafficChanges, fmtDur(changeWindow), shape, dyn[k].row())
		}
		for k, shape := range trafficShapes {
			fmt.Fprintf(&sb, "| (b) %d reloads in %s | %s | %s |\n", trafficReloads, fmtDur(reloadWindow), shape, rel[k].row())
		}
		sb.WriteString("\n" + spreadHeader)
		fmt.Fprintf(&sb, "| (a) endpoint change, write until `/status` reports it applied | %s |\n", spreadOf(changeTimes).row())
		fmt.Fprintf(&sb, "| (b) reload, write until `/status` reports it applied | %s |\n", spreadOf(reloadTimes).row())
		fmt.Fprintf(&sb, "| (b) reload, the applier's `durationMs` (test, swap, reload, confirm) | %s |\n\n", spreadOf(reloads).row())
		fmt.Fprintf(&sb, "While the endpoints moved, upstream a served %d requests and b %d: the traffic followed the changes.\n", servedA, servedB)
		if kept, fresh := rel[0], rel[1]; kept.failed() > 0 && kept.failed() == kept.Read && fresh.failed() == 0 && dyn[0].failed()+dyn[1].failed() == 0 {
			fmt.Fprintf(&sb, reloadLossWhy, kept.Read, float64(kept.Read)/trafficReloads)
		} else if rel[0].failed()+rel[1].failed() == 0 {
			fmt.Fprintf(&sb, reloadDrain, reloadLossBefore)
		}
		report(b, "applier-traffic", sb.String())
	}
}

// reloadLossWhy explains failures that are all read errors on kept-alive connections
// during reloads, which the drain should have prevented.
const reloadLossWhy = "\n**Why requests fail during reloads**: all %d failures (%.1f per reload) are read errors on kept-alive connections; " +
	"no answer was a non-2xx, and the clients that open a new connection per request lost nothing, nor did anyone during the endpoint changes. " +
	"When an old worker starts its graceful shutdown, nginx 1.22 closes its idle kept-alive connections at once, so a request the client sends on one " +
	"at that moment meets a closed socket (wrk does not retry). restyplane drains to prevent it: from just before it signals the master until the reload " +
	"is confirmed, every HTTP/1 answer carries `Connection: close`, and clients open a new connection for their next request. Failures left mean a " +
	"connection got no answer in the 100 ms the master waits before shutting the old workers down (a client that paused longer, or a machine too loaded " +
	"to serve it), or the flag could not be raised (restyplane logs a warning then). " +
	"nginx added `keepalive_min_timeout` in January 2025 (nginx/nginx pull request 456) for this; Debian's nginx 1.22 does not have it.\n"

// reloadDrain says why reloads lose no requests on kept-alive connections.
const reloadDrain = "\n**Why reloads lose no requests on kept-alive connections**: when an old worker starts its graceful shutdown, nginx 1.22 closes its idle " +
	"kept-alive connections at once; a client that got its last answer with `Connection: keep-alive` and sends its next request at that moment " +
	"meets a closed socket (before the drain, %s). restyplane raises a drain flag in nginx's shared memory just before it signals the master " +
	"and lowers it once the reload is confirmed (the flag also expires on its own): meanwhile every HTTP/1 answer also carries `Connection: close`, " +
	"so wrk and Go's net/http open a new connection for their next request. The master waits 100 ms between starting the new workers and " +
	"shutting down the old ones, enough for clients that send requests back to back to get their `close` first, so the drain adds no wait to a reload; " +
	"after that moment an old worker's answers say `close` on their own. The cost: kept-alive clients reconnect once per reload.\n"

// reloadLossBefore is what the drain fixed, measured before it on the same benchmark.
const reloadLossBefore = "156 of 116,277 requests failed during 20 reloads, all read errors on kept-alive connections"

// startLoad starts one wrk of each shape and lets them run for loadSettle.
func startLoad(tb testing.TB, in *instance) [2]*wrkRun {
	tb.Helper()
	var w [2]*wrkRun
	for k, shape := range trafficShapes {
		w[k] = startWrk(tb, in.Proxy+"/", loadHost, shape)
	}
	time.Sleep(loadSettle)
	return w
}

// stopLoad lets the load run for loadSettle more, then stops it.
func stopLoad(w [2]*wrkRun) [2]wrkResult {
	time.Sleep(loadSettle)
	return [2]wrkResult{w[0].stop(), w[1].stop()}
}

// sideServer is the second server, with or without its extra location.
func sideServer(extra bool) api.Server {
	s := api.Server{Name: "side", Hostnames: []string{sideHost}, Locations: []api.Location{{Path: "/", Backend: "side"}}}
	if extra {
		s.Locations = append(s.Locations, api.Location{Path: "/extra", Backend: "side"})
	}
	return s
}

// row is the run as cells of the load table.
func (r wrkResult) row() string {
	return fmt.Sprintf("%d | %.0f | %d | %d / %d / %d / %d | %.1f ms | %.1f ms | %.1f ms",
		r.Responses, r.rps(), r.Non2xx, r.Connect, r.Read, r.Write, r.Timeout,
		float64(r.P50Us)/1000, float64(r.P99Us)/1000, float64(r.MaxUs)/1000)
}
