package bench

import (
	"fmt"
	"strings"
	"time"
)

// phasesReport is the phases benchmark's section: each variant's requests per second and
// workers' CPU per request, and what each phase adds to the request.
func phasesReport(load string, targets []costTarget, runs [][]costSample, instr []float64) string {
	var w strings.Builder
	w.WriteString(header("Request cost, phase by phase", "BenchmarkRequestCostPhases", load))
	fmt.Fprintf(&w, "Route: %s, loaded as in BenchmarkRequestCost (wrk, %s, %d rounds of %s each, the variants in turn). "+
		"Each variant is restyplane's nginx.conf for the benchmark's routes as rendered, with one per-request Lua phase taken out, "+
		"run by the same instance mechanism as restyplane's (render, nginx -t, start, full push); plain nginx is BenchmarkRequestCost's. "+
		"A phase's cost is the workers' CPU per request with it less without it; its share is that over restyplane's CPU per "+
		"request less plain nginx's. The last variant keeps the two phases but runs none of restyplane's Lua in them: what it "+
		"takes out is restyplane's own Lua, and what is left over plain nginx is ngx_lua's cost of running a phase (with "+
		"set_current_peer's parse of the address).  \nLoad average when it ended: %s\n\n", costRoutes[0].name, costShape, phasesRounds, costRun, loadAverage())
	w.WriteString("| variant | req/s (median) | ratio to as rendered | workers' CPU per request | cost of what it takes out | share |\n|---|---|---|---|---|---|\n")
	full := cpuMedian(runs[0])
	floor := cpuMedian(runs[len(runs)-1])
	for k, t := range targets {
		ratios := make([]float64, len(runs[k]))
		for i := range ratios {
			ratios[i] = runs[k][i].rps() / runs[0][i].rps()
		}
		cost, share := "—", "—"
		if k > 0 && k < len(targets)-1 {
			d := full - cpuMedian(runs[k])
			cost = fmtMicro(d)
			// A share of less than a microsecond over plain nginx is a share of noise.
			if full-floor >= time.Microsecond {
				share = fmt.Sprintf("%.0f%%", 100*float64(d)/float64(full-floor))
			}
		}
		fmt.Fprintf(&w, "| %s | %.0f | %.3f | %s | %s | %s |\n", t.name, median(rpsOf(runs[k])), median(ratios), fmtMicro(cpuMedian(runs[k])), cost, share)
	}
	fmt.Fprintf(&w, "\nrestyplane's CPU per request over plain nginx's, in this run: %s.\n\n", fmtMicro(full-floor))
	fmt.Fprintf(&w, "The same variants again, each alone as one nginx process (master_process off) under valgrind's callgrind: the instructions it runs per "+
		"request (user space: nginx, the Lua VM and its compiled code, libc; %s of wrk after %s of warm-up). The count does not move "+
		"with the machine's load.\n\n", callgrindRun, callgrindWarm)
	w.WriteString("| variant | instructions per request | cost of what it takes out | share |\n|---|---|---|---|\n")
	last := len(instr) - 1
	for k, t := range targets {
		cost, share := "—", "—"
		if k > 0 && k < last {
			cost = fmt.Sprintf("%.0f", instr[0]-instr[k])
			share = fmt.Sprintf("%.0f%%", 100*(instr[0]-instr[k])/(instr[0]-instr[last]))
		}
		fmt.Fprintf(&w, "| %s | %.0f | %s | %s |\n", t.name, instr[k], cost, share)
	}
	fmt.Fprintf(&w, "\nrestyplane's instructions per request over plain nginx's: %.0f (%.0f%% more).\n", instr[0]-instr[last],
		100*(instr[0]-instr[last])/instr[last])
	w.WriteString(phasesBefore)
	return w.String()
}

func cpuMedian(runs []costSample) time.Duration {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = float64(r.cpuPerRequest())
	}
	return time.Duration(median(v))
}

