package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Goals of the Kubernetes benchmark, as its report states them.
const (
	goalUpdateP99 = 100 * time.Millisecond
	goalRSSBytes  = 250 * 1000 * 1000 // 250 MB
)

// percentiles are a set of timings reduced to nearest-rank percentiles.
type percentiles struct {
	runs          int
	p50, p90, p99 time.Duration
	min, max      time.Duration
}

func percentilesOf(ds []time.Duration) percentiles {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return percentiles{}
	}
	rank := func(p float64) time.Duration {
		i := int(float64(len(s))*p+0.999999) - 1 // nearest rank, 1-based, ceil(n*p)
		if i < 0 {
			i = 0
		}
		return s[i]
	}
	return percentiles{runs: len(s), p50: rank(0.50), p90: rank(0.90), p99: rank(0.99), min: s[0], max: s[len(s)-1]}
}

func (p percentiles) String() string {
	return fmt.Sprintf("p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, %.1f–%.1f ms over %d", millis(p.p50), millis(p.p90),
		millis(p.p99), millis(p.min), millis(p.max), p.runs)
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mibOf(n int64) float64          { return float64(n) / (1 << 20) }
func mbOf(n int64) float64           { return float64(n) / 1e6 }

// procStatusBytes reads a kB field, such as VmRSS or VmHWM, of /proc/<pid>/status.
func procStatusBytes(tb testing.TB, pid int, field string) int64 {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatalf("read the status of pid %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v)
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil && len(f) == 2 && f[1] == "kB" {
				return n * 1024
			}
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// loadAverageNow is the 1, 5 and 15 minute load averages.
func loadAverageNow() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// machineNow describes where the benchmark runs.
func machineNow() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%d CPUs (nproc), %s, GOMAXPROCS %d, %s %s/%s", runtime.NumCPU(), model,
		runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// codeVersion names the code the benchmark built: the commit, and whether the working tree
// differed from it.
func codeVersion() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown (git describe failed)"
	}
	v := strings.TrimSpace(string(out))
	if strings.HasSuffix(v, "-dirty") {
		if files, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
			var changed []string
			for _, line := range strings.Split(strings.TrimSpace(string(files)), "\n") {
				if f := strings.Fields(line); len(f) == 2 {
					changed = append(changed, f[1])
				}
			}
			v += " (uncommitted changes in " + strings.Join(changed, ", ") + ")"
		}
	}
	return "`" + v + "`"
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// markdown is the benchmark's section of BENCHMARKS.md.
func (r *kubeBenchResult) markdown() string {
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }
	p("## Kubernetes: 2,000 Ingresses end to end (issue 4)\n\n")
	benchHeadline(p, "BenchmarkKubernetes", "the updates", r.load, r.loadEnd, r.code)
	p("Scenario: a real kube-apiserver and etcd (envtest) hold %d Services (headless: envtest allocates ClusterIPs from a /24) in %d namespaces, each with an EndpointSlice of "+
		"two ready endpoints and an Ingress of one host of class `%s` (controller `restyplane.io/ingress`). The endpoints are "+
		"%d real HTTP servers in a network namespace the benchmark creates (10.213.x.y over a veth pair: the API server refuses "+
		"loopback endpoint addresses). The objects exist before restyplane starts; the clock starts when the `restyplane serve "+
		"--kubeconfig …` process is started, with its managed nginx, applier and reconciler (`--ingress-status-address` set, "+
		"so it also writes every Ingress's status). API server, etcd, restyplane, nginx, upstreams and the benchmark share the machine.\n\n",
		benchServices, benchNamespaces, ingressClass, benchUpstreams)

	p("| measure | result | goal | |\n|---|---|---|---|\n")
	p("| restyplane start → all %d Ingresses applied (status `inSync`, %d servers listed) | %.2f s | — | |\n",
		benchServices, benchServices, r.applied.Seconds())
	p("| EndpointSlice update → live traffic, p99 over %d updates | %.1f ms | ≤ %d ms | %s |\n",
		r.updates.runs, millis(r.updates.p99), goalUpdateP99.Milliseconds(), met(r.updates.p99 <= goalUpdateP99))
	p("| restyplane resident memory, peak (`VmHWM` of its process) | %.0f MB (%.0f MiB) | ≤ 250 MB | %s |\n\n",
		mbOf(r.rssPeak), mibOf(r.rssPeak), met(r.rssPeak <= goalRSSBytes))

	p("| timing | result |\n|---|---|\n")
	p("| creating the %d Services, EndpointSlices and Ingresses (8 clients, before restyplane starts; not part of the figures below) | %.1f s |\n",
		benchServices, r.created.Seconds())
	r.startup.rows(p, benchServices)
	p("| hosts answering 200 through the proxy, checked one by one afterwards | %d of %d |\n", r.allServed, benchServices)
	p("| start → every Ingress's `status.loadBalancer` set (the reporter works off its own rate-limited queue after the write) | %.1f s |\n",
		r.statuses.Seconds())
	p("| EndpointSlice update (endpoints replaced by an upstream the slice did not list) → first answer from it, %d updates one after another | %s |\n",
		r.updates.runs, r.updates)
	reload := "none (nginx master and worker pids unchanged)"
	if r.reloaded {
		reload = "**nginx pids changed: a reload happened**"
	}
	p("| reloads during the updates | %s |\n", reload)
	p("| restyplane RSS (`VmRSS`) when applied / after the updates / peak (`VmHWM`) | %.0f / %.0f / %.0f MiB |\n\n",
		mibOf(r.rssApplied), mibOf(r.rssAfter), mibOf(r.rssPeak))

	st := r.stages
	p("Where an update's time goes, from restyplane's own records (each update's revision time and the apply record "+
		"of that revision; %d of %d updates matched):\n\n", r.updates.runs-st.unmatched, r.updates.runs)
	st.table(p, [4]string{
		"EndpointSlice update sent → revision written (API server, watch, informer, the reconciler's sync of that Service's backends, the store's write)",
		"revision written → applier starts the apply (wake-up, planning: compare with what runs)",
		"apply (dynamic push to nginx's shared memory, apply record)",
		"apply recorded → first answer from the new endpoint (the record is written after the push, so this can be below 0)",
	})
	return w.String()
}

