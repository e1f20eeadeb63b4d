package bench

import (
	"fmt"
	"strings"
	"time"
)

// costReport is the request-cost benchmark's section: per route, plain nginx's and
// restyplane's requests per second and latencies, and their ratios, then every run.
// A ratio is the median over the rounds of the ratio within each round, whose runs are
// seconds apart, so that a change of the machine's load falls on both proxies alike.
func costReport(load string, targets []costTarget, routes []costRoute, runs [][][]costSample) string {
	var w strings.Builder
	w.WriteString(header("Request cost: restyplane's OpenResty against plain nginx", "BenchmarkRequestCost", load))
	fmt.Fprintf(&w, "Load: wrk, %s, %d rounds of %s per proxy and route (after %s of warm-up each); in each round the proxies take turns "+
		"on each route, the order turning each round. Upstream: one nginx answering `return 200` (one worker, no log). Both proxies: "+
		"2 workers, upstream keepalive 64, the same http settings, request headers and buffered JSON access log (restyplane's "+
		"defaults); plain nginx has a static `upstream` block, restyplane is `restyplane serve` configured through its REST API. "+
		"The policy route is an allow list of %d CIDRs (the client in the last), a rate limit of %d requests a second per address "+
		"(which counts every request and never refuses) and CORS for one origin, which every request sends; plain nginx does "+
		"the same with allow/deny, limit_req and add_header. The TLS route is HTTPS on kept-alive connections. Each proxy's "+
		"nginx runs in a session of its own, and so does `restyplane serve`, as restyplane runs its nginx and a service manager a daemon: with the kernel's "+
		"autogroups, a busy machine gives each session an equal slice of CPU, and a plain nginx started in the benchmark's (or a "+
		"shell's) session, beside wrk, was served 2 to 4 times restyplane's requests a second at load 15 for that alone. Goals: requests "+
		"per second at least %.2f of plain nginx's, p99 at most %.2f of it.  \nLoad average when it ended: %s\n\n",
		costShape, costRounds, costRun, costWarm, len(costAllow), costRate, costGoal, costP99Goal, loadAverage())
	costTable(&w, routes, runs, 0, "plain nginx", "plain")
	if len(targets) > 2 {
		w.WriteString("\nrestyplane ran with `--reuse-port`, a listening socket per worker (net.ipv4.tcp_migrate_req was 1, see README.md), " +
			"which plain nginx above does not have. The same rounds against plain nginx that listens so too:\n\n")
		costTable(&w, routes, runs, 2, "plain nginx, reuseport", "plain")
	} else {
		w.WriteString("\nBoth listened with one socket per address, restyplane's default (`RESTYPLANE_COST_REUSEPORT=1` runs it with `--reuse-port` " +
			"beside plain nginx with a socket per worker, where net.ipv4.tcp_migrate_req is 1).\n")
	}
	w.WriteString("\nThe workers' CPU per request is their user and system time from /proc (ticks of 10 ms) over the run's answered requests, " +
		"the median of the rounds: it counts the work a request costs the proxy rather than the wait for a core, so it compares " +
		"better than requests per second when the machine is busy.\n")
	w.WriteString("\nEvery run (requests a second, p50, p99, workers' CPU per request):\n\n| route | proxy |")
	for i := 1; i <= costRounds; i++ {
		fmt.Fprintf(&w, " round %d |", i)
	}
	w.WriteString("\n|---|---|" + strings.Repeat("---|", costRounds) + "\n")
	for k, r := range routes {
		for j, t := range targets {
			fmt.Fprintf(&w, "| %s | %s |", r.name, t.name)
			for _, x := range runs[k][j] {
				fmt.Fprintf(&w, " %.0f, %s, %s, %s |", x.rps(), fmtUs(x.P50Us), fmtUs(x.P99Us), fmtMicro(x.cpuPerRequest()))
			}
			w.WriteString("\n")
		}
	}
	w.WriteString(costBefore)
	w.WriteString("\nWhere the time goes, phase by phase, and what changed: see the section of BenchmarkRequestCostPhases.\n")
	return w.String()
}

