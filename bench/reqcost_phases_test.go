package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// costPhases are the variants BenchmarkRequestCostPhases compares: restyplane's conf as
// rendered, then without each of the Lua phases every request runs, then without all of
// them. The balancer's variant proxies to the origin from a static server line.
func costPhases(origin string) []costVariant {
	noFilter := cut("    header_filter_by_lua_block {", "\n    }\n")
	noLog := cut("    log_by_lua_block {", "\n    }\n")
	static := func(conf string) (string, bool) {
		i := strings.Index(conf, "server 0.0.0.1:1;")
		j := strings.Index(conf, ".balance()\n        }")
		if i < 0 || j < i {
			return conf, false
		}
		return conf[:i] + "server " + origin + ";" + conf[j+len(".balance()\n        }"):], true
	}
	none := func(conf string) (string, bool) {
		ok := true
		for _, f := range []func(string) (string, bool){noFilter, noLog, static} {
			var done bool
			conf, done = f(conf)
			ok = ok && done
		}
		return conf, ok
	}
	return []costVariant{
		{name: "as rendered"},
		{name: "without header_filter_by_lua", edit: noFilter},
		{name: "without log_by_lua", edit: noLog},
		{name: "without balancer_by_lua (static upstream)", edit: static},
		{name: "without the three (no Lua per request)", edit: none},
	}
}

// BenchmarkRequestCostPhases gives each per-request phase of restyplane's OpenResty its
// share of the request cost, by ablation: the same conf with one phase taken out at a
// time, each a real nginx of its own, loaded in turn with plain nginx as the floor.
func BenchmarkRequestCostPhases(b *testing.B) {
	for i := 0; i < b.N; i++ {
		load := loadAverage()
		origin := startOrigin(b)
		cert := newCostCert(b)
		cfg := apiConfig(b, costConfig(origin, cert))
		var targets []costTarget
		for _, v := range costPhases(origin) {
			targets = append(targets, startCostVariant(b, cfg, v))
		}
		targets = append(targets, startPlainProxy(b, origin, cert))
		runs := measureCost(b, targets, costRoutes[:1], costRounds)
		report(b, "request-cost-phases", phasesReport(load, targets, runs[0]))
	}
}

// phasesReport is the phases benchmark's section: each variant's requests per second and
// workers' CPU per request, and what each phase adds to the request.
func phasesReport(load string, targets []costTarget, runs [][]costSample) string {
	var w strings.Builder
	w.WriteString(header("Request cost, phase by phase", "BenchmarkRequestCostPhases", load))
	fmt.Fprintf(&w, "Route: %s, loaded as in BenchmarkRequestCost (wrk, %s, %d rounds of %s each, the variants in turn). "+
		"Each variant is restyplane's nginx.conf for the benchmark's routes as rendered, with one per-request Lua phase taken out, "+
		"run by the same instance mechanism as restyplane's (render, nginx -t, start, full push); plain nginx is BenchmarkRequestCost's. "+
		"A phase's cost is the workers' CPU per request with it less without it; its share is that over restyplane's CPU per "+
		"request less plain nginx's. Phases share fixed costs (the first Lua handler a request meets pays for its Lua context), "+
		"so the shares need not add up.  \nLoad average when it ended: %s\n\n", costRoutes[0].name, costShape, costRounds, costRun, loadAverage())
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
			share = fmt.Sprintf("%.0f%%", 100*float64(d)/float64(max(full-floor, 1)))
		}
		fmt.Fprintf(&w, "| %s | %.0f | %.3f | %s | %s | %s |\n", t.name, median(rpsOf(runs[k])), median(ratios), fmtMicro(cpuMedian(runs[k])), cost, share)
	}
	fmt.Fprintf(&w, "\nrestyplane's CPU per request over plain nginx's, in this run: %s.\n", fmtMicro(full-floor))
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

// phasesBefore is this benchmark's table on the code before the changes that took the
// per-request cost out, for comparison.
const phasesBefore = ""
