package nginx_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestMirrorRedirectPartsAndFullRewrite: a mirror's backend gets a copy of each request
// while the client gets the location's own backend's answer; redirects by parts build
// their Location from the parts and the request's own scheme, server name, port and URI;
// a full-path rewrite replaces the whole path and keeps the query string.
func TestMirrorRedirectPartsAndFullRewrite(t *testing.T) {
	web := startUpstream(t, "web", 0)
	var mu sync.Mutex
	var copies []string
	shadow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		copies = append(copies, r.Method+" "+r.Host+" "+r.URL.RequestURI())
		mu.Unlock()
		w.Header().Set("X-Upstream", "shadow")
	}))
	t.Cleanup(shadow.Close)
	_, port, _ := splitHostPort(shadow.Listener.Addr().String())
	mirror := api.Backend{Name: "shadow", Endpoints: []api.Endpoint{{Address: "127.0.0.1", Port: atoi(t, port), Weight: 1}}}
	backends := []api.Backend{backend("web", web), mirror}
	rd := func(r api.Redirect) *api.Redirect { return &r }
	srv := api.Server{Name: "shop", Hostnames: []string{"shop.test"}, Locations: []api.Location{
		{Path: "/m", Backend: "web", Rewrite: "/x", Mirror: []api.Mirror{{Backend: "shadow"}}},
		{Path: "/full", Backend: "web", RewriteFull: "/one"},
		{Path: "/prefix/one", Backend: "web", Rewrite: "/"},
		{Path: "/host", Redirect: rd(api.Redirect{Hostname: "example.org"})},
		{Path: "/https", Redirect: rd(api.Redirect{Scheme: "https", Code: 301})},
		{Path: "/port", Redirect: rd(api.Redirect{Port: 8443, Code: 307})},
		{Path: "/http-80", Redirect: rd(api.Redirect{Scheme: "http", Port: 80, Hostname: "example.org", Code: 308})},
		{Path: "/path", Redirect: rd(api.Redirect{Path: "/new", Code: 303})},
		{Path: "/old", Redirect: rd(api.Redirect{PrefixPath: "/new", Hostname: "example.org", Scheme: "https", Port: 8443})},
		{Path: "/gone", Redirect: rd(api.Redirect{PrefixPath: "/", Hostname: "example.org", Scheme: "http"})},
	}}
	in := startNginx(t, config(backends, srv))
	push(t, in, 2, backends...)
	addr := proxyAddr(in)
	_, own, _ := splitHostPort(addr)

	if got := get(t, addr, "shop.test", "/m/a?b=1"); got.upstream != "web" || got.header.Get("X-Path") != "/x/a?b=1" {
		t.Errorf("GET /m/a = %d from %q as %q, want web's answer to /x/a?b=1", got.status, got.upstream, got.header.Get("X-Path"))
	}
	eventually(t, "the mirror gets a copy", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(copies) == 1 && copies[0] == "GET shop.test /m/a?b=1"
	})
	for path, want := range map[string]string{"/full/a/b?q=1": "/one?q=1", "/prefix/one/two": "/two", "/prefix/one": "/"} {
		if got := get(t, addr, "shop.test", path).header.Get("X-Path"); got != want {
			t.Errorf("GET %s reached the upstream as %q, want %q", path, got, want)
		}
	}
	for _, c := range []struct {
		host, path string
		code       int
		location   string
	}{
		{"Shop.Test", "/host/a%20b?x=1", 302, "http://example.org:" + own + "/host/a%20b?x=1"},
		{"shop.test:" + own, "/https/a", 301, "https://shop.test/https/a"},
		{"shop.test", "/port/a", 307, "http://shop.test:8443/port/a"},
		{"shop.test", "/http-80", 308, "http://example.org/http-80"},
		{"shop.test", "/path/a?x=1", 303, "http://shop.test:" + own + "/new?x=1"},
		{"shop.test", "/old/a/b?x=1", 302, "https://example.org:8443/new/a/b?x=1"},
		{"shop.test", "/old", 302, "https://example.org:8443/new"},
		{"shop.test", "/old/", 302, "https://example.org:8443/new/"},
		{"shop.test", "/old/a%0D%0ASet-Cookie:%20x", 302, "https://example.org:8443/new/a%0D%0ASet-Cookie:%20x"},
		{"shop.test", "/gone/x/y", 302, "http://example.org/x/y"},
		{"shop.test", "/gone", 302, "http://example.org/"},
	} {
		got := get(t, addr, c.host, c.path)
		if got.status != c.code || got.header.Get("Location") != c.location || got.header.Get("Set-Cookie") != "" {
			t.Errorf("GET %s%s = %d to %q, want %d to %q", c.host, c.path, got.status, got.header.Get("Location"), c.code, c.location)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
