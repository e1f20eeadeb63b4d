package e2e

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// accessLocations are the locations the access tests give shop.test: /acl allows
// 127.0.0.1 (among a thousand other CIDRs) and denies 127.0.0.3, /limited allows three
// requests at once per client (rpm 1, burst 2) but for the exempt 127.0.0.4, /conn one
// connection per client, /open has no policy.
func accessLocations(g *gate, allow []string) []map[string]any {
	acl := location("/acl", "web")
	acl["access"] = map[string]any{"allow": allow, "deny": []string{"127.0.0.3"}}
	limited := location("/limited", "web")
	limited["limits"] = map[string]any{"rpm": 1, "burstMultiplier": 2, "exempt": []string{"127.0.0.4"}}
	conn := location("/conn", "gate")
	conn["limits"] = map[string]any{"connections": 1}
	return []map[string]any{acl, limited, conn, location("/open", "web")}
}

// checkRateLimit shows that a client past /limited's burst gets status while the exempt
// client never does: rpm 1 drains one request a minute, so of ten requests in a row
// the first three pass and the rest do not, however slow the machine.
func checkRateLimit(t *testing.T, proxy, host string, status int) {
	t.Helper()
	var got []int
	for i := 0; i < 10; i++ {
		code, _ := from(proxy, "127.0.0.1", host, "/limited/x")
		got = append(got, code)
	}
	if !slices.Equal(got[:3], []int{200, 200, 200}) || slices.Contains(got[4:], 200) || got[9] != status {
		t.Fatalf("ten requests past a burst of 2 at 1 rpm: %v, want three 200 then %d", got, status)
	}
	for i := 0; i < 10; i++ {
		wantStatus(t, proxy, "127.0.0.4", host, "/limited/x", 200, "web")
	}
}

// checkConnectionLimit shows that a client holding its one connection to /conn gets
// status for a second one, another client does not, and the first gets in again once
// its request is over.
func checkConnectionLimit(t *testing.T, proxy, host string, g *gate, status int) {
	t.Helper()
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i, local := range []string{"127.0.0.1", "127.0.0.2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = from(proxy, local, host, "/conn/held")
		}()
		g.waitEntered(t, int64(i+1))
	}
	wantStatus(t, proxy, "127.0.0.1", host, "/conn/second", status, "gate")
	g.open()
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Fatalf("held requests answered %v, want 200 for both", codes)
	}
	// The count is released in the log phase, which nginx runs after the answer's last
	// byte is sent: a client that asks again at once can meet another worker before it,
	// so the client asks until it gets in (each refused try is not counted).
	deadline := time.Now().Add(2 * time.Second)
	code, body := from(proxy, "127.0.0.1", host, "/conn/again")
	for code == status && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		code, body = from(proxy, "127.0.0.1", host, "/conn/again")
	}
	if code != 200 || !strings.HasPrefix(body, "gate ") {
		t.Fatalf("GET %s/conn/again after the held requests ended = %d %q, want 200 from gate", host, code, body)
	}
}

