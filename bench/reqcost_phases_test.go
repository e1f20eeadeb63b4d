package bench

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// costPhases are the variants BenchmarkRequestCostPhases compares: restyplane's conf as
// rendered, then without each of the Lua phases every proxied request runs (the header
// filter, the balancer), then without both, then with both doing nothing: what ngx_lua
// itself costs, without restyplane's Lua. The balancer's variant proxies to the origin
// from a static server line.
func costPhases(origin string) []costVariant {
	// Every header_filter_by_lua: the http level's, and the proxied locations' own.
	noFilter := func(conf string) (string, bool) {
		conf, ok := cut("    header_filter_by_lua_block {", "\n    }\n")(conf)
		for done := true; done; {
			conf, done = cut("            header_filter_by_lua_block {", "\n            }\n")(conf)
		}
		return conf, ok
	}
	static := func(conf string) (string, bool) {
		i := strings.Index(conf, "server 0.0.0.1:1;")
		j := strings.Index(conf, ".balance()\n        }")
		if i < 0 || j < i {
			return conf, false
		}
		return conf[:i] + "server " + origin + ";" + conf[j+len(".balance()\n        }"):], true
	}
	none := func(conf string) (string, bool) {
		conf, ok := noFilter(conf)
		conf, done := static(conf)
		return conf, ok && done
	}
	host, port, _ := strings.Cut(origin, ":")
	idle := func(conf string) (string, bool) {
		ok := strings.Contains(conf, `require("restyplane.balancer").balance()`)
		conf = strings.Replace(conf, `require("restyplane.balancer").balance()`,
			fmt.Sprintf(`require("ngx.balancer").set_current_peer(%q, %s)`, host, port), 1)
		conf = regexp.MustCompile(`require\("restyplane\.finish"\)\.header\([^)]*\)`).ReplaceAllString(conf, "")
		return conf, ok
	}
	return []costVariant{
		{name: "as rendered"},
		{name: "without header_filter_by_lua", edit: noFilter},
		{name: "without balancer_by_lua (static upstream)", edit: static},
		{name: "without the two (no Lua per request)", edit: none},
		{name: "the two doing nothing (the balancer sets the origin's address)", edit: idle},
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
			targets = append(targets, startCostVariant(b, cfg, v, nil))
		}
		targets = append(targets, startPlainProxy(b, origin, cert))
		runs := measureCost(b, targets, costRoutes[:1], phasesRounds)
		instr := countPhases(b, cfg, origin, cert)
		report(b, "request-cost-phases", phasesReport(load, targets, runs[0], instr))
	}
}

// countPhases runs each variant and plain nginx again, as one process under callgrind, one
// at a time, and returns the instructions per request of each, in costPhases' order, plain
// nginx last.
func countPhases(tb testing.TB, cfg api.Config, origin string, cert costCert) []float64 {
	tb.Helper()
	binary, dir := callgrindNginx(tb)
	cfg.Settings.WorkerProcesses = 1
	under := func(o *nginx.Options) { o.Binary, o.StartTimeout = binary, 2*time.Minute }
	var out []float64
	for _, v := range costPhases(origin) {
		edit := v.edit
		v.edit = func(conf string) (string, bool) {
			ok := true
			if edit != nil {
				conf, ok = edit(conf)
			}
			conf, single := singleProcess(conf)
			return conf, ok && single
		}
		out = append(out, instructions(tb, startCostVariant(tb, cfg, v, under), costRoutes[0], dir))
	}
	return append(out, instructions(tb, startPlainProxyWith(tb, origin, cert, binary, 0), costRoutes[0], dir))
}
