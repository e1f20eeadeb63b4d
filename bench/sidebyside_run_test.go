package bench

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// The side-by-side run's shape, the same for every system.
const (
	sideClients = 8 // closed-loop kept-alive clients: enough to keep both cores busy
	// sidePace is the pause after a switch was seen by every client before the next one.
	sidePace = 150 * time.Millisecond
	// sideSettle is how long the load runs before a block's first switch.
	sideSettle = 300 * time.Millisecond
	// sideSwitchDeadline bounds the wait for one switch to reach the clients.
	sideSwitchDeadline = 10 * time.Second
)

// sideResult is what one system did over all its blocks.
type sideResult struct {
	sys proxySystem
	// total is each switch from just before the write to the first answer from the new
	// upstream; ack is the write alone, until the system answered it.
	total, ack []time.Duration
	starts     []time.Time // when each measured switch's write began
	seen       []time.Time // when its first new answer arrived
	ok, failed int64
	busy       time.Duration // how long the load ran
	errors     []string
}

// runBlock puts the load on sys and makes n switches between the two upstreams, starting
// from and returning to ups[0] (n is even); with res nil nothing is recorded (a warm-up).
func runBlock(tb testing.TB, sys proxySystem, ups [2]*upstream, n int, res *sideResult) {
	tb.Helper()
	g := startLoadGen(sys.addr(), sys.host(), sideClients)
	defer func() {
		if g.stopped.IsZero() {
			g.end()
		}
	}()
	time.Sleep(sideSettle)
	if !waitFor(5*time.Second, func() bool { return g.settled(ups[0].name) }) {
		tb.Fatalf("%s: the clients do not all get answers from %s before the first switch (%d failed: %q)",
			sys.label(), ups[0].name, g.failed.Load(), g.errors)
	}
	for k := 0; k < n; k++ {
		to := ups[(k+1)%2]
		w := g.expect(to.name)
		t0 := time.Now()
		if err := sys.switchTo(to); err != nil {
			tb.Fatalf("%s: switch %d to %s: %v", sys.label(), k, to.name, err)
		}
		ack := time.Since(t0)
		select {
		case <-w.seen:
		case <-time.After(sideSwitchDeadline):
			tb.Fatalf("%s: switch %d to %s not seen by any client within %s (%d answers, %d failed: %q)",
				sys.label(), k, to.name, sideSwitchDeadline, g.ok.Load(), g.failed.Load(), g.errors)
		}
		g.watch.Store(nil)
		if res != nil {
			res.total = append(res.total, w.at.Sub(t0))
			res.ack = append(res.ack, ack)
			res.starts, res.seen = append(res.starts, t0), append(res.seen, w.at)
		}
		if !waitFor(sideSwitchDeadline, func() bool { return g.settled(to.name) }) {
			tb.Fatalf("%s: after switch %d some clients still get answers from the old upstream", sys.label(), k)
		}
		time.Sleep(time.Until(w.at.Add(sidePace)))
	}
	g.end()
	if res != nil {
		res.ok += g.ok.Load()
		res.failed += g.failed.Load()
		res.busy += g.stopped.Sub(g.started)
		res.errors = append(res.errors, g.errors...)
	}
}

// waitFor polls cond every millisecond until it holds or d passed.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// waitServes waits until addr (host:port) answers a plain GET with 200 from upstream want.
func waitServes(tb testing.TB, addr, host, want string, logs fmt.Stringer) {
	tb.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequest("GET", "http://"+addr+"/", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && resp.Header.Get("X-Upstream") == want {
				return
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s does not proxy to upstream %s within 30 s (%v); its output:\n%s", addr, want, err, logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *sideResult) rps() float64 { return float64(r.ok) / r.busy.Seconds() }
