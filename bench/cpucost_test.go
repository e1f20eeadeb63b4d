package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restyplane/restyplane/server"
)

// cpuChanges is how many endpoint changes BenchmarkHotPathCPU makes.
const cpuChanges = 300

// BenchmarkHotPathCPU measures what one endpoint change costs restyplane in CPU time
// rather than wall time: the CPU that the restyplane process (API write, token check,
// commit, applier, push) and nginx's workers spent over cpuChanges changes made one at a
// time through the REST API, each followed by a polling client until the proxy answers
// from the new upstream. CPU time counts the work, not the waits for cores that other
// processes hold, so the figure holds on a busy machine where the side-by-side's wall
// times do not. With HOTPATH_PERF set to a file name, `perf record` samples the
// restyplane process meanwhile (cpu-clock, call graphs) into that file.
func BenchmarkHotPathCPU(b *testing.B) {
	for i := 0; i < b.N; i++ {
		load := loadAverage()
		in := start(b)
		s := newDynamicSetup(in, 0)
		s.run(20) // warm-up: connections, caches, the first watch
		rp, ng := in.PID(), in.NginxPID()
		stopPerf := perfRecord(b, rp)
		cpu0, ngx0 := cpuTime(rp), childrenCPU(ng)
		t0 := time.Now()
		r := s.paced(cpuChanges)
		wall := time.Since(t0)
		cpu, ngx := cpuTime(rp)-cpu0, childrenCPU(ng)-ngx0
		stopPerf()
		per := cpu / cpuChanges
		b.ReportMetric(float64(per.Microseconds()), "restyplane-cpu-µs/change")
		b.ReportMetric(float64((ngx / cpuChanges).Microseconds()), "nginx-cpu-µs/change")
		b.ReportMetric(ms(spreadOf(r).p50), "p50-ms")
		var w strings.Builder
		w.WriteString(header("Hot path: CPU time of one endpoint change (issue 12)", "BenchmarkHotPathCPU", load))
		fmt.Fprintf(&w, "Scenario: the real `restyplane serve` with its managed nginx; %d `PUT /api/v1/backends/{name}/endpoints` made one at a time "+
			"(after 20 unmeasured), each followed by one client polling the proxy until it answers from the new upstream, then 20 ms of rest. "+
			"CPU time is the processes' user and system time from /proc over the %d changes (%s in all): it counts the work each change costs, "+
			"not the waits for cores that other work on the machine holds, so it compares runs made at different loads better than wall times do.\n\n",
			cpuChanges, cpuChanges, wall.Round(time.Millisecond))
		fmt.Fprintf(&w, "| measure | per change |\n|---|---|\n")
		fmt.Fprintf(&w, "| restyplane process CPU (API write, token check, commit, applier, push, apply record, its background work) | %s |\n", fmtDur(per))
		fmt.Fprintf(&w, "| nginx workers CPU (the push, and the polling client's requests) | %s |\n\n", fmtDur(ngx/cpuChanges))
		w.WriteString(spreadHeader)
		fmt.Fprintf(&w, "| write to the first answer from the new upstream (wall, machine as loaded as above) | %s |\n", spreadOf(r).row())
		w.WriteString(cpuAnalysis)
		report(b, "hotpath-cpu", w.String())
	}
}

// cpuAnalysis is what profiles of this benchmark showed, before and after the
// changes to the hot path that made it cheaper.
const cpuAnalysis = "\nWhere the CPU goes, from `perf record -e cpu-clock -g` on the restyplane process during this benchmark " +
	"(`HOTPATH_PERF=file`), samples of each stage's call tree per change, before (main at b889ccf) and after the changes of branch hotpath, " +
	"both at load averages of 25–38 (the figures include what contention adds to kernel and scheduler work):\n\n" +
	"| stage (inclusive) | before | after |\n|---|---|---|\n" +
	"| API request in the Go HTTP server, all of it | 1783 µs | 1052 µs |\n" +
	"| token check (`store.Authenticate`: a SQLite SELECT, now a cache) | 475 µs | 5 µs |\n" +
	"| store write: validation and the SQLite commit | 660 µs | 538 µs |\n" +
	"| of which the commit | 593 µs | 462 µs |\n" +
	"| push (`Instance.Push`, admin socket POST) | 130 µs | 128 µs |\n" +
	"| apply record after the push (SQLite) | 388 µs | 202 µs |\n" +
	"| every sample of the process | 3822 µs | 2747 µs |\n\n" +
	"What is left of the commit is SQLite itself (modernc's translation to Go): the WAL's shared-memory locks and the page writes, " +
	"each a system call, which on this virtual machine cost more than the B-tree work.\n"

// paced makes n endpoint changes like run, without asking the API for the apply status
// in between (which would cost the process CPU of its own): it waits for the new answer,
// then 20 ms for the applier to record its apply.
func (s *dynamicSetup) paced(n int) []time.Duration {
	in := s.in
	in.tb.Helper()
	var total []time.Duration
	for i := 0; i < n; i++ {
		s.at = 1 - s.at
		want := s.ups[s.at]
		t0 := time.Now()
		in.mustWrite("PUT", "/api/v1/backends/"+s.backend+"/endpoints", server.EndpointsRequest{Endpoints: want.endpoints()})
		for {
			code, from, err := s.proxy.get(s.host, s.path)
			if err == nil && code == 200 && from == want.name {
				total = append(total, time.Since(t0))
				break
			}
			if time.Since(t0) > pollDeadline {
				in.tb.Fatalf("change %d: the proxy answers %d from %q (%v), want 200 from %s", i, code, from, err, want.name)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return total
}

// cpuTime is the CPU time all threads of process pid have used, from /proc/pid/stat
// (user and system time, in clock ticks of 10 ms; over hundreds of changes the rounding
// averages out), dead threads included.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; the fields after its closing parenthesis do not.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// childrenCPU is the CPU time of the children of pid: nginx's workers under its master.
func childrenCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return 0
	}
	var sum time.Duration
	for _, c := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(c); err == nil {
			sum += cpuTime(n)
		}
	}
	return sum
}

// perfRecord starts `perf record` on pid when HOTPATH_PERF names an output file, and
// returns what stops it.
func perfRecord(tb testing.TB, pid int) func() {
	out := os.Getenv("HOTPATH_PERF")
	if out == "" {
		return func() {}
	}
	out, _ = filepath.Abs(out)
	cmd := exec.Command("perf", "record", "-e", "cpu-clock", "-F", "2000", "-g", "-p", strconv.Itoa(pid), "-o", out)
	if err := cmd.Start(); err != nil {
		tb.Fatalf("perf record: %v", err)
	}
	time.Sleep(500 * time.Millisecond) // perf attaches
	return func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	}
}