func TestAccessListsAndLimitsThroughREST(t *testing.T) {
	in := start(t)
	g := newGate(t)
	in.must("POST", "/api/v1/backends", backend("web", echoUpstream(t, "web")))
	in.must("POST", "/api/v1/backends", backend("gate", g.ep))
	set := map[string]any{}
	in.call("GET", "/api/v1/settings", nil, &set)
	set["realIPFrom"], set["realIPHeader"] = []string{"127.0.0.5"}, "X-Forwarded-For"
	delete(set, "version")
	in.must("PUT", "/api/v1/settings", set)
	allow := append(manyCIDRs(1000), "127.0.0.1")
	srv := server("shop", "shop.test", accessLocations(g, allow)...)
	in.must("POST", "/api/v1/servers", srv)
	in.waitSynced()
	p := in.Proxy

	// Allowed, not allowed, denied; /open has no policy.
	wantStatus(t, p, "127.0.0.1", "shop.test", "/acl/x", 200, "web")
	wantStatus(t, p, "127.0.0.2", "shop.test", "/acl/x", 403, "web")
	wantStatus(t, p, "127.0.0.3", "shop.test", "/acl/x", 403, "web")
	wantStatus(t, p, "127.0.0.2", "shop.test", "/open/x", 200, "web")
	// The header counts from the trusted proxy only, and then its address is the client's.
	wantStatus(t, p, "127.0.0.5", "shop.test", "/acl/x", 200, "web", "X-Forwarded-For", "127.0.0.1")
	wantStatus(t, p, "127.0.0.5", "shop.test", "/acl/x", 403, "web", "X-Forwarded-For", "127.0.0.2")
	wantStatus(t, p, "127.0.0.5", "shop.test", "/acl/x", 403, "web")
	wantStatus(t, p, "127.0.0.2", "shop.test", "/acl/x", 403, "web", "X-Forwarded-For", "127.0.0.1")
	wantStatus(t, p, "127.0.0.1", "shop.test", "/acl/x", 200, "web", "X-Forwarded-For", "127.0.0.2")

	checkRateLimit(t, p, "shop.test", 429)
	checkConnectionLimit(t, p, "shop.test", g, 429)

	// A list change is a push: no reload, the same workers, and it holds at once.
	master, workers := in.nginxPids()
	srv = server("shop", "shop.test", accessLocations(g, append(allow, "127.0.0.2"))...)
	in.must("PUT", "/api/v1/servers/shop", srv)
	if mode := lastApplyMode(in.waitSynced()); mode != "dynamic" {
		t.Fatalf("an allow list change applied as %v, want dynamic", mode)
	}
	if m, w := in.nginxPids(); m != master || !slices.Equal(w, workers) {
		t.Fatalf("nginx master %d workers %v after a list change, want %d %v (no reload)", m, w, master, workers)
	}
	wantStatus(t, p, "127.0.0.2", "shop.test", "/acl/x", 200, "web")
	wantStatus(t, p, "127.0.0.3", "shop.test", "/acl/x", 403, "web")

	// A bandwidth limit is nginx's limit_rate: nginx -t takes it, and it reloads.
	locs := accessLocations(g, append(allow, "127.0.0.2"))
	locs[3]["limits"] = map[string]any{"rate": "100k", "rateAfter": "1m"}
	in.must("PUT", "/api/v1/servers/shop", server("shop", "shop.test", locs...))
	st := in.waitSynced()
	if last := st["lastApply"].(map[string]any); last["mode"] != "reload" || last["outcome"] != "success" {
		t.Fatalf("a bandwidth limit applied as %v, want a successful reload", last)
	}
	wantStatus(t, p, "127.0.0.2", "shop.test", "/open/x", 200, "web")
	srv = server("shop", "shop.test", locs...)

	// Bad input is refused naming the field, and nothing changes.
	bad := server("shop", "shop.test", accessLocations(g, []string{"127.0.0.1/8"})...)
	var out struct{ Error map[string]any }
	if code := in.call("PUT", "/api/v1/servers/shop", bad, &out); code != 400 || fmt.Sprint(out.Error["field"]) != "locations[0].access.allow[0]" {
		t.Fatalf("a CIDR with host bits: %d %v, want 400 naming locations[0].access.allow[0]", code, out)
	}
	wantStatus(t, p, "127.0.0.2", "shop.test", "/acl/x", 200, "web")
}

// TestAccessListIPv6ThroughREST runs the proxy on ::1 and allows, then denies, it.
func TestAccessListIPv6ThroughREST(t *testing.T) {
	l, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatalf("listen on ::1: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	in := &instance{Process: rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e test", Proxy: addr}), t: t}
	in.must("POST", "/api/v1/backends", backend("web", echoUpstream(t, "web")))
	v6 := func(allow, deny []string) map[string]any {
		acl := location("/", "web")
		acl["access"] = map[string]any{"allow": allow, "deny": deny}
		return server("shop", "shop.test", acl)
	}
	in.must("POST", "/api/v1/servers", v6([]string{"2001:db8::/32", "::1"}, nil))
	in.waitSynced()
	wantStatus(t, in.Proxy, "::1", "shop.test", "/x", 200, "web")
	in.must("PUT", "/api/v1/servers/shop", v6([]string{"2001:db8::/32", "127.0.0.1"}, nil))
	in.waitSynced()
	wantStatus(t, in.Proxy, "::1", "shop.test", "/x", 403, "web")
	in.must("PUT", "/api/v1/servers/shop", v6([]string{"::/0"}, []string{"::1/128"}))
	in.waitSynced()
	wantStatus(t, in.Proxy, "::1", "shop.test", "/x", 403, "web")
	in.must("PUT", "/api/v1/servers/shop", v6([]string{"::/0"}, []string{"::2/127"}))
	in.waitSynced()
	wantStatus(t, in.Proxy, "::1", "shop.test", "/x", 200, "web")
	in.must("PUT", "/api/v1/servers/shop", v6([]string{"::/1"}, []string{"::/126"}))
	in.waitSynced()
	wantStatus(t, in.Proxy, "::1", "shop.test", "/x", 403, "web")
}

