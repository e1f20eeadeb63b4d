package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// fleetCPUBefore is the same measure before the work of 2026-11-23 on the fleet's cost
// (shared feed encoding, one query for the instance list, the agents' kept-alive counter
// reads, report after apply and GOMAXPROCS 1, group commit of reports, the state journal,
// raw pollers), taken with RESTYPLANE_FLEET_QUICK=1 at commit c8bb86e.
const fleetCPUBefore = "Before the work that cut it (commit c8bb86e, 2026-11-23 17:05 UTC, load average 40 to 55): fleet 1.04 s per change " +
	"(control plane 368.3 ms, agents 527.6 ms, nginx 143.3 ms), benchmark 132.6 ms; propagation p50 741.3 ms, p99 1.51 s."

// fleetLatencyWork says what the work of 2026-11-23 evening (branch fleetlat) took out of
// every change, measured with perf record on the agents and strace of one agent and one
// nginx worker, and the figures before it.
const fleetLatencyWork = "What the work of 2026-11-23 evening took out of every change, found with `perf record` on the whole machine and on the agents during " +
	"the measured changes: each agent no longer fsyncs its journal line (the Go runtime's monitor thread spun through each blocking fsync; a crash of the machine " +
	"can at worst lose the newest revisions, which the feed resends) and keeps the journal file open; the report after an apply reads only the backend counters " +
	"(the per-server ones go with the heartbeats: nothing on the control plane decides from them), so one admin round trip fewer; the admin client asks for no gzip " +
	"(nginx compressed every counter read, the agent gunzipped it); the control plane's instance upsert is a prepared statement; the benchmark's wait for the fleet view " +
	"(not measured) polls every 25 ms instead of 10. Before it (commit 92fed16): propagation p50 207.8 ms, p99 420.7 ms, fleet 323.4 ms CPU per change " +
	"(control plane 69.1 ms, agents 158.9 ms, nginx 95.4 ms), benchmark 36.3 ms, in a load average of 13 to 65; the same commit in a quick run " +
	"(RESTYPLANE_FLEET_QUICK, load average about 4): p50 108.9 ms, p99 209.1 ms, fleet 250.3 ms (control plane 51.5 ms, agents 127.0 ms, nginx 71.8 ms), benchmark 32.3 ms."

// fleetCountersWork says what the work of 2026-11-23 night (branch fleet2) took out of
// every change, and the quick runs (RESTYPLANE_FLEET_QUICK) it was measured with.
const fleetCountersWork = "What the work of 2026-11-23 night took out, found with `perf record -a` and the context switches of every process (/proc) during " +
	"the measured changes: an agent's report after an apply no longer asks its nginx for the backend counters in a request of its own, because the push's answer " +
	"carries them (`countersEpoch` in the push, `Options.CountersWithPush`, which only agents set). That request was a wake-up of its own: an agent woke four " +
	"times per change (feed line, push answer, counter answer, report answer) and now three, and on this virtual machine each wake-up costs a Go agent about " +
	"0.5 ms of CPU, most of it the scheduler's and sysmon's system calls and context switches, not its own work. An agent also appends its journal line at once " +
	"instead of after its report's answer (only a whole state file waits for the report), which left a 2 s timer per change. Quick runs without a profiler, " +
	"main at b3efa28 and this branch taken in turn, three each, at load averages of 4 to 15: fleet 150 to 198 ms CPU per change (agents 70 to 98 ms) before, " +
	"146 to 167 ms (agents 62 to 73 ms) after; propagation p50 76 to 96 ms and p99 136 to 187 ms before, p50 68 to 76 ms and p99 117 to 174 ms after. The " +
	"other work on the machine moves single runs by as much as the change does; the means moved from 175 to 153 ms of CPU, p50 85 to 71 ms, p99 165 to 146 ms."

// fleetReportDelayWork says what the work of 2026-11-24 changed (the agents' report
// delay, the longer warm-up) and the quick runs (RESTYPLANE_FLEET_QUICK) it was measured
// with.
const fleetReportDelayWork = "What the work of 2026-11-24 changed. An agent sends the report of an apply 50 ms after it (`ReportDelay`; the report says how long it " +
	"held it, so the control plane's propagation histogram leaves that out), so that the reports of a change, and the control plane's handling of them, no longer " +
	"compete for the two cores with the applies of the same change on the other agents. It costs each agent one more wake-up per change (the timer). Quick runs, " +
	"main at baef885 and the delay taken in turn, five warm-up changes: p50 66.7 and 68.7 ms, p99 102.5 and 121.7 ms, fleet CPU 126.4 and 138.3 ms per change " +
	"before; p50 49.9 to 57.4 ms, p99 94.5 to 130.3 ms, 142.5 to 156.3 ms after (six runs). The delay moves the median, not the tail. The series of the 100 " +
	"measured changes showed the first tens of them after the start slower than the rest (about 70 ms falling to about 40 ms), so 50 warm-up changes now go first " +
	"and the table gives their spread. `perf record` of the 50 agents during the measured changes: the Go runtime's monitor thread (sysmon) is 28% of their CPU " +
	"and the scheduler's idle loop another 16%: each burst of work that starts with a system call wakes sysmon, which then sleeps 20 µs at a time while the burst " +
	"lasts, and every such sleep is a context switch on this virtual machine; GOMAXPROCS 2 for the agents (tried) costs more (104 ms of agent CPU per change). " +
	"Fewer bursts per change, not less work in each, is what is left to take out: the report's answer is one (a stream of reports without an answer each would " +
	"remove it)."

