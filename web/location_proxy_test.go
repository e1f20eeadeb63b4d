package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The server form puts body, retry and error page policies on a location (policies, issue
// 11), and a value the API refuses is shown at its field with nothing saved.
func TestLocationProxyRetryAndErrors(t *testing.T) {
	rp := startRestyplane(t)
	_, port := upstream(t, "web")
	for _, name := range []string{"web", "pages"} {
		rp.must("POST", "/api/v1/backends", map[string]any{"name": name, "endpoints": []any{map[string]any{"address": "127.0.0.1", "port": port}}})
	}
	rp.must("POST", "/api/v1/servers", map[string]any{"name": "shop", "hostnames": []string{"shop.test"},
		"locations": []any{map[string]any{"path": "/", "backend": "web"}}})
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)

	// A bad value: the API's answer names the field, and the form shows it there.
	b.route("#/servers/shop/edit", tid("server-form"))
	evalJS[chromedp.Void](b, `document.querySelector('[data-testid="location-proxy"]').open = true`)
	b.typeInto(tid("location-retry-tries"), "99")
	b.typeInto(tid("server-reason"), "too many tries")
	b.click(tid("form-submit"))
	b.waitText(tid("server-form"), "must be 0-11")

	// The form keeps what was typed; the rest is filled in and saved.
	b.typeInto(tid("location-proxy-body-size"), "10m")
	b.choose(tid("location-proxy-buffering"), "off")
	b.typeInto(tid("location-proxy-buffer-size"), "8k")
	b.typeInto(tid("location-proxy-buffers"), "8")
	b.typeInto(tid("location-retry-on"), "error, timeout, http_503")
	b.typeInto(tid("location-retry-tries"), "2")
	b.typeInto(tid("location-retry-timeout"), "10s")
	b.choose(tid("location-retry-same-peer"), "yes")
	b.typeInto(tid("location-errors-codes"), "404, 503")
	b.choose(tid("location-errors-backend"), "pages")
	b.typeInto(tid("server-reason"), "retries and error pages")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))
	var srv struct {
		Locations []struct {
			Proxy struct {
				BodySize, Buffering, BufferSize string
				BuffersNumber                   int
			}
			Retry struct {
				NextUpstream []string
				Tries        int
				Timeout      string
				SamePeer     bool
			}
			Errors struct {
				Codes   []int
				Backend string
			}
		}
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/servers/shop", nil, &srv); code != 200 || len(srv.Locations) != 1 {
		t.Fatalf("GET server = %d %+v", code, srv)
	}
	l := srv.Locations[0]
	if l.Proxy.BodySize != "10m" || l.Proxy.Buffering != "off" || l.Proxy.BufferSize != "8k" || l.Proxy.BuffersNumber != 8 ||
		strings.Join(l.Retry.NextUpstream, " ") != "error timeout http_503" || l.Retry.Tries != 2 || l.Retry.Timeout != "10s" || !l.Retry.SamePeer ||
		len(l.Errors.Codes) != 2 || l.Errors.Codes[0] != 404 || l.Errors.Codes[1] != 503 || l.Errors.Backend != "pages" {
		t.Fatalf("location = %+v", l)
	}
	// The form shows what is set, and leaving it unchanged keeps it.
	b.route("#/servers/shop/edit", tid("server-form"))
	if got := evalJS[string](b, `document.querySelector('[data-testid="location-retry-on"]').value`); got != "error, timeout, http_503" {
		t.Fatalf("retry on field = %q", got)
	}
	if got := evalJS[string](b, `document.querySelector('[data-testid="location-retry-same-peer"]').value`); got != "yes" {
		t.Fatalf("retry the same endpoint field = %q", got)
	}
}