// costTable writes, per route, the base target's and restyplane's (target 1) figures and
// their ratios; name and short name the base.
func costTable(w *strings.Builder, routes []costRoute, runs [][][]costSample, base int, name, short string) {
	fmt.Fprintf(w, "| route | %s req/s | restyplane req/s | ratio | p50 %s / restyplane | p99 %s / restyplane | p99 ratio | workers' CPU per request %s / restyplane |\n"+
		"|---|---|---|---|---|---|---|---|\n", name, short, short, short)
	for k, r := range routes {
		plain, resty := runs[k][base], runs[k][1]
		rps, p99 := make([]float64, len(plain)), make([]float64, len(plain))
		for i := range plain {
			rps[i] = resty[i].rps() / plain[i].rps()
			p99[i] = float64(resty[i].P99Us) / float64(plain[i].P99Us)
		}
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.3f (%s) | %s / %s | %s / %s | %.2f (%s) | %s / %s |\n", r.name,
			median(rpsOf(plain)), median(rpsOf(resty)), median(rps), verdict(median(rps) >= costGoal),
			usOf(plain, func(x costSample) int64 { return x.P50Us }), usOf(resty, func(x costSample) int64 { return x.P50Us }),
			usOf(plain, func(x costSample) int64 { return x.P99Us }), usOf(resty, func(x costSample) int64 { return x.P99Us }),
			median(p99), verdict(median(p99) <= costP99Goal), cpuOf(plain), cpuOf(resty))
	}
}

func rpsOf(runs []costSample) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.rps()
	}
	return out
}

// usOf is the median over runs of one latency figure.
func usOf(runs []costSample, f func(costSample) int64) string {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = float64(f(r))
	}
	return fmtUs(int64(median(v)))
}

func fmtUs(us int64) string { return fmt.Sprintf("%.2f ms", float64(us)/1000) }

// cpuOf is the median over runs of the workers' CPU time per request.
func cpuOf(runs []costSample) string {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = float64(r.cpuPerRequest())
	}
	return fmtMicro(time.Duration(median(v)))
}

func fmtMicro(d time.Duration) string {
	return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
}

// costBefore is this benchmark's figures on the code before the changes that took the
// per-request Lua cost out. That run met a higher load: its CPU per request compares
// better than its requests per second.
const costBefore = "\nBefore (main at c20f03e), 2026-11-27 01:12 UTC, load average 16.9 at the end, workers' CPU per request plain / restyplane: " +
	"one backend, one location 14.9 µs / 22.0 µs (ratio of requests per second 0.735); allow list, rate limit and CORS 15.4 µs / 27.5 µs " +
	"(0.633); TLS listener 23.4 µs / 30.2 µs (0.955). Before the last round (two Lua phases per proxied request instead of " +
	"three, the Host without a map; main at 950d0af), the quiet run of 2026-11-27 05:17 UTC (load average 0.45 at its start): " +
	"one backend, one location 0.894 of plain nginx's requests per second, p99 1.02 (17.9 µs / 21.3 µs per request); allow list, " +
	"rate limit and CORS 0.790, p99 1.37 (19.8 µs / 25.8 µs); TLS listener 0.964, p99 1.20 (26.5 µs / 29.5 µs)." +
	" On this machine, on the code of this run, the p99 ratio of the one-location route moved between runs: 1.33 in a run of 5 rounds (2026-11-27 09:39 UTC, load average 0.6 at its start), and 1.01, 1.25 and 1.07 in runs of 5, 8 and 12 rounds beside variants of the same conf; those variants (without restyplane's Go process, without any Lua per request, without the counters' timer as well, with Lua's garbage collector stopped) gave 0.95 to 1.16, with no one of them set apart: a tail of a few milliseconds that comes and goes from round to round, for plain nginx too.\n"
