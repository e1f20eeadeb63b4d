package e2e

import (
	"net/http"
	"testing"
	"time"
)

// TestAffinityModesThroughREST: with persistent affinity every client keeps its peer when
// peers are added; with balanced affinity some clients move to the new peers, each still
// sent to one peer; both changes apply without a reload.
func TestAffinityModesThroughREST(t *testing.T) {
	in := start(t)
	pp, bp := peers(t, "p1", "p2", "p3", "p4"), peers(t, "b1", "b2", "b3", "b4")
	in.must("POST", "/api/v1/backends", stickyBackend("persist", map[string]any{"cookie": "route", "mode": "persistent"}, pp[:2]...))
	in.must("POST", "/api/v1/backends", stickyBackend("balance", map[string]any{"cookie": "key", "mode": "balanced"}, bp[:2]...))
	in.must("POST", "/api/v1/servers", server("sticky", "sticky.test", location("/p", "persist"), location("/b", "balance")))
	in.waitSynced()
	const n = 40
	persistent, balanced := in.newClients(n, "sticky.test", "/p"), in.newClients(n, "sticky.test", "/b")

	in.must("PUT", "/api/v1/backends/persist", stickyBackend("persist", map[string]any{"cookie": "route", "mode": "persistent"}, pp...))
	in.must("PUT", "/api/v1/backends/balance", stickyBackend("balance", map[string]any{"cookie": "key", "mode": "balanced"}, bp...))
	if mode := lastApplyMode(in.waitSynced()); mode != "dynamic" {
		t.Fatalf("adding peers applied as %v, want dynamic", mode)
	}
	for i, c := range persistent {
		if served, set := in.visit("sticky.test", "/p", c.cookie); served != c.peer || set != "" {
			t.Fatalf("persistent client %d (%s) went to %q with Set-Cookie %q after peers were added, want %s and no cookie", i, c.cookie, served, set, c.peer)
		}
	}
	moved := 0
	for i, c := range balanced {
		first, set := in.visit("sticky.test", "/b", c.cookie)
		again, _ := in.visit("sticky.test", "/b", c.cookie)
		if first == "" || first != again || set != "" {
			t.Fatalf("balanced client %d (%s) went to %q then %q with Set-Cookie %q, want one peer and no new cookie", i, c.cookie, first, again, set)
		}
		if first != c.peer {
			moved++
		}
	}
	// Two peers become four: consistent hashing moves about half of the keys; that none
	// of 40 moves has odds of 2^-40.
	if moved == 0 {
		t.Fatalf("no balanced client of %d moved when peers were added, want some rebalanced", n)
	}
	t.Logf("after two peers joined: 0 of %d persistent clients and %d of %d balanced clients moved", n, moved, n)
}

// TestAffinityCookieAttributesThroughREST: every cookie attribute of the affinity is in
// the Set-Cookie the proxy sends, SameSite=None is left out for the browsers that misread
// it when asked, and a change of the attributes is dynamic.
func TestAffinityCookieAttributesThroughREST(t *testing.T) {
	in := start(t)
	all := map[string]any{"cookie": "route", "path": "/shop", "domain": "shop.test", "sameSite": "Lax",
		"expires": 3600, "maxAge": 7200, "secure": true}
	in.must("POST", "/api/v1/backends", stickyBackend("attrs", all, peers(t, "a1", "a2")...))
	cond := map[string]any{"cookie": "cross", "sameSite": "None", "conditionalSameSiteNone": true}
	in.must("POST", "/api/v1/backends", stickyBackend("cond", cond, peers(t, "c1", "c2")...))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/shop", "attrs"), location("/cross", "cond")))
	in.waitSynced()

	resp, _ := in.send("GET", "shop.test", "/shop/cart")
	set := resp.Header.Get("Set-Cookie")
	got := attributes(set)
	for k, want := range map[string]string{"path": "/shop", "domain": "shop.test", "max-age": "7200", "samesite": "Lax", "secure": "", "httponly": ""} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("Set-Cookie %q: %s = %q (present %v), want %q", set, k, v, ok, want)
		}
	}
	expires, err1 := http.ParseTime(got["expires"])
	date, err2 := http.ParseTime(resp.Header.Get("Date"))
	if err1 != nil || err2 != nil || expires.Sub(date) < 3599*time.Second || expires.Sub(date) > 3601*time.Second {
		t.Errorf("Set-Cookie %q: Expires %q is not an hour after Date %q (%v, %v)", set, got["expires"], resp.Header.Get("Date"), err1, err2)
	}

	const (
		ios12    = "Mozilla/5.0 (iPhone; CPU iPhone OS 12_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1.2 Mobile/15E148 Safari/604.1"
		mojave   = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1.2 Safari/605.1.15"
		chrome60 = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/60.0.3112.113 Safari/537.36"
		uc12     = "Mozilla/5.0 (Linux; U; Android 9; en-US) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 UCBrowser/12.10.8.1172 Mobile Safari/537.36"
		chrome   = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
		mojaveCh = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	)
	for ua, want := range map[string]bool{ios12: false, mojave: false, chrome60: false, uc12: false, chrome: true, mojaveCh: true, "": true} {
		_, set := in.visit("shop.test", "/cross", "", "User-Agent", ua)
		if v, ok := attributes(set)["samesite"]; ok != want || (ok && v != "None") {
			t.Errorf("User-Agent %q: Set-Cookie %q, want SameSite=None %v", ua, set, want)
		}
	}

	all["sameSite"], all["path"] = "Strict", "/"
	in.must("PUT", "/api/v1/backends/attrs", stickyBackend("attrs", all, peers(t, "a1", "a2")...))
	if mode := lastApplyMode(in.waitSynced()); mode != "dynamic" {
		t.Fatalf("an affinity change applied as %v, want dynamic", mode)
	}
	_, set = in.visit("shop.test", "/shop", "")
	if got := attributes(set); got["samesite"] != "Strict" || got["path"] != "/" {
		t.Fatalf("after the change: Set-Cookie %q, want SameSite=Strict and Path=/", set)
	}
}

