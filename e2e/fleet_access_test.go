package e2e

import (
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestFleetCarriesAccessLists: a location's allow list reaches an agent's data plane
// through the feed as part of the config, and a change of it applies there too.
func TestFleetCarriesAccessLists(t *testing.T) {
	const secret = "rp_e2e_dataplane_access_0123456789"
	t.Setenv("RESTYPLANE_DATAPLANE_TOKEN", secret)
	p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e fleet access", Args: []string{"--openresty", "off"}})
	cp := &instance{Process: p, t: t}
	cp.must("POST", "/api/v1/backends", backend("web", echoUpstream(t, "web")))
	acl := func(allow string) map[string]any {
		l := location("/", "web")
		l["access"] = map[string]any{"allow": []string{allow}}
		return server("shop", "shop.test", l)
	}
	cp.must("POST", "/api/v1/servers", acl("127.0.0.1"))
	ag := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: p.API, Token: secret, Name: "edge-access"})
	ag.WaitReady(30 * time.Second)
	wantStatus(t, ag.Proxy, "127.0.0.1", "shop.test", "/x", 200, "web")
	wantStatus(t, ag.Proxy, "127.0.0.2", "shop.test", "/x", 403, "web")

	cp.must("PUT", "/api/v1/servers/shop", acl("127.0.0.2"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		c1, _ := from(ag.Proxy, "127.0.0.1", "shop.test", "/x")
		c2, _ := from(ag.Proxy, "127.0.0.2", "shop.test", "/x")
		if c1 == 403 && c2 == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the change, the agent answers 127.0.0.1 %d and 127.0.0.2 %d; want 403 and 200", c1, c2)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
