package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestFleetSurvivesTheControlPlane: with two agents, each reaching the control plane
// through its own relay,
//   - kill -9 of the control plane under load through both proxies fails no request, and
//     after its restart (on another port: the relays follow it) the agents reconnect and
//     a change made then reaches both;
//   - an agent cut off keeps serving, the control plane shows it lagging and not
//     connected, and the change made meanwhile reaches it when the cut heals;
//   - an agent restarted while the control plane is down serves its last applied
//     revision from disk.
func TestFleetSurvivesTheControlPlane(t *testing.T) {
	dataDir := t.TempDir()
	cp, secret := startControlPlane(t, dataDir)
	a, b, c := newUpstream(t, "a", 200, 0), newUpstream(t, "b", 200, 0), newUpstream(t, "c", 200, 0)
	cp.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	cp.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	target := strings.TrimPrefix(cp.API, "http://")
	r1, r2 := newRelay(t, target), newRelay(t, target)
	e1 := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: r1.URL(), Token: secret, Name: "edge-1"})
	e2 := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: r2.URL(), Token: secret, Name: "edge-2"})
	e1.WaitReady(30 * time.Second)
	e2.WaitReady(30 * time.Second)
	serves := func(ag *rptest.Agent, want string) func() bool {
		return func() bool {
			code, body := proxyGet(ag.Proxy, "shop.test", "/p")
			return code == 200 && body == want+" /p"
		}
	}

	// kill -9 of the control plane under load.
	l := startLoad([]string{e1.Proxy, e2.Proxy}, "shop.test", 2, 5000)
	l.waitMore(t, 50, "before the kill")
	if err := syscall.Kill(cp.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	l.waitMore(t, 300, "while the control plane is dead")
	cp2 := &instance{Process: rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e fleet test", DataDir: dataDir,
		Args: []string{"--openresty", "off"}}), t: t}
	target2 := strings.TrimPrefix(cp2.API, "http://")
	r1.sever()
	r2.sever() // the agents' streams to the dead control plane are gone already; this also drops half-open ones
	r1.restore(target2)
	r2.restore(target2)
	waitFor(t, "both agents connected to the restarted control plane", 60*time.Second, func() bool {
		ins := fleetInstances(cp2)
		return ins["edge-1"] != nil && ins["edge-1"]["connected"] == true && ins["edge-2"] != nil && ins["edge-2"]["connected"] == true
	})
	cp2.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{b.endpoint(1)}})
	waitFor(t, "edge-1 at the change after the restart", 20*time.Second, serves(e1, "b"))
	waitFor(t, "edge-2 at the change after the restart", 20*time.Second, serves(e2, "b"))
	l.stopLoad(t) // fails the test if any request through either data plane failed

	// edge-2 cut off: it keeps serving, lags, and catches up when the cut heals.
	r2.sever()
	waitFor(t, "edge-2 seen disconnected", 20*time.Second, func() bool { return fleetInstances(cp2)["edge-2"]["connected"] == false })
	cp2.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{c.endpoint(1)}})
	waitFor(t, "edge-1 at the change", 20*time.Second, serves(e1, "c"))
	if !serves(e2, "b")() {
		t.Fatal("edge-2, cut off, does not serve its last revision")
	}
	waitFor(t, "edge-2 shown lagging", 20*time.Second, func() bool {
		in := fleetInstances(cp2)["edge-2"]
		return in["lag"].(float64) > 0 && in["connected"] == false
	})
	r2.restore("")
	waitFor(t, "edge-2 at the change after the cut healed", 30*time.Second, serves(e2, "c"))
	waitFor(t, "edge-2 shown at the head", 20*time.Second, func() bool {
		in := fleetInstances(cp2)["edge-2"]
		return in["lag"] == 0.0 && in["connected"] == true
	})

	// The control plane down, edge-2 restarted: it serves its last applied revision.
	r1.sever()
	r2.sever()
	cp2.Stop()
	e2.Restart()
	e2.WaitReady(30 * time.Second)
	if !serves(e2, "c")() {
		code, body := proxyGet(e2.Proxy, "shop.test", "/p")
		t.Fatalf("edge-2 restarted without its control plane = %d %q, want c's answer", code, body)
	}
	if !serves(e1, "c")() {
		t.Fatal("edge-1 stopped serving while the control plane is down")
	}
}