// fleetSlackWork says what the work of 2026-11-24 morning measured on the fleet: the
// history held by one process, and a coarser timer slack, tried and not taken.
const fleetSlackWork = "What the work of 2026-11-24 morning changed: the control plane opens its history with SQLite's `unix-excl` VFS, so that its " +
	"commits (revisions and the agents' reports) take no `fcntl` locks on a shared-memory file. Measured and not taken: a 1 ms timer slack for the agents' " +
	"and the control plane's threads, which stretches sysmon's 20 µs sleeps (one quick run each, main before it and the slack: fleet CPU 143.5 and 123.2 ms " +
	"per change, agents 77.6 and 60.7 ms, control plane 29.7 and 25.1 ms; propagation p50 44.3 and 43.2 ms, p99 120.2 and 106.1 ms). Without CAP_SYS_NICE " +
	"a process can set the slack only of the thread that asks, before the runtime starts its own threads, so it needs a re-execution of the binary at " +
	"every start, and the nginx that an agent starts would inherit the coarse timers: a fifth less CPU, with the tail no nearer its goal, did not pay for that. " +
	"That morning's full run (p50 50.0 ms, p99 124.3 ms, 154.3 ms of CPU per change) was slower than the night before's (p50 42.7 ms, 137.5 ms of CPU per change) for a reason outside the code: quick runs of main just before this work (ca1d164) and after it, taken in turn twice this morning, gave fleet CPU 155.6 and 155.0 ms per change before and 178.2 and 161.2 ms after (control plane 33.3 and 33.0 ms before, 35.9 and 34.0 ms after), propagation p50 47.9 and 48.1 ms before and 55.9 and 50.9 ms after, p99 124.8 and 126.6 ms before and 152.9 and 126.9 ms after: the machine was slower than the night before for both, and the history held by one process shows no gain on the control plane's CPU here, where the reports are already committed in groups."

// fleetFloorWork says what the bare mechanism's row, added on 2026-11-24, showed about
// the goal.
const fleetFloorWork = "What the floor, measured since 2026-11-24 midday, shows. Until then the goal was measured against nothing on this machine. " +
	"The bare mechanism's changes take restyplane's control plane and agents out of the way and keep everything else: the same 50 nginx, the same " +
	"pollers, the same two cores. In four runs that day before the one above (three quick, one full), its p99 to all 50 was 67.6 to 69.7 ms and its p50 21.5 to 24.0 ms, " +
	"against restyplane's p99 of 77.5 to 94.5 ms and p50 of 39.7 to 42.7 ms. So on this machine the goal of 50 ms at p99 is out of reach of the " +
	"mechanism itself, before restyplane adds anything: the tail is set by the scheduling of 100 processes on two cores and by the pollers, whose " +
	"requests are nearly all of the 35 ms of CPU a bare change costs (50 proxies polled every 5 ms while a change spreads). What restyplane adds is about " +
	"18 ms at the median: the API write, 50 feed lines, and two wake-ups of each agent (the feed line, the push's answer), about 1.2 ms of CPU per agent " +
	"per change that the two cores serve one after another; at p99 it adds 10 to 25 ms."

// fleetCPU is CPU time (user and system) used so far by the parts of a fleet: the control
// plane, the agents, their nginx (masters and workers) and the benchmark itself (its
// pollers). CPU seconds per change hold on a busy machine, where wall-clock percentiles
// do not: other work on the cores delays a change but does not add to what it costs.
type fleetCPU struct {
	cp, agents, nginx, bench time.Duration
}

// sub is the CPU used between o and c.
func (c fleetCPU) sub(o fleetCPU) fleetCPU {
	return fleetCPU{cp: c.cp - o.cp, agents: c.agents - o.agents, nginx: c.nginx - o.nginx, bench: c.bench - o.bench}
}

// add is the CPU of c and o together.
func (c fleetCPU) add(o fleetCPU) fleetCPU {
	return fleetCPU{cp: c.cp + o.cp, agents: c.agents + o.agents, nginx: c.nginx + o.nginx, bench: c.bench + o.bench}
}

// per is the CPU divided by n changes.
func (c fleetCPU) per(n int) fleetCPU {
	d := time.Duration(n)
	return fleetCPU{cp: c.cp / d, agents: c.agents / d, nginx: c.nginx / d, bench: c.bench / d}
}

// total is the fleet's own CPU: control plane, agents and nginx, not the benchmark.
func (c fleetCPU) total() time.Duration { return c.cp + c.agents + c.nginx }

func (c fleetCPU) String() string {
	return fmt.Sprintf("fleet %s (control plane %s, agents %s, nginx %s), benchmark %s",
		fmtDur(c.total()), fmtDur(c.cp), fmtDur(c.agents), fmtDur(c.nginx), fmtDur(c.bench))
}

// cpu reads the fleet's CPU use from /proc: the control plane and agents by pid, each
// agent's nginx by the master's pid file and the master's children. A process that is
// gone counts nothing, so samples are compared only while the fleet runs unchanged.
func (f *fleet) cpu() fleetCPU {
	var c fleetCPU
	c.cp = procCPU(f.cp.PID())
	for _, a := range f.agents {
		c.agents += procCPU(a.PID())
	}
	for _, pid := range f.nginxPIDs() {
		c.nginx += procCPU(pid)
	}
	c.bench = selfCPU() - f.sampling
	return c
}

// procStat is the fields of /proc/<pid>/stat after the command's closing parenthesis
// (state is the first), or nil when the process is gone.
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// procCPU is a process's user and system time so far; clock ticks are 1/100 s on Linux.
func procCPU(pid int) time.Duration {
	f := procStat(pid)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// procPPID is a process's parent, or 0 when it is gone.
func procPPID(pid int) int {
	f := procStat(pid)
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}