// phasesBefore is this benchmark's tables on the code before each round of changes that
// took per-request cost out, and what changed.
const phasesBefore = "\n### Before this round\n\nThe callgrind table of the run of 2026-11-27 04:36 UTC (main at 4fe2e08), when a " +
	"proxied request ran three Lua phases (the header filter at http level for the drain and the cookie, a log phase with " +
	"the counters, EWMA's times and the connection limit's release, and the balancer) and the Host sent upstream came " +
	"from the $rp_host map in every server:\n\n" +
	"| variant | instructions per request | cost of what it takes out | share |\n|---|---|---|---|\n" +
	"| as rendered | 38429 | — | — |\n" +
	"| without header_filter_by_lua | 36484 | 1945 | 21% |\n" +
	"| without log_by_lua | 36706 | 1722 | 18% |\n" +
	"| without balancer_by_lua (static upstream) | 34028 | 4401 | 47% |\n" +
	"| without the three (no Lua per request) | 30197 | 8231 | 87% |\n" +
	"| the three doing nothing (the balancer sets the origin's address) | 35722 | 2707 | 29% |\n" +
	"| plain nginx | 28994 | — | — |\n\n" +
	"restyplane's instructions per request over plain nginx's: 9435 (33% more).\n" +
	"\n### Before the round before\n\nThe same benchmark on the code before the last round (main at 27d9490, the run of 2026-11-27 02:34 UTC, " +
	"load average 6.41 at the start, 7.18 at the end), with the header filter that every answer ran then:\n\n" +
	"| variant | req/s (median) | ratio to as rendered | workers' CPU per request | cost of what it takes out | share |\n|---|---|---|---|---|---|\n" +
	"| as rendered | 24379 | 1.000 | 17.2 µs | — | — |\n" +
	"| without header_filter_by_lua | 21594 | 0.807 | 17.0 µs | 0.2 µs | 8% |\n" +
	"| without log_by_lua | 25875 | 1.167 | 17.1 µs | 0.1 µs | 2% |\n" +
	"| without balancer_by_lua (static upstream) | 24480 | 1.582 | 15.9 µs | 1.3 µs | 40% |\n" +
	"| without the three (no Lua per request) | 32381 | 1.328 | 14.0 µs | 3.2 µs | 101% |\n" +
	"| the three doing nothing (the balancer sets the origin's address) | 27026 | 1.090 | 16.6 µs | 0.6 µs | 19% |\n" +
	"| plain nginx | 33598 | 1.050 | 14.0 µs | — | — |\n\n" +
	"| variant | instructions per request | cost of what it takes out | share |\n|---|---|---|---|\n" +
	"| as rendered | 38418 | — | — |\n" +
	"| without header_filter_by_lua | 36782 | 1635 | 17% |\n" +
	"| without log_by_lua | 35764 | 2654 | 28% |\n" +
	"| without balancer_by_lua (static upstream) | 34273 | 4145 | 43% |\n" +
	"| without the three (no Lua per request) | 29114 | 9304 | 97% |\n" +
	"| the three doing nothing (the balancer sets the origin's address) | 34601 | 3817 | 40% |\n" +
	"| plain nginx | 28819 | — | — |\n\n" +
	"restyplane's instructions per request over plain nginx's: 9598 (33% more).\n\n" +
	"### Before that\n\nThe same benchmark on the code before the first round (main at c20f03e), 2026-11-27 01:58 UTC, load average 1.70 at the start, " +
	"11.60 at the end:\n\n" +
	"| variant | req/s (median) | ratio to as rendered | workers' CPU per request | cost of what it takes out | share |\n|---|---|---|---|---|---|\n" +
	"| as rendered | 37134 | 1.000 | 19.9 µs | — | — |\n" +
	"| without header_filter_by_lua | 41387 | 1.215 | 18.2 µs | 1.6 µs | 28% |\n" +
	"| without log_by_lua | 52540 | 1.386 | 17.6 µs | 2.3 µs | 38% |\n" +
	"| without balancer_by_lua (static upstream) | 47403 | 1.395 | 16.9 µs | 3.0 µs | 50% |\n" +
	"| without the three (no Lua per request) | 36256 | 0.980 | 13.7 µs | 6.2 µs | 105% |\n" +
	"| plain nginx | 43443 | 1.228 | 14.0 µs | — | — |\n\n" +
	"| variant | instructions per request | cost of what it takes out | share |\n|---|---|---|---|\n" +
	"| as rendered | 47726 | — | — |\n" +
	"| without header_filter_by_lua | 45656 | 2070 | 11% |\n" +
	"| without log_by_lua | 40893 | 6833 | 36% |\n" +
	"| without balancer_by_lua (static upstream) | 38559 | 9167 | 49% |\n" +
	"| without the three (no Lua per request) | 29239 | 18487 | 98% |\n" +
	"| plain nginx | 28875 | — | — |\n\n" +
	"restyplane's instructions per request over plain nginx's: 18851 (65% more); CPU per request: 5.9 µs more.\n\n" +
	phasesChanges

