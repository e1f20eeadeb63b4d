package bench

import (
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// fleetLoadPause is the pause between one load client's requests: 50 clients at most
// 40 requests a second each leave the 2 cores to the processes the benchmark measures.
const fleetLoadPause = 25 * time.Millisecond

// restartResult is what restart measured.
type restartResult struct {
	connected, fromKill, change time.Duration
	// up is how long the new control plane took to answer /api/v1/status: the rest of
	// connected is the agents' reconnection (their backoff included).
	up         time.Duration
	ok, failed int64
	errs       []string
}

// restart kills the control plane with SIGKILL under a load through every data plane,
// starts it again on the same data directory and address, times until every agent is
// connected and at the head, makes one change that must reach them all, and ends the load.
// f.cp is the new control plane afterwards.
func (f *fleet) restart(tb testing.TB, ups []*upstream, change func() (int64, time.Duration, time.Duration)) restartResult {
	tb.Helper()
	var proxies []string
	for _, a := range f.agents {
		proxies = append(proxies, a.Proxy)
	}
	l := startFleetLoad(proxies, dynamicHost, 20000, 3*time.Minute, fleetLoadPause)
	defer func() {
		select {
		case <-l.stop:
		default:
			l.end()
		}
	}()
	l.waitMore(tb, 500, 30*time.Second, "before the kill")
	var r restartResult
	tKill := time.Now()
	f.cp.Kill()
	l.waitMore(tb, 500, 30*time.Second, "while the control plane is dead")
	tStart := time.Now()
	f.cp = &instance{Process: rptest.Start(tb, f.cp.Options()), tb: tb}
	r.up = time.Since(tStart)
	deadline := tStart.Add(time.Minute)
	for !f.allAtHead(0) {
		if time.Now().After(deadline) {
			tb.Fatalf("not every agent connected at the head a minute after the restart: %+v", f.instances())
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.connected, r.fromKill = time.Since(tStart), time.Since(tKill)
	_, _, r.change = change()
	l.waitMore(tb, 500, 30*time.Second, "after the restart")
	r.ok, r.failed, r.errs = l.end()
	return r
}
