package nginx_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestCORSAndRedirectsOnNginx: the rendered CORS and redirect policies work on a real
// nginx (the e2e tests check them fully, through REST and Ingresses).
func TestCORSAndRedirectsOnNginx(t *testing.T) {
	u := startUpstream(t, "web", 0)
	srv := server("shop", "shop.test", "/api", "web")
	srv.Locations[0].CORS = &api.CORS{AllowOrigins: []string{"https://app.test", "https://*.apps.test"},
		ExposeHeaders: []string{"X-Request-Id"}}
	srv.Locations = append(srv.Locations, api.Location{Path: "/old", Redirect: &api.Redirect{URL: "https://new.test/x", Code: 301}},
		api.Location{Path: "/tmp", Redirect: &api.Redirect{URL: "/new"}})
	srv.AppRoot, srv.WWWRedirect = "/app", true
	in := startNginx(t, config([]api.Backend{backend("web", u)}, srv))
	push(t, in, 1, backend("web", u))
	dump := func() string {
		b, _ := os.ReadFile(filepath.Join(in.Options().Prefix, "logs", "error.log"))
		return string(b)
	}
	do := func(method, host, path, origin string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+proxyAddr(in)+path, nil)
		req.Host = host
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, c := range []struct {
		method, host, path, origin string
		code                       int
		header, want               string
	}{
		{"OPTIONS", "shop.test", "/api/x", "https://eu.apps.test", 204, "Access-Control-Allow-Origin", "https://eu.apps.test"},
		{"OPTIONS", "shop.test", "/api/x", "https://app.test", 204, "Access-Control-Allow-Origin", "https://app.test"},
		{"OPTIONS", "shop.test", "/api/x", "https://evil.test", 200, "X-Upstream", "web"},
		{"GET", "shop.test", "/api/x", "https://app.test", 200, "Access-Control-Allow-Origin", "https://app.test"},
		{"GET", "shop.test", "/old/y", "", 301, "Location", "https://new.test/x"},
		{"GET", "shop.test", "/tmp", "", 302, "Location", "http://shop.test/new"},
		{"GET", "shop.test", "/", "", 302, "Location", "http://shop.test/app"},
		{"GET", "www.shop.test", "/a?b=1", "", 308, "Location", "http://shop.test/a?b=1"},
	} {
		resp := do(c.method, c.host, c.path, c.origin)
		if resp.StatusCode != c.code || resp.Header.Get(c.header) != c.want {
			t.Fatalf("%s %s%s (Origin %q): %d %v, want %d with %s %q\n%s", c.method, c.host, c.path, c.origin,
				resp.StatusCode, resp.Header, c.code, c.header, c.want, dump())
		}
	}
}
