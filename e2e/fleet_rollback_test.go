package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestFleetUnhealthyRevisionIsRolledBack: a control plane without OpenResty of its own
// and two agents. A revision points a backend at an upstream that answers 500; traffic
// from three client addresses goes through the agents, two of them through edge-1 and one
// through edge-2, so that neither agent alone has enough distinct failing clients. The
// control plane decides from both agents' counters: it rolls the revision back as actor
// applier with a reason naming both instances, and the rollback reaches both agents.
func TestFleetUnhealthyRevisionIsRolledBack(t *testing.T) {
	cp, secret := startControlPlane(t, "")
	good, broken := newUpstream(t, "good", 200, 0), newUpstream(t, "broken", 500, 0)
	set := map[string]any{}
	cp.call("GET", "/api/v1/settings", nil, &set)
	set["rollbackWindow"], set["rollbackMinRequests"], set["rollbackErrorRatio"], set["rollbackMinClients"] = "2m", 10, 0.5, 3
	delete(set, "version")
	cp.must("PUT", "/api/v1/settings", set)
	cp.must("POST", "/api/v1/backends", backend("web", good.endpoint(1)))
	cp.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))

	var agents []*rptest.Agent
	for i := 1; i <= 2; i++ {
		agents = append(agents, rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: cp.API, Token: secret, Name: fmt.Sprintf("edge-%d", i)}))
	}
	for _, ag := range agents {
		ag.WaitReady(30 * time.Second)
		waitFor(t, "the good upstream through "+ag.Proxy, 20*time.Second, func() bool {
			code, body := proxyGet(ag.Proxy, "shop.test", "/")
			return code == 200 && body == "good /"
		})
	}

	bad := cp.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{broken.endpoint(1)}})
	badRev := bad["revision"].(map[string]any)["id"].(float64)
	// Which client goes through which agent: edge-1 sees two addresses, edge-2 one.
	route := []struct {
		client *http.Client
		agent  *rptest.Agent
	}{{clients[0], agents[0]}, {clients[1], agents[0]}, {clients[2], agents[1]}}
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; ; i++ {
		r := route[i%len(route)]
		getThrough(r.client, r.agent.Proxy, "shop.test", "/")
		if i%len(route) == 0 {
			var st struct{ Head float64 }
			cp.call("GET", "/api/v1/status", nil, &st)
			if st.Head > badRev {
				break
			}
		}
		if time.Now().After(deadline) || i > 30000 {
			t.Fatalf("no automatic rollback of revision %v; control plane logs:\n%s", badRev, cp.Logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	var revs struct{ Items []map[string]any }
	cp.call("GET", "/api/v1/revisions?limit=1", nil, &revs)
	r := revs.Items[0]
	msg := fmt.Sprint(r["message"])
	if r["actor"] != "applier" || !strings.Contains(msg, fmt.Sprintf("automatic rollback of revision %v", badRev)) ||
		!strings.Contains(msg, "on instances edge-1, edge-2") {
		t.Fatalf("newest revision = %v, want an automatic rollback by the applier naming both instances", r)
	}
	t.Logf("history says: %s", msg)
	for _, ag := range agents {
		waitFor(t, "the rollback through "+ag.Proxy, 20*time.Second, func() bool {
			code, body := proxyGet(ag.Proxy, "shop.test", "/")
			return code == 200 && body == "good /"
		})
	}
}

// getThrough sends GET path with host through the proxy at base from client's address.
func getThrough(c *http.Client, base, host, path string) int {
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Host = host
	resp, err := c.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
