package bench

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/rptest"
)

// fleet is a control plane (`serve --openresty off`) and its agents, each with its own
// nginx on loopback ports.
type fleet struct {
	cp     *instance
	secret string
	agents []*rptest.Agent
	// pollers hold one kept-alive connection per agent's proxy; barePollers another, to
	// the route that bare moves.
	pollers, barePollers []*rawPoller
	bare                 *barePusher
	// sampling is the benchmark's CPU spent reading fleetProcs samples.
	sampling time.Duration
}

// raiseFileLimit lifts the soft RLIMIT_NOFILE to the hard one: the benchmark holds
// connections to every proxy, and the processes it starts inherit the limit.
func raiseFileLimit(tb testing.TB) {
	tb.Helper()
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		tb.Fatalf("getrlimit: %v", err)
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			tb.Fatalf("setrlimit: %v", err)
		}
	}
	if l.Cur < 4096 {
		tb.Fatalf("RLIMIT_NOFILE is %d; 50 agents with their nginx need at least 4096", l.Cur)
	}
}

// startControlPlane runs restyplane serve without OpenResty on dataDir and makes a
// dataplane token.
func startFleetControlPlane(tb testing.TB, dataDir string) (*instance, string) {
	tb.Helper()
	in := &instance{Process: rptest.Start(tb, rptest.Options{Token: adminToken, Reason: "benchmark", DataDir: dataDir,
		Client: &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}},
		Args:   []string{"--log-level", "warn", "--openresty", "off"}, Session: true}), tb: tb}
	var tok struct {
		Secret string `json:"secret"`
	}
	in.must("POST", "/api/v1/tokens", map[string]any{"name": "dp", "role": "dataplane"}, &tok)
	return in, tok.Secret
}

// startAgents starts n agents in batches, each batch ready before the next starts, so
// that 2 cores are not asked to start 50 nginx at once.
func (f *fleet) startAgents(tb testing.TB, n, batch int) {
	tb.Helper()
	for i := 0; i < n; i += batch {
		var started []*rptest.Agent
		for j := i; j < n && j < i+batch; j++ {
			dir := tb.TempDir()
			// Registered before the agent's own cleanup, so it runs after it: whatever
			// nginx an agent that had to be killed left behind goes too.
			tb.Cleanup(func() { killNginx(dir) })
			a := rptest.StartAgent(tb, rptest.AgentOptions{ControlPlane: f.cp.API, Token: f.secret, Name: fmt.Sprintf("edge-%02d", j+1),
				DataDir: dir, Args: []string{"--log-level", "warn"}, Session: true})
			started = append(started, a)
		}
		for _, a := range started {
			a.WaitReady(2 * time.Minute)
		}
		f.agents = append(f.agents, started...)
	}
	for _, a := range f.agents {
		p, bp := newRawPoller(a.Proxy, dynamicHost, "/"), newRawPoller(a.Proxy, bareFleetHost, "/")
		tb.Cleanup(p.close)
		tb.Cleanup(bp.close)
		f.pollers, f.barePollers = append(f.pollers, p), append(f.barePollers, bp)
	}
	f.bare = newBarePusher(f.agents)
}

// instances returns GET /api/v1/instances.
func (f *fleet) instances() api.InstanceList {
	f.cp.tb.Helper()
	var l api.InstanceList
	f.cp.must("GET", "/api/v1/instances", nil, &l)
	return l
}

// allAtHead reports whether every agent is connected and reports the head, or that
// revision when it is given.
func (f *fleet) allAtHead(rev int64) bool {
	l := f.instances()
	if rev == 0 {
		rev = l.Head
	}
	n := 0
	for _, in := range l.Items {
		if !in.Managed && in.Connected && in.Applied >= rev {
			n++
		}
	}
	return n == len(f.agents)
}

// waitAtHead waits until allAtHead holds, failing after within.
func (f *fleet) waitAtHead(tb testing.TB, rev int64, within time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for !f.allAtHead(rev) {
		if time.Now().After(deadline) {
			tb.Fatalf("not every agent connected at revision %d within %s: %+v", rev, within, f.instances())
		}
		// Not a measured wait: the list of 50 instances is a query and 50 rows to encode,
		// and asking for it every 10 ms took a quarter of the control plane's CPU per change.
		time.Sleep(25 * time.Millisecond)
	}
}

// pollAll polls every proxy concurrently through pollers, each at most budget requests
// and deadline from t0, until it answers from upstream want, and returns when the last one
// first did, and when each did (by poller). A proxy that never does is an error.
func (f *fleet) pollAll(pollers []*rawPoller, t0 time.Time, want string, budget int, deadline time.Duration) (time.Duration, []time.Duration, error) {
	var mu sync.Mutex
	var last time.Duration
	seen := make([]time.Duration, len(pollers))
	var firstErr error
	var wg sync.WaitGroup
	for i, p := range pollers {
		wg.Add(1)
		go func(i int, p *rawPoller) {
			defer wg.Done()
			for k := 0; ; k++ {
				code, from, err := p.get()
				if err == nil && code == 200 && from == want {
					d := time.Since(t0)
					mu.Lock()
					last, seen[i] = max(last, d), d
					mu.Unlock()
					return
				}
				if k >= budget || time.Since(t0) > deadline {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("agent %d: after %d requests in %s it answers %d from %q (%v), want 200 from %s",
							i+1, k+1, time.Since(t0), code, from, err, want)
					}
					mu.Unlock()
					return
				}
				// A pause between polls: 50 clients in tight loops would take the 2 cores
				// from the agents that apply the change.
				time.Sleep(fleetPollPause)
			}
		}(i, p)
	}
	wg.Wait()
	return last, seen, firstErr
}

// feedBytes is the sum of restyplane_feed_bytes_sent_total over the agents, read from the
// control plane's /metrics.
func (f *fleet) feedBytes(tb testing.TB) float64 {
	tb.Helper()
	resp, err := http.Get(f.cp.API + "/metrics")
	if err != nil {
		tb.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "restyplane_feed_bytes_sent_total{") {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			tb.Fatalf("metric line %q: %v", line, err)
		}
		sum += v
	}
	return sum
}

// procUsage is a process's resident memory and the CPU time it used so far, from /proc.
func procUsage(tb testing.TB, pid int) (rssKiB int64, cpu time.Duration) {
	tb.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			rssKiB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// Fields after the command's closing parenthesis: state is the first, utime the 12th
	// and stime the 13th; both in clock ticks, which are 1/100 s on Linux.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return rssKiB, time.Duration(ut+st) * 10 * time.Millisecond
}

// killNginx kills the nginx master named by the pid file of an agent's data directory,
// with its workers, if one still runs.
func killNginx(dataDir string) {
	data, err := os.ReadFile(filepath.Join(dataDir, "openresty", "logs", "nginx.pid"))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return
	}
	if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); !strings.Contains(string(cmdline), "nginx") {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
