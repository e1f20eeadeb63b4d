package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// The side-by-side run's size: 40-60 switches per system are the least that
// say something; 100 make the
// p99 the 99th of 100 rather than the largest. They run in rounds of sideBlock switches per
// system, the systems' order rotating each round, so that a change in the machine's other
// load falls on all of them alike.
const (
	sideSwitches = 100
	sideBlock    = 10
	sideWarmup   = 4
)

// Indexes of the systems in sideSystems' answer.
const (
	sideCaddy = iota
	sideBare
	sideNginx
	sideResty
	sideRelay
)

// BenchmarkSideBySide compares, in one run on one machine, how fast five systems move a
// route to a new upstream under the same load: Caddy through its admin API, the bare Lua
// mechanism restyplane builds on, plain nginx with a reload, restyplane through its REST
// API, and a minimal control process in front of the bare mechanism. Each switch is timed from just before the write to the first proxied answer
// from the new upstream that any of the load's clients gets.
func BenchmarkSideBySide(b *testing.B) {
	for i := 0; i < b.N; i++ {
		load := loadAverage()
		res, resty := runSideBySide(b, sideSwitches, sideBlock, sideWarmup)
		for k, name := range []string{"caddy", "bare", "reload", "restyplane", "relay"} {
			b.ReportMetric(ms(spreadOf(res[k].total).p50), name+"-p50-ms")
		}
		report(b, "side-by-side", sideReport(load, res, resty))
	}
}

// runSideBySide starts the five systems in front of the same two upstreams and runs
// switches per system, after warmup unmeasured ones, in blocks of block.
func runSideBySide(tb testing.TB, switches, block, warmup int) ([]*sideResult, *restySystem) {
	tb.Helper()
	ups := [2]*upstream{newUpstream(tb, "a"), newUpstream(tb, "b")}
	in := start(tb)
	resty, bare, relay := startResty(in, ups[0])
	systems := make([]proxySystem, 5)
	systems[sideCaddy], systems[sideBare], systems[sideNginx], systems[sideResty], systems[sideRelay] = startCaddy(tb, ups[0]), bare, startNginx(tb, ups[0]), resty, relay
	res := make([]*sideResult, len(systems))
	for k, s := range systems {
		res[k] = &sideResult{sys: s}
		if warmup > 0 {
			runBlock(tb, s, ups, warmup, nil)
		}
	}
	for round := 0; round < switches/block; round++ {
		for j := range systems {
			k := (j + round) % len(systems)
			runBlock(tb, systems[k], ups, block, res[k])
		}
	}
	return res, resty
}

// restyBreakdown splits each of restyplane's measured switches at the stamps restyplane
// leaves: the revision's time (taken just before the commit), the apply record's start
// (the push begins) and its duration (the push).
type restyBreakdown struct {
	request, toPush, push, toAnswer []time.Duration
}

func breakdown(in *instance, r *sideResult, resty *restySystem) (restyBreakdown, error) {
	var out restyBreakdown
	applies := map[int64]api.ApplyRecord{}
	for _, a := range in.applies(1000) {
		if a.Mode == api.ModeDynamic && a.Outcome == api.OutcomeSuccess {
			applies[a.Revision] = a
		}
	}
	// The measured switches are the last ones written: the warm-up came first.
	revs, written := resty.revs[len(resty.revs)-len(r.starts):], resty.written[len(resty.written)-len(r.starts):]
	for k, rev := range revs {
		a, ok := applies[rev]
		if !ok {
			return out, fmt.Errorf("revision %d has no successful dynamic apply: merged into a later one?", rev)
		}
		pushed := a.Started.Add(time.Duration(a.DurationMS * float64(time.Millisecond)))
		out.request = append(out.request, written[k].Sub(r.starts[k]))
		out.toPush = append(out.toPush, a.Started.Sub(written[k]))
		out.push = append(out.push, pushed.Sub(a.Started))
		out.toAnswer = append(out.toAnswer, r.seen[k].Sub(pushed))
	}
	return out, nil
}
