package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// Fleet benchmark size and goals, as its report states them.
const (
	fleetAgents  = 50
	fleetBatch   = 10
	fleetChanges = 100
	// fleetRound is how many changes of restyplane, then of the bare mechanism, go in turn.
	fleetRound = 10
	// fleetWarmup changes go first, unmeasured: the first tens of changes after 50 agents
	// and 50 nginx started on the same two cores are slower than the rest (the report
	// gives their spread too).
	fleetWarmup       = 50
	fleetPollBudget   = 5000
	fleetPollDeadline = 10 * time.Second
	// fleetPollPause is each poller's pause between requests: the resolution of the
	// propagation figure, and what keeps 50 pollers from taking the cores they measure.
	fleetPollPause     = 5 * time.Millisecond
	fleetBigBackends   = 5000
	fleetSmallBackends = 10
	fleetPropGoal      = 50 * time.Millisecond
	// fleetRatioGoal bounds restyplane's propagation over the bare mechanism's, p50 and
	// p99 each, in the same run.
	fleetRatioGoal     = 1.2
	fleetReconnectGoal = 5 * time.Second
	fleetFeedGoal      = 2048.0
)

// BenchmarkFleet runs one control plane (`serve --openresty off`) and 50 agents, each with
// its own nginx of one worker, on loopback, and measures propagation of an endpoint change
// to every instance, the feed's bytes per agent for a one-endpoint change with 10 and 5,000
// backends, the reconnection after a kill -9 of the control plane (under a load through
// every data plane whose failed requests it counts), and the control plane's memory and CPU.
func BenchmarkFleet(b *testing.B) {
	for i := 0; i < b.N; i++ {
		load := loadAverage()
		raiseFileLimit(b)
		dataDir := b.TempDir()
		cp, secret := startFleetControlPlane(b, dataDir)
		f := &fleet{cp: cp, secret: secret}
		ups := [2]*upstream{newUpstream(b, "a"), newUpstream(b, "b")}
		set := cp.settings()
		set.WorkerProcesses = 1
		cp.mustWrite("PUT", "/api/v1/settings", set)
		cp.mustWrite("PUT", "/api/v1/config", fleetConfig(ups[0], fleetSmallBackends))
		t0 := time.Now()
		f.startAgents(b, quickAgents(), fleetBatch)
		f.waitAtHead(b, 0, time.Minute)
		startup := time.Since(t0)
		procs := f.procs()
		// win, when set, gets what the fleet used inside each change's window: from just
		// before the write until the last proxy first answered from the new upstream.
		var win *fleetSample

		at := 0
		// last is the newest change's start and when each proxy first answered from it.
		var last struct {
			t0   time.Time
			seen []time.Duration
		}
		change := func() (rev int64, write, total time.Duration) {
			at = 1 - at
			var s0 fleetSample
			if win != nil {
				s0 = procs.sample(false)
			}
			t0 := time.Now()
			rev = cp.mustWrite("PUT", "/api/v1/backends/b-0000/endpoints", server.EndpointsRequest{Endpoints: ups[at].endpoints()})
			write = time.Since(t0)
			total, seen, err := f.pollAll(f.pollers, t0, ups[at].name, fleetPollBudget, fleetPollDeadline)
			if err != nil {
				b.Fatalf("revision %d: %v", rev, err)
			}
			if win != nil {
				*win = win.add(procs.sample(true).sub(s0))
			}
			last.t0, last.seen = t0, seen
			f.waitAtHead(b, rev, 30*time.Second)
			time.Sleep(fleetBareRest)
			return rev, write, total
		}
		var warm []time.Duration
		for k := 0; k < fleetWarmup; k++ {
			_, _, t := change()
			warm = append(warm, t)
		}
		if os.Getenv("RESTYPLANE_FLEET_QUICK") != "" {
			// A mark for whoever profiles the measured changes (perf record -a).
			fmt.Fprintf(os.Stderr, "fleet: measuring %d changes\n", fleetChanges)
		}
		// Rounds of restyplane's changes and the bare mechanism's, the order turning each
		// round, so that both meet the same machine.
		var totals, writes, bares []time.Duration
		var restyCPU, bareCPU fleetCPU
		var restySw, bareSw, restyWin, bareWin fleetSample
		hops := newFleetHops()
		var restyWall time.Duration
		var firstRev, lastRev int64
		for k := 0; k < fleetChanges; k += fleetRound {
			for half := 0; half < 2; half++ {
				c0, s0, w0 := f.cpu(), procs.sample(false), time.Now()
				if (half+k/fleetRound)%2 == 1 {
					for j := 0; j < fleetRound; j++ {
						t, err := f.bareChange(ups, hops, procs, &bareWin)
						if err != nil {
							b.Fatalf("bare change: %v", err)
						}
						bares = append(bares, t)
					}
					bareCPU, bareSw = bareCPU.add(f.cpu().sub(c0)), bareSw.add(procs.sample(true).sub(s0))
					continue
				}
				win = &restyWin
				for j := 0; j < fleetRound; j++ {
					rev, w, t := change()
					totals, writes = append(totals, t), append(writes, w)
					hops.addResty(rev, last.t0, w, last.seen)
					if firstRev == 0 {
						firstRev = rev
					}
					lastRev = rev
				}
				win = nil
				// The rests after the changes are not the control plane's busy time.
				restyCPU, restyWall = restyCPU.add(f.cpu().sub(c0)), restyWall+time.Since(w0)-fleetRound*fleetBareRest
				restySw = restySw.add(procs.sample(true).sub(s0))
				hops.collect(cp) // between rounds, outside what the CPU figures count
			}
		}
		propCPU := float64(restyCPU.cp) / float64(restyWall)
		perChange, barePer := restyCPU.per(fleetChanges), bareCPU.per(fleetChanges)
		b.Logf("CPU per change: %s; bare mechanism: %s", perChange, barePer)
		b.Logf("whole changes, %s; bare mechanism: %s", restySw.switches(fleetChanges, len(f.agents)), bareSw.switches(fleetChanges, len(f.agents)))
		b.Logf("inside the window: CPU per change %s, %s; bare mechanism: %s, %s", restyWin.cpu(fleetChanges), restyWin.switches(fleetChanges, len(f.agents)),
			bareWin.cpu(fleetChanges), bareWin.switches(fleetChanges, len(f.agents)))
		b.ReportMetric(perChange.total().Seconds(), "fleet-cpu-s/change")
		b.ReportMetric(perChange.cp.Seconds(), "cp-cpu-s/change")
		b.ReportMetric(perChange.agents.Seconds(), "agents-cpu-s/change")
		if os.Getenv("RESTYPLANE_FLEET_QUICK") != "" {
			// Propagation and its CPU only, for profiling work: no report is written.
			// RESTYPLANE_FLEET_AGENTS may shrink the fleet for it.
			b.Logf("propagation %s; bare %s; write %s; warm-up %s", spreadOf(totals).row(), spreadOf(bares).row(), spreadOf(writes).row(), spreadOf(warm).row())
			b.Logf("ratio p50 %.2f, p99 %.2f; hops:\n%s", ratio(spreadOf(totals).p50, spreadOf(bares).p50), ratio(spreadOf(totals).p99, spreadOf(bares).p99), hops.table())
			continue
		}
		prop, wr, bare := spreadOf(totals), spreadOf(writes), spreadOf(bares)
		agentApply := spreadOf(agentApplies(cp, firstRev, lastRev))

		feed := func() float64 {
			before := f.feedBytes(b)
			change()
			return (f.feedBytes(b) - before) / fleetAgents
		}
		feedSmall := feed()

		r := f.restart(b, ups[:], change)
		cp = f.cp
		rssIdle, cpuA := procUsage(b, cp.PID())
		const window = 5 * time.Second
		time.Sleep(window) // a measurement window, not a synchronisation
		_, cpuB := procUsage(b, cp.PID())
		idleCPU := float64(cpuB-cpuA) / float64(window)

		rev := cp.mustWrite("PUT", "/api/v1/config", fleetConfig(ups[at], fleetBigBackends))
		f.waitAtHead(b, rev, 5*time.Minute)
		feedBig := feed()
		rssBig, _ := procUsage(b, cp.PID())

		b.ReportMetric(ms(prop.p50), "p50-ms")
		b.ReportMetric(ms(prop.p99), "p99-ms")
		b.ReportMetric(feedSmall, "feed-B/agent-10")
		b.ReportMetric(feedBig, "feed-B/agent-5000")
		b.ReportMetric(r.connected.Seconds(), "reconnect-s")
		b.ReportMetric(float64(r.failed), "failed-requests")
		var s strings.Builder
		s.WriteString(header("Fleet: 50 data planes on one machine (issue 9)", "BenchmarkFleet", load))
		s.WriteString("Alone: `go test ./bench -run '^$' -bench '^BenchmarkFleet$' -benchtime 1x -count 1`, which writes this section into BENCHMARKS.md (about a minute on this machine).\n\n")
		fmt.Fprintf(&s, "Scenario: one control plane (`restyplane serve --openresty off`, SQLite history) and %d `restyplane agent`s, each with its own %s "+
			"(one worker, the Lua module) on loopback ports, all on this machine, each agent and the control plane in a session of its own as a service manager starts daemons "+
			"(with the kernel's autogroups each session gets an equal share of a busy machine's CPU, as each nginx, in the session its agent starts it in, already did); two real upstream HTTP servers that name themselves in `X-Upstream`. "+
			"The agents were started in batches of %d, each batch ready before the next (%s for all %d, with the control plane's history at 10 backends). "+
			"Each change is a `PUT /api/v1/backends/b-0000/endpoints` that moves the backend of the one server to the other upstream; after each write the benchmark polls all %d proxies concurrently "+
			"(one kept-alive connection each, %s between polls, at most %d requests or %s per proxy) and takes the time when the last of them first answered from the new upstream, "+
			"then waits until `GET /api/v1/instances` shows all %d connected at that revision (after %d unmeasured warm-up changes).\n\n",
			fleetAgents, nginxVersion(), fleetBatch, fmtDur(startup), fleetAgents, fleetAgents, fleetPollPause, fleetPollBudget, fleetPollDeadline, fleetAgents, fleetWarmup)
		fmt.Fprintf(&s, "| measure | result | goal | |\n|---|---|---|---|\n")
		fmt.Fprintf(&s, "| API write to the first response from the new endpoint on all %d instances, p99 of %d changes | %s (p50 %s) | ≤ 50 ms | %s |\n",
			fleetAgents, fleetChanges, fmtDur(prop.p99), fmtDur(prop.p50), verdict(prop.p99 <= fleetPropGoal))
		r50, r99 := ratio(prop.p50, bare.p50), ratio(prop.p99, bare.p99)
		fmt.Fprintf(&s, "| the same ÷ the bare mechanism's in the same run (below), p50 and p99 | %.2f and %.2f (bare: p50 %s, p99 %s) | ≤ %.1f each | %s |\n",
			r50, r99, fmtDur(bare.p50), fmtDur(bare.p99), fleetRatioGoal, verdict(r50 <= fleetRatioGoal && r99 <= fleetRatioGoal))
		fmt.Fprintf(&s, "| feed bytes per agent for a one-endpoint change, 10 backends | %.0f B | < 2 KiB | %s |\n", feedSmall, verdict(feedSmall < fleetFeedGoal))
		fmt.Fprintf(&s, "| feed bytes per agent for a one-endpoint change, 5,000 backends | %.0f B | < 2 KiB, within 2× of 10 backends | %s |\n",
			feedBig, verdict(feedBig < fleetFeedGoal && feedBig <= 2*feedSmall && feedSmall <= 2*feedBig))
		fmt.Fprintf(&s, "| control-plane restart (kill -9, start on the same data dir and address) to all %d connected and at the head | %s (%s from the kill; the control plane answered after %s) | < 5 s | %s |\n",
			fleetAgents, fmtDur(r.connected), fmtDur(r.fromKill), fmtDur(r.up), verdict(r.connected < fleetReconnectGoal))
		fmt.Fprintf(&s, "| requests failed during the kill -9 and restart, of %d sent through all %d data planes | %d | 0 | %s |\n\n",
			r.ok+r.failed, fleetAgents, r.failed, verdict(r.failed == 0))
		s.WriteString(spreadHeader)
		fmt.Fprintf(&s, "| write to the first response from the new endpoint on all %d | %s |\n", fleetAgents, prop.row())
		fmt.Fprintf(&s, "| the bare mechanism's change to all %d (the benchmark's POST to every nginx's admin socket at once; no control plane, no agent) | %s |\n", fleetAgents, bare.row())
		fmt.Fprintf(&s, "| the same for the %d warm-up changes before them, right after the start (not measured) | %s |\n", fleetWarmup, spreadOf(warm).row())
		fmt.Fprintf(&s, "| the API write alone (`PUT …/endpoints` answered) | %s |\n", wr.row())
		fmt.Fprintf(&s, "| one agent's dynamic apply (`durationMs` of the agents' apply records, the newest 1,000) | %s |\n\n", agentApply.row())
		fmt.Fprintf(&s, fleetBareText, fleetChanges, fleetRound, fleetBareRest, r50, r99, barePer)
		s.WriteString("Where the time goes, hop by hop, in this run's measured changes (each agent's hops from its apply records):\n\n" + hops.table() + "\n")
		if prop.p99 > fleetPropGoal {
			fmt.Fprintf(&s, "All %d agents, their nginx, the control plane and the pollers share the machine's %d cores (and the load above), so a change reaches the last "+
				"instance only once every agent had its turn to apply it: compare one agent's apply with the time to all %d.\n\n", fleetAgents, runtime.NumCPU(), fleetAgents)
		}
		fmt.Fprintf(&s, "CPU time (user and system, from `/proc/<pid>/stat`) per measured change, the %d changes' total divided by %d: %s. "+
			"Unlike the wall-clock figures it hardly grows with other work on the machine. %s\n\n", fleetChanges, fleetChanges, perChange, fleetCPUBefore)
		s.WriteString(fleetLatencyWork + "\n\n")
		s.WriteString(fleetCountersWork + "\n\n")
		s.WriteString(fleetReportDelayWork + "\n\n")
		s.WriteString(fleetSlackWork + "\n\n")
		s.WriteString(fleetFloorWork + "\n\n")
		fmt.Fprintf(&s, "Inside each change's window, from just before the write until the last proxy first answered from the new upstream, "+
			"per change (CPU from `/proc/<pid>/task/<tid>/schedstat`, to the nanosecond; context switches from each thread's `status`): restyplane %s; %s. "+
			"The bare mechanism's: %s; %s. Over whole changes (the reports and the fleet view included), restyplane's %s; the bare mechanism's %s. "+
			"These counts hardly move with other work on the machine: a voluntary switch is a thread going to sleep, so an agent's count says how often it woke.\n\n",
			restyWin.cpu(fleetChanges), restyWin.switches(fleetChanges, len(f.agents)), bareWin.cpu(fleetChanges), bareWin.switches(fleetChanges, len(f.agents)),
			restySw.switches(fleetChanges, len(f.agents)), bareSw.switches(fleetChanges, len(f.agents)))
		s.WriteString(fleetWakeWork + "\n\n")
		s.WriteString(fleetAnswerWork + "\n\n")
		fmt.Fprintf(&s, "The control plane with %d agents connected (from `/proc/<pid>`): resident memory %.1f MiB at 10 backends after the restart and %.1f MiB at 5,000 backends; "+
			"CPU %.1f%% of one core while idle (a %s window after the restart) and %.1f%% of one core during the %d measured changes.\n\n",
			fleetAgents, float64(rssIdle)/1024, float64(rssBig)/1024, 100*idleCPU, window, 100*propCPU, fleetChanges)
		fmt.Fprintf(&s, "Feed bytes are the growth of the control plane's `restyplane_feed_bytes_sent_total` summed over the agents and divided by %d, "+
			"from just before the write until all agents showed the revision applied, so they include any keep-alive line sent in that window. "+
			"The restart ran under a load of %d clients (one per data plane, `POST` with a body that cannot be replayed, so never retried; every error or non-200 answer counts), "+
			"a %s pause between requests; after the restart a change reached all %d in %s.\n",
			fleetAgents, fleetAgents, fleetLoadPause, fleetAgents, fmtDur(r.change))
		if r.failed != 0 {
			fmt.Fprintf(&s, "\nFirst failures: %q\n", r.errs)
		}
		end := loadAverage()
		fmt.Fprintf(&s, "\nLoad average when it ended: %s.", end)
		if busy(load) || busy(end) {
			fmt.Fprintf(&s, " A busy machine: a load average past its %d cores means other work took turns on them with the fleet's processes, "+
				"and moves the wall-clock figures (and their ratios) more than the counts of context switches.", runtime.NumCPU())
		}
		s.WriteString("\n")
		if os.Getenv("RESTYPLANE_BENCH_OUT") == "" {
			// Run alone (the command above), it still writes its own section.
			b.Setenv("RESTYPLANE_BENCH_OUT", filepath.Join("..", "BENCHMARKS.md"))
		}
		report(b, "fleet", s.String())
	}
}