// TestAffinityChangeOnFailureThroughREST: when its pinned peer fails, a client with
// changeOnFailure is served by another peer and pinned to it, and stays there when the
// first comes back; one without it is served by another peer through the backend's
// retries but keeps its cookie, and goes back to its peer when the peer does.
func TestAffinityChangeOnFailureThroughREST(t *testing.T) {
	in := start(t)
	byName := map[string]*peer{}
	mk := func(names ...string) []*peer {
		ps := peers(t, names...)
		for _, p := range ps {
			byName[p.name] = p
		}
		return ps
	}
	in.must("POST", "/api/v1/backends", stickyBackend("change", map[string]any{"cookie": "c", "changeOnFailure": true}, mk("c1", "c2")...))
	in.must("POST", "/api/v1/backends", stickyBackend("changeb", map[string]any{"cookie": "cb", "mode": "balanced", "changeOnFailure": true}, mk("d1", "d2")...))
	keep := stickyBackend("keep", map[string]any{"cookie": "k"}, mk("k1", "k2")...)
	keep["retries"] = 1
	in.must("POST", "/api/v1/backends", keep)
	in.must("POST", "/api/v1/servers", server("fail", "fail.test", location("/change", "change"), location("/changeb", "changeb"), location("/keep", "keep")))
	in.waitSynced()

	for _, path := range []string{"/change", "/changeb"} {
		c := in.newClients(1, "fail.test", path)[0]
		byName[c.peer].setDown(true)
		served, set := in.visit("fail.test", path, c.cookie)
		if served == "" || served == c.peer || set == "" || pair(set) == c.cookie {
			t.Fatalf("%s: pinned peer %s down: served by %q with Set-Cookie %q, want another peer and a new cookie", path, c.peer, served, set)
		}
		byName[c.peer].setDown(false)
		for i := 0; i < 5; i++ {
			if again, set := in.visit("fail.test", path, pair(set)); again != served || set != "" {
				t.Fatalf("%s: with the new cookie, after %s came back: served by %q with Set-Cookie %q, want %s", path, c.peer, again, set, served)
			}
		}
	}

	c := in.newClients(1, "fail.test", "/keep")[0]
	byName[c.peer].setDown(true)
	if served, set := in.visit("fail.test", "/keep", c.cookie); served == "" || served == c.peer || set != "" {
		t.Fatalf("/keep: pinned peer %s down: served by %q with Set-Cookie %q, want another peer and no cookie", c.peer, served, set)
	}
	byName[c.peer].setDown(false)
	if served, set := in.visit("fail.test", "/keep", c.cookie); served != c.peer || set != "" {
		t.Fatalf("/keep: after %s came back: served by %q with Set-Cookie %q, want %s again", c.peer, served, set, c.peer)
	}
}

// TestAffinityRefusedThroughREST: bad cookie attributes are refused with a 400 that names
// the field, and nothing is stored.
func TestAffinityRefusedThroughREST(t *testing.T) {
	in := start(t)
	p := newPeer(t, "p")
	for field, aff := range map[string]map[string]any{
		"affinity.sameSite": {"cookie": "c", "sameSite": "Sometimes"},
		"affinity.path":     {"cookie": "c", "path": "/a b"},
		"affinity.domain":   {"cookie": "c", "domain": "$host"},
		"affinity.mode":     {"cookie": "c", "mode": "sticky"},
		"affinity.expires":  {"cookie": "c", "expires": -5},
		"affinity.cookie":   {"cookie": "c;d"},
	} {
		var out struct{ Error map[string]any }
		if code := in.call("POST", "/api/v1/backends", stickyBackend("bad", aff, p), &out); code != 400 || out.Error["field"] != field {
			t.Errorf("affinity %v: %d %v, want 400 naming %s", aff, code, out, field)
		}
	}
	var out struct{ Error map[string]any }
	semi := map[string]any{"cookie": "c", "path": "/a;Domain=evil.test"}
	if code := in.call("POST", "/api/v1/backends", stickyBackend("bad", semi, p), &out); code != 400 || out.Error["field"] != "affinity.path" {
		t.Errorf("a path with ';': %d %v, want 400 naming affinity.path", code, out)
	}
	if code := in.call("GET", "/api/v1/backends/bad", nil, nil); code != 404 {
		t.Fatalf("GET the refused backend = %d, want 404", code)
	}
}