// phasesChanges is what took the cost out: how each phase does its work, not what it does.
const phasesChanges = "### What changed in this round\n\n" +
	"- **log_by_lua is gone from proxied locations**: what it did is done as the answer's header goes out, in the header " +
	"filter that every answer runs anyway for the drain: the counters behind automatic rollback, and EWMA's times (now to " +
	"the upstream's header, $upstream_header_time, instead of to the end of the answer). One Lua phase fewer per request, " +
	"about 1,500 instructions. A request that ends without an answer (its client left first, 499) has no header phase: " +
	"it is not counted (it was counted as a request, never as an error), and EWMA counts its peers out of flight when " +
	"the request's state is collected (ffi.gc), instead of keeping them in flight for good. Only a location whose policy " +
	"limits concurrent requests keeps a log phase, which lets the request out of the limit when it ends (the conf says " +
	"whether a location has such a limit, so a limit where there was none is a reload; its number is still a push): the " +
	"policy route of BenchmarkRequestCost (an allow list, a rate limit and CORS) runs three Lua phases, not four.\n" +
	"- **the Host sent upstream**: a server block that is never the default server sends $http_host as it is, without " +
	"the $rp_host map (about 1,100 instructions: the map lowercases and hashes the host on every request); the map only " +
	"fills in a missing Host, and nginx routes a request without one to the default server, which keeps it. What is " +
	"left: an HTTP/1.0 request in absolute form without a Host header is sent to a named server's upstream without one.\n" +
	"- Tried and not taken: globals set at init for the phases' entry points instead of `require` (about 100 " +
	"instructions); the Host map keyed to fill in only a missing host (`$http_host$rp_nohost`, as costly as the map), " +
	"or a server-level `if` (about 450).\n\n" +
	"### What changed in the round before\n\n" +
	"- **log_by_lua**: a location whose answers below 400 are all its upstream's (it proxies with no CORS, cache, auth, WAF " +
	"or error pages) says so to the log phase as a literal, which then counts such an answer from the status it sends instead " +
	"of reading $upstream_status (a variable's lookup by name and the formatting of its value: the phase ran 2641-3097 instructions, now about 1700); answers of 400 and more still read it, so a refusal " +
	"or an error nginx makes without the upstream counts as before.\n" +
	"- **header_filter_by_lua**, tried and left as it was: run only where nginx answers without a balancer, with the " +
	"balancer marking proxied answers for the drain, it saved its ~1,600 instructions, but a slow answer to a request that " +
	"started before the drain flag went up then left unmarked, and its client could meet the closed socket the drain is " +
	"there to spare it (TestReloadLosesNoKeptAliveRequest lost 1 of 13,593 requests): the drain must be checked when the " +
	"answer is written, and no nginx directive can read the flag.\n" +
	"- **the policy route** (not measured here): a location with both access lists (or limits) and CORS runs CORS at the " +
	"start of the access lists' Lua phase instead of in a rewrite phase of its own, one Lua phase less per request; CORS " +
	"still runs first (a preflight is answered for a refused address, a refusal carries the CORS headers), and a location " +
	"with auth or the WAF keeps the rewrite phase.\n\n" +
	"### What changed in the first round\n\n" +
	"- **log_by_lua** (the counters behind automatic rollback): each worker adds its counts up in Lua tables, and a timer adds " +
	"them to the shared dict every 0.1 s (and when the worker exits), instead of two shared-dict increments with keys built " +
	"per request; a reading adds its own worker's counts first. A proxied location names its server and backend to the log " +
	"phase as literals instead of the phase reading $rp_server and $rp_backend; the three modules' calls are one. It reads " +
	"ngx.ctx (whose first read makes a table per request) only for a backend that keeps state, and the connection limit's " +
	"release only while a request of the worker holds one.\n" +
	"- **balancer_by_lua**: a backend without a canary, EWMA or affinity, not retried, picks its peer with no ngx.ctx and no " +
	"table per request (one peer: no pick at all); whether a backend keeps state is decided when its copy is built, once per " +
	"change. The version check keeps its dict key with the worker's copy instead of building it per request (the policies' " +
	"too, and their limit keys).\n" +
	"- **header_filter_by_lua**: the affinity cookie's look at ngx.ctx only in a worker that has a backend with state.\n" +
	"- Unchanged (both rounds): what is counted and when a reading sees it (at most 0.1 s later from another worker), the " +
	"drain's \"close\" on every HTTP/1 answer while the flag is up, the version check on every request (a push reaches the next request), the access log (already " +
	"buffered, as plain nginx's here), lua_code_cache (on, the default).\n"