// busy reports whether a load average ("1.0 2.0 3.0") says that its first minute had more
// runnable work than the machine has cores.
func busy(load string) bool {
	one, _, _ := strings.Cut(load, " ")
	v, err := strconv.ParseFloat(one, 64)
	return err == nil && v > float64(runtime.NumCPU())
}

// quickAgents is the fleet's size: fleetAgents, or RESTYPLANE_FLEET_AGENTS for a quick
// profiling run (RESTYPLANE_FLEET_QUICK), which writes no report.
func quickAgents() int {
	if os.Getenv("RESTYPLANE_FLEET_QUICK") == "" {
		return fleetAgents
	}
	if n, err := strconv.Atoi(os.Getenv("RESTYPLANE_FLEET_AGENTS")); err == nil && n > 0 {
		return n
	}
	return fleetAgents
}

// fleetConfig is one server routing dynamicHost to backend b-0000 on up, one routing
// bareFleetHost to the backend that only the bare mechanism moves, and idle backends up
// to n in all.
func fleetConfig(up *upstream, n int) server.ConfigRequest {
	cfg := server.ConfigRequest{
		Backends: []api.Backend{{Name: "b-0000", Endpoints: up.endpoints()}, {Name: bareFleetBackend, Endpoints: up.endpoints()}},
		Servers: []api.Server{{Name: "dyn", Hostnames: []string{dynamicHost}, Locations: []api.Location{{Path: "/", Backend: "b-0000"}}},
			{Name: "bare", Hostnames: []string{bareFleetHost}, Locations: []api.Location{{Path: "/", Backend: bareFleetBackend}}}},
	}
	for i := 1; i < n; i++ {
		cfg.Backends = append(cfg.Backends, api.Backend{Name: fmt.Sprintf("b-%04d", i), Endpoints: idleEndpoints(i)})
	}
	return cfg
}

// settings returns GET /api/v1/settings.
func (in *instance) settings() api.Settings {
	in.tb.Helper()
	var set api.Settings
	in.must("GET", "/api/v1/settings", nil, &set)
	set.Version = 0
	return set
}

// agentApplies are the durations of the agents' successful dynamic applies of revisions
// first to last among the newest 1,000 apply records.
func agentApplies(cp *instance, first, last int64) []time.Duration {
	var ds []time.Duration
	for _, a := range cp.applies(1000) {
		if a.Instance != "" && a.Revision >= first && a.Revision <= last && a.Mode == api.ModeDynamic && a.Outcome == api.OutcomeSuccess {
			ds = append(ds, time.Duration(a.DurationMS*float64(time.Millisecond)))
		}
	}
	return ds
}
