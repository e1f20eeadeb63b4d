package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The server form puts CORS on a location and the server's redirects (app root, forced
// HTTPS, www) on the server, and keeps a redirecting location without a backend through
// an edit (policies).
func TestServerFormCORSAndRedirects(t *testing.T) {
	rp := startRestyplane(t)
	_, port := upstream(t, "web")
	rp.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{map[string]any{"address": "127.0.0.1", "port": port}}})
	rp.must("POST", "/api/v1/servers", map[string]any{"name": "shop", "hostnames": []string{"shop.test"},
		"locations": []any{map[string]any{"path": "/", "backend": "web"},
			map[string]any{"path": "/old", "redirect": map[string]any{"url": "https://new.test/x", "code": 301}}}})
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	b.route("#/servers/shop/edit", tid("server-form"))
	evalJS[chromedp.Void](b, `document.querySelector('[data-testid="location-http"]').open = true`)
	b.click(tid("location-cors-on"))
	b.typeInto(tid("location-cors-origins"), "https://app.test, https://*.apps.test")
	b.typeInto(tid("location-cors-expose"), "X-Request-Id")
	b.typeInto(tid("server-app-root"), "/app")
	b.click(tid("server-www-redirect"))
	b.typeInto(tid("server-reason"), "CORS and redirects")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))
	if got := b.text(tid("server-redirects")); !containsAll(got, "/app", "redirected to the hostname") {
		t.Fatalf("server redirects panel = %q", got)
	}
	if got := b.text(tid("server-locations")); !containsAll(got, "redirect 301 to https://new.test/x", "CORS https://app.test, https://*.apps.test") {
		t.Fatalf("locations = %q", got)
	}

	var srv struct {
		AppRoot          string
		WWWRedirect      bool
		ForceSSLRedirect bool
		Locations        []struct {
			Path, Backend string
			CORS          *struct {
				AllowOrigins, AllowMethods, ExposeHeaders []string
				AllowCredentials                          bool
				MaxAge                                    int
			}
			Redirect *struct {
				URL  string
				Code int
			}
		}
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/servers/shop", nil, &srv); code != 200 || len(srv.Locations) != 2 {
		t.Fatalf("GET server = %d %+v", code, srv)
	}
	if srv.AppRoot != "/app" || !srv.WWWRedirect || srv.ForceSSLRedirect {
		t.Fatalf("server redirects = %+v", srv)
	}
	root, old := srv.Locations[0], srv.Locations[1]
	if c := root.CORS; c == nil || strings.Join(c.AllowOrigins, ",") != "https://app.test,https://*.apps.test" ||
		strings.Join(c.ExposeHeaders, ",") != "X-Request-Id" || !c.AllowCredentials || c.MaxAge != 1728000 || len(c.AllowMethods) != 6 {
		t.Fatalf("location / CORS = %+v, want the origins, the exposed header and ingress-nginx's defaults", c)
	}
	if r := old.Redirect; old.Path != "/old" || old.Backend != "" || r == nil || r.URL != "https://new.test/x" || r.Code != 301 {
		t.Fatalf("location /old = %+v, want its redirect kept, without a backend", old)
	}
	// The proxy answers as the form said, once the revision is live.
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, code2 := redirectStatus(rp.Proxy, "shop.test", "/old"), redirectStatus(rp.Proxy, "www.shop.test", "/")
		if code == 301 && code2 == 308 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy answers /old %d and www.shop.test %d, want 301 and 308", code, code2)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// redirectStatus is the status a request through the proxy answers, without following a
// redirect; 0 when none came.
func redirectStatus(proxy, host, path string) int {
	req, _ := http.NewRequest("GET", proxy+path, nil)
	req.Host = host
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
