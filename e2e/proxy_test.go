package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func backend(name string, endpoints ...map[string]any) map[string]any {
	return map[string]any{"name": name, "endpoints": endpoints}
}

func location(path, backend string) map[string]any {
	return map[string]any{"path": path, "backend": backend}
}

func server(name, host string, locations ...map[string]any) map[string]any {
	return map[string]any{"name": name, "hostnames": []string{host}, "locations": locations}
}

// wantFrom fails unless a request through the proxy answers 200 from the named upstream.
func (in *instance) wantFrom(host, path, want string) {
	in.t.Helper()
	code, body := in.get(host, path)
	if code != 200 || !strings.HasPrefix(body, want+" ") {
		in.t.Fatalf("GET %s%s = %d %q, want 200 from %s", host, path, code, body, want)
	}
}

func TestProxyRoutesDynamicUpdatesAndReloads(t *testing.T) {
	in := start(t)
	a, b := newUpstream(t, "a", 200, 0), newUpstream(t, "b", 200, 0)
	in.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	in.must("POST", "/api/v1/backends", backend("other", b.endpoint(1)))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	in.waitSynced()
	in.wantFrom("shop.test", "/hello", "a")
	if code, _ := in.get("unknown.test", "/"); code != 404 {
		t.Fatalf("unknown host answered %d, want 404", code)
	}

	// Changing endpoints moves the next request, with no reload.
	master, workers := in.nginxPids()
	in.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{b.endpoint(1)}})
	st := in.waitSynced()
	in.wantFrom("shop.test", "/hello", "b")
	if m, w := in.nginxPids(); m != master || fmt.Sprint(w) != fmt.Sprint(workers) {
		t.Fatalf("pids after an endpoint change: master %d workers %v, want %d %v (no reload)", m, w, master, workers)
	}
	if mode := st["lastApply"].(map[string]any)["mode"]; mode != "dynamic" {
		t.Fatalf("endpoint change applied as %v, want dynamic", mode)
	}

	// Adding a location reloads; the Ingress prefix rule holds.
	in.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{a.endpoint(1)}})
	in.must("PUT", "/api/v1/servers/shop", server("shop", "shop.test", location("/", "web"), location("/foo", "other")))
	st = in.waitSynced()
	if mode := st["lastApply"].(map[string]any)["mode"]; mode != "reload" {
		t.Fatalf("location change applied as %v, want reload", mode)
	}
	for _, p := range []string{"/foo", "/foo/", "/foo/bar"} {
		in.wantFrom("shop.test", p, "b")
	}
	in.wantFrom("shop.test", "/foobar", "a")
	if m, w := in.nginxPids(); m != master || fmt.Sprint(w) == fmt.Sprint(workers) {
		t.Fatalf("pids after a reload: master %d workers %v; want master %d with new workers", m, w, master)
	}
}

// TestRefusedServerIsLeftOutAndReported: a server whose certificate's key belongs to
// another certificate makes nginx -t fail. The revision still applies without that
// server, whose refusal, in nginx's own words, the apply record reports; the other
// servers keep serving and take later changes.
func TestRefusedServerIsLeftOutAndReported(t *testing.T) {
	in := start(t)
	a, b := newUpstream(t, "a", 200, 0), newUpstream(t, "b", 200, 0)
	in.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	in.waitSynced()

	cert, _ := selfSigned(t, "secure.test", 1)
	_, otherKey := selfSigned(t, "secure.test", 2)
	in.must("POST", "/api/v1/certificates", map[string]any{"name": "secure", "cert": cert, "key": otherKey})
	srv := server("secure", "secure.test", location("/", "web"))
	srv["tls"] = map[string]any{"certificate": "secure"}
	res := in.must("POST", "/api/v1/servers", srv)
	bad := res["revision"].(map[string]any)["id"]
	if st := in.waitSynced(); st["applied"] != bad {
		t.Fatalf("revision %v with the refused server is not applied: %v", bad, st)
	}
	var applies struct{ Items []map[string]any }
	in.call("GET", "/api/v1/applies", nil, &applies)
	rec := applies.Items[0]
	if skipped := fmt.Sprint(rec["skipped"]); rec["outcome"] != "success" ||
		!strings.Contains(skipped, "name:secure") || !strings.Contains(skipped, "key values mismatch") {
		t.Fatalf("apply record = %v, want success with server secure skipped in nginx's words", rec)
	}
	t.Logf("skipped: %v", rec["skipped"])
	in.wantFrom("shop.test", "/", "a")
	if code, _ := in.get("secure.test", "/"); code != 404 {
		t.Fatalf("secure.test = %d, want the default server's 404", code)
	}
	in.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{b.endpoint(1)}})
	in.waitSynced()
	in.wantFrom("shop.test", "/", "b")
}

func TestKilledNginxComesBackWithDynamicState(t *testing.T) {
	in := start(t)
	a, b := newUpstream(t, "a", 200, 0), newUpstream(t, "b", 200, 0)
	in.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	in.waitSynced()
	in.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{b.endpoint(1)}})
	in.waitSynced()
	in.wantFrom("shop.test", "/", "b")

	master, _ := in.nginxPids()
	if err := killPid(master); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		m, _ := in.nginxPids()
		code, body := in.get("shop.test", "/")
		if m != 0 && m != master && code == 200 && strings.HasPrefix(body, "b ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after kill -9 of master %d: master %d, proxy %d %q", master, m, code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestUnhealthyRevisionIsRolledBack(t *testing.T) {
	in := start(t)
	good, broken := newUpstream(t, "good", 200, 0), newUpstream(t, "broken", 500, 0)
	in.rollBackQuickly()
	in.must("POST", "/api/v1/backends", backend("web", good.endpoint(1)))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	in.waitSynced()
	time.Sleep(time.Second) // let the first apply's watch pass without traffic... it has none
	bad := in.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{broken.endpoint(1)}})
	badRev := bad["revision"].(map[string]any)["id"].(float64)
	in.waitSynced()

	// Failures from one client are not enough to roll back (rollbackMinClients, default 3):
	// the traffic comes from three loopback addresses.
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; ; i++ {
		in.getAs(clients[i%len(clients)], "shop.test", "/")
		st := in.status()
		if st["head"].(float64) > badRev && st["inSync"] == true {
			break
		}
		if time.Now().After(deadline) || i > 2000 {
			t.Fatalf("no automatic rollback: %v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var revs struct{ Items []map[string]any }
	in.call("GET", "/api/v1/revisions?limit=1", nil, &revs)
	r := revs.Items[0]
	if r["actor"] != "applier" || !strings.Contains(fmt.Sprint(r["message"]), "automatic rollback") {
		t.Fatalf("newest revision = %v, want an automatic rollback by the applier with its reason", r)
	}
	t.Logf("history says: %v", r["message"])
	in.wantFrom("shop.test", "/", "good")
}
