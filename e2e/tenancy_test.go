package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// clientAt returns an HTTP client whose connections come from the loopback address local
// (127.0.0.2, 127.0.0.3, ...), so that nginx sees several distinct clients.
func clientAt(local string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}

// getAs sends a request through the proxy from client c.
func (in *instance) getAs(c *http.Client, host, path string) (int, string) {
	in.t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", in.Proxy+path, nil)
	req.Host = host
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// clients are three distinct client addresses on loopback.
var clients = []*http.Client{clientAt("127.0.0.1"), clientAt("127.0.0.2"), clientAt("127.0.0.3")}

// lastApply returns the newest apply record.
func (in *instance) lastApply() map[string]any {
	in.t.Helper()
	var applies struct{ Items []map[string]any }
	in.call("GET", "/api/v1/applies", nil, &applies)
	if len(applies.Items) == 0 {
		in.t.Fatal("no apply record")
	}
	return applies.Items[0]
}

// eventuallyFrom waits until a request through the proxy answers 200 from want.
func (in *instance) eventuallyFrom(host, path, want string) {
	in.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, body := in.get(host, path)
		if code == 200 && strings.HasPrefix(body, want+" ") {
			return
		}
		if time.Now().After(deadline) {
			in.t.Fatalf("GET %s%s = %d %q, want 200 from %s; status %v; last apply %v", host, path, code, body, want, in.status(), in.lastApply())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestUnresolvableBackendLeavesTheOthersApplying(t *testing.T) {
	in := start(t)
	a, b := newUpstream(t, "a", 200, 0), newUpstream(t, "b", 200, 0)
	in.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	in.waitSynced()
	// .invalid never resolves (RFC 6761).
	in.must("POST", "/api/v1/backends", backend("ghost",
		map[string]any{"address": "nowhere.restyplane.invalid", "port": 80, "weight": 1}))
	in.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{b.endpoint(1)}})
	in.eventuallyFrom("shop.test", "/", "b")
	st := in.waitSynced()
	rec := in.lastApply()
	if !strings.Contains(fmt.Sprint(rec["skipped"]), "ghost") {
		t.Fatalf("last apply = %v, want ghost reported as skipped", rec)
	}
	t.Logf("status %v; apply record %v", st, rec)

	// After nginx restarts, the full push still brings every backend but the ghost.
	master, _ := in.nginxPids()
	if err := killPid(master); err != nil {
		t.Fatal(err)
	}
	in.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{a.endpoint(1)}})
	in.eventuallyFrom("shop.test", "/", "a")
}

func TestBackendResolvingToLoopbackIsRefused(t *testing.T) {
	in := start(t)
	a := newUpstream(t, "a", 200, 0)
	in.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	in.must("POST", "/api/v1/backends", backend("loop",
		map[string]any{"address": "localhost", "port": a.port, "weight": 1}))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	in.must("POST", "/api/v1/servers", server("loop", "loop.test", location("/", "loop")))
	in.waitSynced()
	in.wantFrom("shop.test", "/", "a")
	if code, body := in.get("loop.test", "/"); code == 200 {
		t.Fatalf("a backend named localhost reached the upstream on 127.0.0.1: %d %q", code, body)
	}
	rec := in.lastApply()
	if s := fmt.Sprint(rec["skipped"]); !strings.Contains(s, "loop") || !strings.Contains(s, "loopback") {
		t.Fatalf("last apply = %v, want loop reported as skipped for resolving to loopback", rec)
	}
}

// hammer sends n requests to host+path from each client.
func (in *instance) hammer(n int, host, path string) {
	in.t.Helper()
	for i := 0; i < n; i++ {
		for _, c := range clients {
			in.getAs(c, host, path)
		}
	}
}

// watchEnds waits until the applier watches no revision any more, sending a request to
// host+path from each client between looks when host is not empty, so that the watch sees
// traffic from its first look to its end.
func (in *instance) watchEnds(host, path string) map[string]any {
	in.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < 5000; i++ {
		if host != "" {
			in.hammer(1, host, path)
		}
		st := in.status()
		if w, _ := st["watching"].(float64); w == 0 && st["inSync"] == true {
			return st
		}
		if time.Now().After(deadline) {
			in.t.Fatalf("the watch did not end: %v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	in.t.Fatal("the watch did not end within 5000 looks")
	return nil
}

// rollbackSettings sets a short watch window that rolls back at 50% 5xx over 10 requests.
func (in *instance) rollbackSettings(window string) {
	in.t.Helper()
	set := map[string]any{}
	in.call("GET", "/api/v1/settings", nil, &set)
	set["rollbackWindow"], set["rollbackMinRequests"], set["rollbackErrorRatio"] = window, 10, 0.5
	delete(set, "version")
	in.must("PUT", "/api/v1/settings", set)
}

func TestClientProvoked5xxOnAnUnchangedBackendRollNothingBack(t *testing.T) {
	in := start(t)
	in.rollbackSettings("3s")
	a, b, slow := newUpstream(t, "a", 200, 0), newUpstream(t, "b", 200, 0), newUpstream(t, "slow", 500, 0)
	in.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	in.must("POST", "/api/v1/backends", backend("report", slow.endpoint(1)))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web"), location("/report", "report")))
	in.waitSynced()
	in.watchEnds("", "")
	res := in.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{b.endpoint(1)}})
	rev := res["revision"].(map[string]any)["id"].(float64)
	in.waitSynced()
	// Clients hit a path whose unchanged backend fails, all through the watch: the changed
	// backend is healthy.
	st := in.watchEnds("shop.test", "/report")
	if st["head"].(float64) != rev {
		var revs struct{ Items []map[string]any }
		in.call("GET", "/api/v1/revisions?limit=1", nil, &revs)
		t.Fatalf("head moved from %v to %v: %v", rev, st["head"], revs.Items)
	}
	in.wantFrom("shop.test", "/", "b")
}

func TestRevisionMarkedNotToRollBackIsKept(t *testing.T) {
	in := start(t)
	in.rollbackSettings("3s")
	good, broken := newUpstream(t, "good", 200, 0), newUpstream(t, "broken", 500, 0)
	in.must("POST", "/api/v1/backends", backend("web", good.endpoint(1)))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	in.waitSynced()
	in.watchEnds("", "")
	res := in.must("PUT", "/api/v1/backends/web/endpoints?autoRollback=false", map[string]any{"endpoints": []any{broken.endpoint(1)}})
	rev := res["revision"].(map[string]any)
	if rev["autoRollback"] != false {
		t.Fatalf("revision = %v, want autoRollback false", rev)
	}
	in.waitSynced()
	st := in.watchEnds("shop.test", "/")
	if st["head"].(float64) != rev["id"].(float64) {
		t.Fatalf("head moved from %v to %v: a revision marked not to be rolled back was", rev["id"], st["head"])
	}
	got := map[string]any{}
	in.must("GET", fmt.Sprintf("/api/v1/revisions/%v", rev["id"]), nil)
	in.call("GET", fmt.Sprintf("/api/v1/revisions/%v", rev["id"]), nil, &got)
	if got["autoRollback"] != false {
		t.Fatalf("GET revision = %v, want autoRollback false", got)
	}
}
