package e2e

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestFleetRejectionIsOneInstances: edge-2's HTTPS port is taken by another process, so
// the revision that adds a TLS server fails there (nginx cannot bind) and applies on
// edge-1. The control plane lists edge-2's rejection with nginx's error, edge-1 is not
// held back, and edge-2 goes on to the next revision, which drops the TLS server.
func TestFleetRejectionIsOneInstances(t *testing.T) {
	cp, secret := startControlPlane(t, "")
	a, b := newUpstream(t, "a", 200, 0), newUpstream(t, "b", 200, 0)
	cp.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	cp.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	e1 := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: cp.API, Token: secret, Name: "edge-1"})
	e2 := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: cp.API, Token: secret, Name: "edge-2",
		Args: []string{"--tls-listen", taken.Addr().String()}})
	e1.WaitReady(30 * time.Second)
	e2.WaitReady(30 * time.Second)

	cert, key := selfSigned(t, "secure.test", 1)
	cp.must("POST", "/api/v1/certificates", map[string]any{"name": "secure", "cert": cert, "key": key})
	srv := server("secure", "secure.test", location("/", "web"))
	srv["tls"] = map[string]any{"certificate": "secure"}
	cp.must("POST", "/api/v1/servers", srv)
	waitFor(t, "edge-2's rejection and edge-1 at the head", 60*time.Second, func() bool {
		ins := fleetInstances(cp)
		e1, e2 := ins["edge-1"], ins["edge-2"]
		if e1 == nil || e2 == nil || e1["lag"] != 0.0 {
			return false
		}
		last, _ := e2["lastApply"].(map[string]any)
		return e2["lag"] != 0.0 && last != nil && last["outcome"] == "rejected" && last["revision"] == e2["head"]
	})
	last := fleetInstances(cp)["edge-2"]["lastApply"].(map[string]any)
	if msg, _ := last["error"].(string); !strings.Contains(msg, "bind") && !strings.Contains(msg, "in use") {
		t.Logf("edge-2's rejection says %q (want nginx's bind error)", msg)
	}
	if code, body := proxyGet(e2.Proxy, "shop.test", "/r"); code != 200 || body != "a /r" {
		t.Fatalf("edge-2 after its rejection = %d %q, want its last revision", code, body)
	}

	// The next revision drops the TLS server and moves the pool: edge-2 applies it.
	cp.must("DELETE", "/api/v1/servers/secure", nil)
	cp.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{b.endpoint(1)}})
	for _, ag := range []*rptest.Agent{e1, e2} {
		waitFor(t, "the next revision through "+ag.Proxy, 30*time.Second, func() bool {
			code, body := proxyGet(ag.Proxy, "shop.test", "/r")
			return code == 200 && body == "b /r"
		})
	}
	waitFor(t, "both at the head", 20*time.Second, func() bool {
		ins := fleetInstances(cp)
		return ins["edge-1"]["lag"] == 0.0 && ins["edge-2"]["lag"] == 0.0
	})
}
