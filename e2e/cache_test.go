package e2e

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
)

// TestResponseCache: a location's cache policy answers the second request of a key from
// the cache (HIT in its status header) without asking the upstream again, bypasses it
// for a request that carries a bypass variable, keeps two servers' answers to the same
// path apart, and marks another location's answers with expires; values outside the
// fixed lists are a 400.
func TestResponseCache(t *testing.T) {
	in := start(t)
	var hits atomic.Int64
	up := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		fmt.Fprintf(w, "%s %s #%d\n", r.Host, r.URL.Path, n)
	}))
	in.must("POST", "/api/v1/backends", backend("web", up))
	cache := map[string]any{"valid": []any{map[string]any{"codes": []int{200}, "duration": "10m"}}, "lock": true,
		"useStale": []string{"error", "timeout"}, "bypass": []string{"$http_x_nocache"}, "statusHeader": "X-Cache-Status"}
	in.must("POST", "/api/v1/servers", server("cached", "cached.test",
		map[string]any{"path": "/", "backend": "web", "cache": cache},
		map[string]any{"path": "/static", "backend": "web", "expires": "30d"}))
	in.must("POST", "/api/v1/servers", server("other", "other.test",
		map[string]any{"path": "/", "backend": "web", "cache": cache}))
	in.waitSynced()

	resp, first := in.do("cached.test", "/page")
	if resp.StatusCode != 200 || resp.Header.Get("X-Cache-Status") != "MISS" {
		t.Fatalf("first GET /page = %d %q X-Cache-Status %q, want 200 MISS", resp.StatusCode, first, resp.Header.Get("X-Cache-Status"))
	}
	before := hits.Load()
	resp, second := in.do("cached.test", "/page")
	if resp.Header.Get("X-Cache-Status") != "HIT" || second != first || hits.Load() != before {
		t.Errorf("second GET /page = %q X-Cache-Status %q, upstream asked %d more times; want the first answer, HIT, 0",
			second, resp.Header.Get("X-Cache-Status"), hits.Load()-before)
	}
	resp, bypassed := in.do("cached.test", "/page", "X-Nocache", "1")
	if resp.Header.Get("X-Cache-Status") != "BYPASS" || bypassed == first {
		t.Errorf("GET /page with X-Nocache = %q %q, want BYPASS and a fresh answer", bypassed, resp.Header.Get("X-Cache-Status"))
	}
	resp, other := in.do("other.test", "/page")
	if resp.Header.Get("X-Cache-Status") != "MISS" || other == first {
		t.Errorf("GET other.test/page = %q %q, want MISS with its own answer: servers never share entries", other, resp.Header.Get("X-Cache-Status"))
	}
	resp, _ = in.do("cached.test", "/static/app.js")
	if resp.Header.Get("Cache-Control") != "max-age=2592000" || resp.Header.Get("Expires") == "" || resp.Header.Get("X-Cache-Status") != "" {
		t.Errorf("GET /static/app.js headers %v, want Cache-Control max-age=2592000 and Expires, no cache status", resp.Header)
	}
	for _, c := range []struct {
		cache map[string]any
		field string
	}{
		{map[string]any{"key": []string{"$remote_addr"}}, "locations[0].cache.key[0]"},
		{map[string]any{"key": []string{"$host;"}}, "locations[0].cache.key[0]"},
		{map[string]any{"bypass": []string{"$http_x;return 200"}}, "locations[0].cache.bypass[0]"},
		{map[string]any{"valid": []any{map[string]any{"duration": "10m;"}}}, "locations[0].cache.valid[0].duration"},
		{map[string]any{"useStale": []string{"always"}}, "locations[0].cache.useStale[0]"},
		{map[string]any{"statusHeader": "X Cache"}, "locations[0].cache.statusHeader"},
	} {
		var out struct{ Error struct{ Field string } }
		loc := map[string]any{"path": "/", "backend": "web", "cache": c.cache}
		if code := in.call("POST", "/api/v1/servers", server("bad", "bad.test", loc), &out); code != 400 || out.Error.Field != c.field {
			t.Errorf("POST cache %v = %d %+v, want 400 naming %s", c.cache, code, out, c.field)
		}
	}
	var set map[string]any
	in.call("GET", "/api/v1/settings", nil, &set)
	set["cacheZoneSize"] = "10m;"
	delete(set, "version")
	var out struct{ Error struct{ Field string } }
	if code := in.call("PUT", "/api/v1/settings", set, &out); code != 400 || out.Error.Field != "cacheZoneSize" {
		t.Errorf("PUT settings cacheZoneSize 10m; = %d %+v, want 400 naming cacheZoneSize", code, out)
	}
}
