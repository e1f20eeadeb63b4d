package e2e

import (
	"net/http"
	"testing"
)

// TestConditionalLocationsThroughREST: locations with method, header (exact and regex)
// and query conditions, set through REST, route in Gateway API's precedence: exact over
// prefix, the longest prefix, a method over none, more headers over fewer, then listing
// order; a request whose conditions no candidate meets falls through to a shorter prefix,
// and is 404 when none is left. A PUT changes the conditions; bad values are a 400 naming
// the field.
func TestConditionalLocationsThroughREST(t *testing.T) {
	in := start(t)
	for _, n := range []string{"v1", "v2", "v3"} {
		in.must("POST", "/api/v1/backends", backend(n, serveLoopback(t, &recorder{name: n})))
	}
	when := func(loc map[string]any, w map[string]any) map[string]any { loc["when"] = w; return loc }
	hdr := func(n, v string) map[string]any { return map[string]any{"name": n, "value": v} }
	rx := func(n, v string) map[string]any { return map[string]any{"name": n, "type": "regex", "value": v} }
	gw := server("gw", "gw.test",
		when(location("/", "v1"), map[string]any{"headers": []any{hdr("X-Root", "yes")}}),
		location("/api", "v2"),
		when(location("/api", "v3"), map[string]any{"method": "POST"}),
		map[string]any{"path": "/api/exact", "match": "exact", "backend": "v1"},
		when(location("/api/v1", "v3"), map[string]any{"headers": []any{hdr("X-Version", "1")}}),
		when(location("/api/v1", "v1"), map[string]any{"headers": []any{rx("X-Version", "1|one"), hdr("X-Team", "a")}}),
		when(location("/search", "v2"), map[string]any{"query": []any{hdr("q", "x")}}),
		when(location("/search", "v3"), map[string]any{"query": []any{rx("q", "[0-9]+")}}),
		when(map[string]any{"path": "/exact", "match": "exact", "backend": "v3"}, map[string]any{"method": "GET"}),
		when(location("/tie", "v1"), map[string]any{"headers": []any{hdr("X-A", "1")}}),
		when(location("/tie", "v2"), map[string]any{"headers": []any{hdr("X-B", "1")}}),
	)
	in.must("POST", "/api/v1/servers", gw)
	in.must("POST", "/api/v1/servers", server("plain", "plain.test", location("/", "v1")))
	in.waitSynced()

	cases := []struct {
		method, path string
		hdr          []string
		want         string // the upstream, "" for a 404
	}{
		{"GET", "/", nil, ""},
		{"GET", "/x", []string{"X-Root", "yes"}, "v1"},
		{"GET", "/x", []string{"X-Root", "Yes"}, ""},
		{"GET", "/api/x", nil, "v2"},
		{"POST", "/api/x", nil, "v3"},
		{"GET", "/apix", nil, ""},
		{"GET", "/api/exact", nil, "v1"},
		{"GET", "/api/exact/x", nil, "v2"},
		{"GET", "/api/v1/x", []string{"X-Version", "1"}, "v3"},
		{"GET", "/api/v1/x", []string{"X-Version", "one", "X-Team", "a"}, "v1"},
		{"GET", "/api/v1/x", []string{"X-Version", "1", "X-Team", "a"}, "v1"},
		{"GET", "/api/v1/x", []string{"X-Version", "ones", "X-Team", "a"}, "v2"},
		{"GET", "/api/v1/x", nil, "v2"},
		{"POST", "/api/v1/x", nil, "v3"},
		{"GET", "/search?q=x", nil, "v2"},
		{"GET", "/search?q=12&r=1", nil, "v3"},
		{"GET", "/search?Q=x", nil, ""},
		{"GET", "/search?q=y", nil, ""},
		{"GET", "/search?q=y", []string{"X-Root", "yes"}, "v1"},
		{"GET", "/exact", nil, "v3"},
		{"HEAD", "/exact", []string{"X-Root", "yes"}, "v1"},
		{"GET", "/tie/x", []string{"X-A", "1", "X-B", "1"}, "v1"},
		{"GET", "/tie/x", []string{"X-B", "1"}, "v2"},
	}
	check := func() {
		t.Helper()
		for _, c := range cases {
			resp, body := in.request(in.proxyAddr(), c.method, "gw.test", c.path, "", c.hdr...)
			want := http.StatusOK
			if c.want == "" {
				want = http.StatusNotFound
			}
			if resp.StatusCode != want || resp.Header.Get("X-Upstream") != c.want {
				t.Errorf("%s %s %v = %d from %q (%q), want %d from %q", c.method, c.path, c.hdr, resp.StatusCode, resp.Header.Get("X-Upstream"), body, want, c.want)
			}
		}
	}
	check()
	if resp, _ := in.request(in.proxyAddr(), "GET", "plain.test", "/x", ""); resp.Header.Get("X-Upstream") != "v1" {
		t.Errorf("a server without conditions beside: %d from %q", resp.StatusCode, resp.Header.Get("X-Upstream"))
	}

	// PUT is the same object with other conditions.
	gw["locations"].([]map[string]any)[0]["when"] = map[string]any{"headers": []any{hdr("X-Root", "Yes")}}
	in.must("PUT", "/api/v1/servers/gw", gw)
	in.waitSynced()
	cases = []struct {
		method, path string
		hdr          []string
		want         string
	}{{"GET", "/x", []string{"X-Root", "yes"}, ""}, {"GET", "/x", []string{"X-Root", "Yes"}, "v1"}}
	check()

	locs := func(w map[string]any) map[string]any { return server("bad", "bad.test", when(location("/", "v1"), w)) }
	for field, srv := range map[string]map[string]any{
		"locations[0].when":                  locs(map[string]any{}),
		"locations[0].when.method":           locs(map[string]any{"method": "get"}),
		"locations[0].when.headers[0].name":  locs(map[string]any{"headers": []any{hdr("X_A", "v")}}),
		"locations[0].when.headers[0].value": locs(map[string]any{"headers": []any{hdr("X-A", "$host")}}),
		"locations[0].when.headers[0].type":  locs(map[string]any{"headers": []any{map[string]any{"name": "X-A", "type": "prefix", "value": "v"}}}),
		"locations[0].when.query[0].value":   locs(map[string]any{"query": []any{rx("q", "(a+)+$")}}),
		"locations[0].when.query[0].name":    locs(map[string]any{"query": []any{hdr("a=b", "v")}}),
		"locations[1].when.headers[1].name":  server("bad", "bad.test", location("/", "v1"), when(location("/x", "v1"), map[string]any{"headers": []any{hdr("X-A", "1"), hdr("x-a", "2")}})),
		"locations[1].path":                  server("bad", "bad.test", when(location("/", "v1"), map[string]any{"method": "GET"}), when(location("/", "v2"), map[string]any{"method": "GET"})),
	} {
		in.badServer(t, srv, field)
	}
}
