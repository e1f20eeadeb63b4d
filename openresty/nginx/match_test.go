package nginx_test

import (
	"testing"

	"github.com/restyplane/restyplane/api"
)

func TestLocationsFollowTheIngressPrefixRule(t *testing.T) {
	foo, exact, re, api2 := startUpstream(t, "foo", 0), startUpstream(t, "exact", 0), startUpstream(t, "re", 0), startUpstream(t, "api", 0)
	backends := []api.Backend{backend("foo", foo), backend("exact", exact), backend("re", re), backend("api", api2)}
	srv := api.Server{Name: "shop", Hostnames: []string{"shop.test", "*.shop.test"}, Locations: []api.Location{
		{Path: "/foo", Match: api.MatchPrefix, Backend: "foo"},
		{Path: "/bar/", Match: api.MatchPrefix, Backend: "foo"},
		{Path: "/exact", Match: api.MatchExact, Backend: "exact"},
		{Path: `^/re/[0-9]+$`, Match: api.MatchRegex, Backend: "re"},
		{Path: "/api", Match: api.MatchPrefix, Backend: "api", Rewrite: "/",
			SetHeaders: []api.Header{{Name: "X-Team", Value: "checkout team"}}},
		{Path: "/v1", Match: api.MatchPrefix, Backend: "api", Rewrite: "/v2"},
		{Path: "/w/", Match: api.MatchPrefix, Backend: "api", Rewrite: "/v3/"},
	}}
	in := startNginx(t, config(backends, srv))
	push(t, in, 2, backends...)
	addr := proxyAddr(in)

	cases := []struct {
		host, path string
		status     int
		upstream   string
		path2      string // the path the upstream saw, when it matters
	}{
		{"shop.test", "/foo", 200, "foo", "/foo"},
		{"shop.test", "/foo/", 200, "foo", "/foo/"},
		{"shop.test", "/foo/bar?x=1", 200, "foo", "/foo/bar?x=1"},
		{"shop.test", "/foobar", 404, "", ""},
		{"shop.test", "/bar", 200, "foo", ""}, // a trailing slash in the path changes nothing
		{"shop.test", "/bar/baz", 200, "foo", ""},
		{"shop.test", "/barbaz", 404, "", ""},
		{"shop.test", "/exact", 200, "exact", ""},
		{"shop.test", "/exact/", 404, "", ""},
		{"shop.test", "/re/42", 200, "re", ""},
		{"shop.test", "/re/x", 404, "", ""},
		{"shop.test", "/api", 200, "api", "/"},
		{"shop.test", "/api/users?id=7", 200, "api", "/users?id=7"},
		{"shop.test", "/apix", 404, "", ""},
		{"shop.test", "/v1", 200, "api", "/v2"},
		{"shop.test", "/v1/items", 200, "api", "/v2/items"},
		// A rewrite keeps the query string and what proxy_pass's URI part did before
		// prefixes became regexes: the bare prefix becomes the rewrite as it is.
		{"shop.test", "/v1?x=1", 200, "api", "/v2?x=1"},
		{"shop.test", "/v1/", 200, "api", "/v2/"},
		{"shop.test", "/v1/items/?x=1&y=a%20b", 200, "api", "/v2/items/?x=1&y=a%20b"},
		{"shop.test", "/v1/a%20b", 200, "api", "/v2/a%20b"},
		{"shop.test", "/v1/a%2Fb", 200, "api", "/v2/a/b"},
		{"shop.test", "/v1/a%0Ab", 200, "api", "/v2/a%0Ab"},
		{"shop.test", "/v1x", 404, "", ""},
		{"shop.test", "/w", 200, "api", "/v3/"},
		{"shop.test", "/w/x?y=1", 200, "api", "/v3/x?y=1"},
		{"shop.test", "/api/", 200, "api", "/"},
		// PCRE's $ would match before a final newline; the prefix rule must not.
		{"shop.test", "/foo%0A", 404, "", ""},
		{"shop.test", "/FOO", 404, "", ""},
		{"www.shop.test", "/foo/x", 200, "foo", ""},
		{"shop.other", "/foo", 404, "", ""},
	}
	for _, c := range cases {
		got := get(t, addr, c.host, c.path)
		if got.status != c.status || got.upstream != c.upstream {
			t.Errorf("GET %s%s = %d from %q, want %d from %q", c.host, c.path, got.status, got.upstream, c.status, c.upstream)
		}
		if c.path2 != "" && got.header.Get("X-Path") != c.path2 {
			t.Errorf("GET %s%s reached the upstream as %q, want %q", c.host, c.path, got.header.Get("X-Path"), c.path2)
		}
	}
	if got := get(t, addr, "shop.test", "/api/x").header.Get("X-Team"); got != "checkout team" {
		t.Errorf("X-Team at the upstream = %q, want the location's header", got)
	}
}

