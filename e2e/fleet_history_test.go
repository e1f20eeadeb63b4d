package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestFleetReplacedHistoryTakesASnapshot: an agent follows a control plane to revision 3;
// that control plane is replaced by one on a fresh data directory, at the same address,
// whose history also passed revision 3 with other states. The agent must not resume from
// "its" revision 3 there (a delta of the new history onto the old one's state): it notices
// the other history, takes a fresh snapshot, says so in its log, and serves the new head.
func TestFleetReplacedHistoryTakesASnapshot(t *testing.T) {
	env := []string{"RESTYPLANE_DATAPLANE_TOKEN=" + joinSecret}
	p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e history test", Args: []string{"--openresty", "off"}, Env: env})
	cp := &instance{Process: p, t: t}
	one, two := newUpstream(t, "one", 200, 0), newUpstream(t, "two", 200, 0)
	cp.must("POST", "/api/v1/backends", backend("web", one.endpoint(1)))
	cp.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	cp.must("POST", "/api/v1/backends", backend("pad", one.endpoint(1)))
	ag := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: cp.API, Token: joinSecret, Name: "edge-1"})
	ag.WaitReady(30 * time.Second)
	waitFor(t, "edge-1 at revision 3", 20*time.Second, func() bool {
		code, body := proxyGet(ag.Proxy, "shop.test", "/")
		return code == 200 && body == "one /" && fleetInstances(cp)["edge-1"]["applied"] == 3.0
	})

	p.Stop()
	o := p.Options()
	o.DataDir = t.TempDir()
	cp = &instance{Process: rptest.Start(t, o), t: t}
	cp.must("POST", "/api/v1/backends", backend("pad", two.endpoint(1)))
	cp.must("POST", "/api/v1/backends", backend("web", two.endpoint(1)))
	cp.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	cp.must("DELETE", "/api/v1/backends/pad", nil)
	waitFor(t, "edge-1 to serve the new history's head", 30*time.Second, func() bool {
		code, body := proxyGet(ag.Proxy, "shop.test", "/")
		return code == 200 && body == "two /"
	})
	if !strings.Contains(ag.Logs.String(), "history was replaced") {
		t.Fatalf("the agent does not say that the history was replaced; logs:\n%s", ag.Logs)
	}
}