// TestConnectionLimitAddedToAPolicy: the conf says which locations limit concurrent
// requests (only those run a log phase, which lets each request out when it ends), so a
// connection limit added to a location whose policy had none reloads, and then holds and
// lets requests out as any other.
func TestConnectionLimitAddedToAPolicy(t *testing.T) {
	in := start(t)
	g := newGate(t)
	in.must("POST", "/api/v1/backends", backend("gate", g.ep))
	conn := location("/conn", "gate")
	conn["limits"] = map[string]any{"rps": 1000}
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", conn))
	in.waitSynced()
	conn["limits"] = map[string]any{"rps": 1000, "connections": 1}
	in.must("PUT", "/api/v1/servers/shop", server("shop", "shop.test", conn))
	if mode := lastApplyMode(in.waitSynced()); mode != "reload" {
		t.Fatalf("a connection limit where there was none applied as %v, want reload", mode)
	}
	checkConnectionLimit(t, in.Proxy, "shop.test", g, 429)
}

// TestConnectionLimitLetsOutAnInterceptedAnswer: a request that a location's error page
// takes over (an intercepted code, sent to the error backend's named location) ends in
// that location, and is let out of its connection limit there like any other: errors
// must not use up a client's limit for good.
func TestConnectionLimitLetsOutAnInterceptedAnswer(t *testing.T) {
	in := start(t)
	web, _ := proxyPolicyUpstream(t, "web")
	pages, _ := proxyPolicyUpstream(t, "pages")
	in.must("POST", "/api/v1/backends", backend("web", web))
	in.must("POST", "/api/v1/backends", backend("pages", pages))
	loc := location("/err", "web")
	loc["limits"] = map[string]any{"connections": 1}
	loc["errors"] = map[string]any{"codes": []int{404}, "backend": "pages"}
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", loc))
	in.waitSynced()
	for i := 1; i <= 3; i++ {
		if code, body := in.get("shop.test", "/err/missing"); code != 404 || !strings.HasPrefix(body, "pages ") {
			t.Fatalf("intercepted 404, request %d of 3 in a row: %d %q, want 404 from the error backend", i, code, body)
		}
	}
	if code, body := in.get("shop.test", "/err/found"); code != 200 || !strings.HasPrefix(body, "web /err/found") {
		t.Fatalf("after three intercepted answers: %d %q, want 200 from web (a limit of 1 with nothing in flight)", code, body)
	}
}

// TestConnectionLimitLetsOutASigninRedirect: a request refused by external auth, whose
// 401 becomes a redirect to the sign-in URL, is let out of the location's connection
// limit (or never counted in it): a client's failed sign-ins must not use up its limit.
func TestConnectionLimitLetsOutASigninRedirect(t *testing.T) {
	in := start(t)
	a := newAuthService(t)
	in.must("POST", "/api/v1/backends", backend("web", echoUpstream(t, "web")))
	login := location("/login", "web")
	login["auth"] = map[string]any{"external": map[string]any{"url": a.url, "signin": "https://login.test/start"}}
	login["limits"] = map[string]any{"connections": 1}
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", login))
	in.waitSynced()
	for i := 1; i <= 3; i++ {
		if resp, body := in.do("shop.test", "/login/p"); resp.StatusCode != 302 {
			t.Fatalf("request %d of 3 without a token: %d %q, want 302 to the sign-in URL", i, resp.StatusCode, body)
		}
	}
	if resp, body := in.do("shop.test", "/login/p", "Authorization", "Bearer good"); resp.StatusCode != 200 {
		t.Fatalf("after three sign-in redirects: %d %q, want 200 (a limit of 1 with nothing in flight)", resp.StatusCode, body)
	}
}