func TestServersSharingAHostnameMerge(t *testing.T) {
	a, b := startUpstream(t, "a", 0), startUpstream(t, "b", 0)
	backends := []api.Backend{backend("ba", a), backend("bb", b)}
	one := server("one", "shop.test", "/a", "ba")
	// two's /a/b, longer than one's /a, wins in the block they share.
	two := api.Server{Name: "two", Hostnames: []string{"shop.test", "two.test"},
		Locations: []api.Location{{Path: "/b", Match: api.MatchPrefix, Backend: "bb"}, {Path: "/a/b", Backend: "bb"}}}
	in := startNginx(t, config(backends, one, two))
	push(t, in, 2, backends...)
	for _, c := range []struct{ host, path, want string }{
		{"shop.test", "/a", "a"}, {"shop.test", "/b", "b"}, {"two.test", "/b", "b"}, {"two.test", "/a", ""},
		{"shop.test", "/a/b/x", "b"}, {"shop.test", "/a/bx", "a"}, {"two.test", "/a/b", "b"},
	} {
		if got := get(t, proxyAddr(in), c.host, c.path).upstream; got != c.want {
			t.Errorf("GET %s%s went to %q, want %q", c.host, c.path, got, c.want)
		}
	}
}

// TestPrefixPrecedence checks the order in which locations win: exact, then the users'
// regexes in their order, then the longest prefix, falling back to a shorter one or "/".
func TestPrefixPrecedence(t *testing.T) {
	names := []string{"a", "ab", "abc", "root", "exact", "re1", "re2", "meta", "dot"}
	var backends []api.Backend
	for _, n := range names {
		backends = append(backends, backend(n, startUpstream(t, n, 0)))
	}
	srv := api.Server{Name: "shop", Hostnames: []string{"shop.test"}, Locations: []api.Location{
		{Path: "/", Backend: "root"},
		{Path: "/a", Backend: "a"},
		{Path: "/a/bc", Backend: "abc"},
		{Path: "/a/b", Backend: "ab"},
		{Path: "/a/b", Match: api.MatchExact, Backend: "exact"},
		{Path: `^/a/b/re`, Match: api.MatchRegex, Backend: "re1"},
		{Path: `^/a/b/r`, Match: api.MatchRegex, Backend: "re2"},
		{Path: "/c++(x)*y", Backend: "meta"},
		{Path: "/v1.0", Backend: "dot"},
		{Path: "/z", Backend: "a"},
		{Path: `^/z$`, Match: api.MatchRegex, Backend: "re1"},
	}}
	in := startNginx(t, config(backends, srv))
	push(t, in, 2, backends...)
	for _, c := range []struct{ path, want string }{
		{"/a", "a"},
		{"/a/", "a"},
		{"/a/x", "a"},
		{"/ab", "root"},
		{"/a/b", "exact"}, // exact over the prefix /a/b
		{"/a/b/", "ab"},
		{"/a/b/x?q=1", "ab"},
		{"/a/bc", "abc"},
		{"/a/bc/d", "abc"},
		{"/a/bcd", "a"}, // neither /a/bc nor /a/b: back to /a
		{"/a/bx", "a"},
		{"/a/b/re/1", "re1"}, // a regex over a longer prefix, the first of two that match
		{"/a/b/rx", "re2"},
		{"/c++(x)*y", "meta"},
		{"/c++(x)*y/z", "meta"},
		{"/c++(x)y", "root"}, // regex syntax in a prefix is literal
		{"/cc(x)*y", "root"},
		{"/v1.0/items", "dot"},
		{"/v1x0/items", "root"},
		{"/v1.00", "root"},
		// A regex wins over a prefix for the bare prefix too (when a prefix rendered as
		// "= /z" plus "/z/", its "= /z" beat every regex).
		{"/z", "re1"},
		{"/z/", "a"},
	} {
		if got := get(t, proxyAddr(in), "shop.test", c.path); got.status != 200 || got.upstream != c.want {
			t.Errorf("GET %s = %d from %q, want 200 from %q", c.path, got.status, got.upstream, c.want)
		}
	}
}
