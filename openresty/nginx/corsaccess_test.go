package nginx_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// TestCORSBeforeAccessListsOnNginx: a location with CORS and access lists runs both in one
// Lua phase, CORS first, as when CORS had a rewrite phase of its own: a preflight is
// answered even for an address the lists refuse, and a refusal carries the CORS headers.
func TestCORSBeforeAccessListsOnNginx(t *testing.T) {
	u := startUpstream(t, "web", 0)
	srv := server("shop", "shop.test", "/refused", "web", "/limited", "web")
	cors := &api.CORS{AllowOrigins: []string{"https://app.test"}}
	srv.Locations[0].CORS, srv.Locations[0].Access = cors, &api.AccessPolicy{Deny: []string{"127.0.0.0/8"}}
	srv.Locations[1].CORS, srv.Locations[1].Access = cors, &api.AccessPolicy{Allow: []string{"127.0.0.0/8"}}
	cfg := config([]api.Backend{backend("web", u)}, srv)
	in := startNginx(t, cfg)
	policies, err := render.ServerPolicies(&cfg.Servers[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Push(ctx(t), 1, render.Push{Full: true, Backends: cfg.Backends, Policies: policies}); err != nil {
		t.Fatalf("push: %v", err)
	}
	conf, err := os.ReadFile(filepath.Join(in.Options().Prefix, "conf", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(conf), "rewrite_by_lua_block") {
		t.Fatalf("CORS has a rewrite phase of its own beside access lists:\n%s", conf)
	}
	for _, c := range []struct {
		method, path string
		code         int
	}{
		{"OPTIONS", "/refused/x", 204},
		{"GET", "/refused/x", 403},
		{"OPTIONS", "/limited/x", 204},
		{"GET", "/limited/x", 200},
	} {
		req, _ := http.NewRequest(c.method, "http://"+proxyAddr(in)+c.path, nil)
		req.Host = "shop.test"
		req.Header.Set("Origin", "https://app.test")
		req.Header.Set("Access-Control-Request-Method", "PUT")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.code || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.test" {
			t.Fatalf("%s %s: %d %v, want %d with Access-Control-Allow-Origin https://app.test", c.method, c.path, resp.StatusCode, resp.Header, c.code)
		}
	}
}