// benchHeadline writes the lines under a benchmark's title: the command that runs it, the
// machine, its load when the run started and after what the run measured last (after),
// the code and the date.
func benchHeadline(p func(string, ...any), bench, after, load, loadEnd, code string) {
	p("Command: `make bench` (runs `go test ./e2e -run '^$' -bench '^%s$' -benchtime 1x`)  \n", bench)
	p("Machine: %s  \n", machineNow())
	p("Load average when it started / after %s (other work on the machine skews the figures): %s / %s  \n", after, load, loadEnd)
	p("Code: %s  \n", code)
	p("Date: %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
}

// table writes the stages as a table whose rows are named, in order, for toRevision,
// toApply, apply and toAnswer.
func (st stages) table(p func(string, ...any), names [4]string) {
	p("| stage | p50 | p90 | p99 | max |\n|---|---|---|---|---|\n")
	for i, row := range []percentiles{st.toRevision, st.toApply, st.apply, st.toAnswer} {
		p("| %s | %.1f ms | %.1f ms | %.1f ms | %.1f ms |\n", names[i], millis(row.p50), millis(row.p90), millis(row.p99), millis(row.max))
	}
	p("\n")
}

// rows writes the startup's rows of a timing table, of n hosts.
func (s startup) rows(p func(string, ...any), n int) {
	p("| start → the reconciler's revision written (revision %d, %d changes) | %.2f s |\n", s.firstRevision, s.changes, s.written.Seconds())
	p("| start → the applier starts on that revision / its apply takes (mode %s) | %.2f s / %.0f ms |\n",
		s.firstApplyMode, s.firstApplyAt.Seconds(), millis(s.firstApplyTook))
	p("| start → that revision applied by nginx (status `inSync`) | %.2f s |\n", s.applied.Seconds())
	p("| start → %d sample hosts (every %dth) answering through the proxy from their upstreams | %.2f s |\n",
		benchSample, n/benchSample, s.sampleServed.Seconds())
}
