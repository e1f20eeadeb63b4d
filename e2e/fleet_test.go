package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestFleetChangeReachesEveryAgent: a control plane and three agents, each with its own
// nginx. A change through the API reaches every instance (real HTTP through each proxy to
// a real upstream), and GET /api/v1/instances shows each at the head and connected. A new
// agent that cannot reach the control plane serves nothing and is not ready; once it can,
// it serves the head and becomes ready.
func TestFleetChangeReachesEveryAgent(t *testing.T) {
	cp, secret := startControlPlane(t, "")
	a, b := newUpstream(t, "a", 200, 0), newUpstream(t, "b", 200, 0)
	cp.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	cp.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))

	var agents []*rptest.Agent
	for i := 1; i <= 2; i++ {
		agents = append(agents, rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: cp.API, Token: secret, Name: fmt.Sprintf("edge-%d", i)}))
	}
	// The third agent's path to the control plane is cut from the start.
	rl := newRelay(t, strings.TrimPrefix(cp.API, "http://"))
	rl.sever()
	late := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: rl.URL(), Token: secret, Name: "edge-3"})
	waitFor(t, "edge-3 to try the feed", 20*time.Second, func() bool { return strings.Contains(late.Logs.String(), "feed interrupted") })
	if late.Ready() {
		t.Fatal("edge-3 is ready without ever having a state")
	}
	if code, body := proxyGet(late.Proxy, "shop.test", "/"); code != 0 {
		t.Fatalf("edge-3 serves %d %q without a state; want nothing listening", code, body)
	}
	for _, ag := range agents {
		ag.WaitReady(30 * time.Second)
		if code, body := proxyGet(ag.Proxy, "shop.test", "/x"); code != 200 || body != "a /x" {
			t.Fatalf("agent %s = %d %q, want 200 \"a /x\"", ag.Proxy, code, body)
		}
	}
	rl.restore("")
	late.WaitReady(30 * time.Second)
	agents = append(agents, late)

	// A dynamic change, then one that reloads: both reach all three.
	cp.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{b.endpoint(1)}})
	cp.must("POST", "/api/v1/servers", server("blog", "blog.test", location("/", "web")))
	for _, ag := range agents {
		waitFor(t, "the change through "+ag.Proxy, 20*time.Second, func() bool {
			c1, b1 := proxyGet(ag.Proxy, "shop.test", "/y")
			c2, b2 := proxyGet(ag.Proxy, "blog.test", "/z")
			return c1 == 200 && b1 == "b /y" && c2 == 200 && b2 == "b /z"
		})
	}
	waitFor(t, "every instance at the head in GET /instances", 20*time.Second, func() bool {
		ins := fleetInstances(cp)
		for _, n := range []string{"edge-1", "edge-2", "edge-3"} {
			in := ins[n]
			if in == nil || in["applied"] != in["head"] || in["lag"] != 0.0 || in["connected"] != true || in["state"] != "running" {
				return false
			}
		}
		return true
	})
	var st struct {
		Fleet struct{ Instances, AtHead, Connected int } `json:"fleet"`
	}
	cp.call("GET", "/api/v1/status", nil, &st)
	if st.Fleet.Instances != 3 || st.Fleet.AtHead != 3 {
		t.Fatalf("status fleet = %+v, want 3 instances, 3 at the head", st.Fleet)
	}
	// The agents' applies are in the history's apply records under their names.
	var applies struct {
		Items []struct{ Instance string } `json:"items"`
	}
	cp.call("GET", "/api/v1/applies?limit=1000", nil, &applies)
	seen := map[string]bool{}
	for _, a := range applies.Items {
		seen[a.Instance] = true
	}
	if !seen["edge-1"] || !seen["edge-2"] || !seen["edge-3"] {
		t.Fatalf("applies name instances %v, want edge-1..3", seen)
	}
}

// TestFleetAgentOfAnEmptyHistoryIsReady: a fresh control plane holds revision 0, the empty
// config; an agent that applied it serves (404 to every host) and is ready, or no data plane
// of a new fleet would ever pass its readiness probe. Found by running deploy/compose.yaml.
func TestFleetAgentOfAnEmptyHistoryIsReady(t *testing.T) {
	cp, secret := startControlPlane(t, "")
	ag := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: cp.API, Token: secret, Name: "edge-empty"})
	ag.WaitReady(30 * time.Second)
	if code, body := proxyGet(ag.Proxy, "shop.test", "/"); code != 404 {
		t.Fatalf("an agent of the empty history answers %d %q, want 404", code, body)
	}
}
