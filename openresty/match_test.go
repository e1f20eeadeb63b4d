package openresty_test

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
	two := api.Server{Name: "two", Hostnames: []string{"shop.test", "two.test"},
		Locations: []api.Location{{Path: "/b", Match: api.MatchPrefix, Backend: "bb"}}}
	in := startNginx(t, config(backends, one, two))
	push(t, in, 2, backends...)
	for _, c := range []struct{ host, path, want string }{
		{"shop.test", "/a", "a"}, {"shop.test", "/b", "b"}, {"two.test", "/b", "b"}, {"two.test", "/a", ""},
	} {
		if got := get(t, proxyAddr(in), c.host, c.path).upstream; got != c.want {
			t.Errorf("GET %s%s went to %q, want %q", c.host, c.path, got, c.want)
		}
	}
}
