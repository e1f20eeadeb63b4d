package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An htpasswd object made through its form shows its users and never its hashes, and the
// server form puts basic and external auth on a location (policies).
func TestHtpasswdFormAndLocationAuth(t *testing.T) {
	rp := startRestyplane(t)
	_, port := upstream(t, "web")
	rp.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{map[string]any{"address": "127.0.0.1", "port": port}}})
	rp.must("POST", "/api/v1/servers", map[string]any{"name": "shop", "hostnames": []string{"shop.test"},
		"locations": []any{map[string]any{"path": "/", "backend": "web"}}})
	const hash = "$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/"
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	b.route("#/htpasswds", tid("htpasswd-list"))
	b.click(tid("new-htpasswd"))
	b.waitVisible(tid("htpasswd-form"))
	b.typeInto(tid("htpasswd-name"), "admins")
	evalJS[chromedp.Void](b, fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = %s; e.dispatchEvent(new Event('input', { bubbles: true })); })()`,
		js(tid("htpasswd-content")), js("alice:"+hash+"\nbob:"+hash+"\n")))
	b.typeInto(tid("htpasswd-reason"), "shop admins")
	b.click(tid("form-submit"))
	b.waitVisible(tid("htpasswd-detail"))
	if got := b.text(tid("htpasswd-users")); !containsAll(got, "alice", "bob") {
		t.Fatalf("users = %q", got)
	}
	for _, p := range []struct{ hash, ready string }{
		{"#/htpasswds", "htpasswd-list"},
		{"#/htpasswds/admins/edit", "htpasswd-form"},
		{"#/history/3", "revision-detail"},
	} {
		b.route(p.hash, tid(p.ready))
		page := evalJS[string](b, `document.body.innerText + [...document.querySelectorAll('input, textarea')].map((e) => e.value).join()`)
		if strings.Contains(page, "h9FWgUz3n9YxylKLlR5SQ") {
			t.Fatalf("%s shows the hashes", p.hash)
		}
	}

	b.route("#/servers/shop/edit", tid("server-form"))
	evalJS[chromedp.Void](b, `document.querySelector('[data-testid="location-auth"]').open = true`)
	b.choose(tid("location-auth-htpasswd"), "admins")
	b.typeInto(tid("location-auth-realm"), "shop admin")
	b.typeInto(tid("location-auth-url"), "http://127.0.0.1:9/verify")
	b.typeInto(tid("location-auth-headers"), "X-User, X-Email")
	b.typeInto(tid("server-reason"), "protect the shop")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))
	var srv struct {
		Locations []struct {
			Auth struct {
				Basic    struct{ Htpasswd, Realm string }
				External struct {
					URL             string
					ResponseHeaders []string
				}
			}
		}
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/servers/shop", nil, &srv); code != 200 || len(srv.Locations) != 1 {
		t.Fatalf("GET server = %d %+v", code, srv)
	}
	a := srv.Locations[0].Auth
	if a.Basic.Htpasswd != "admins" || a.Basic.Realm != "shop admin" || a.External.URL != "http://127.0.0.1:9/verify" ||
		strings.Join(a.External.ResponseHeaders, ",") != "X-User,X-Email" {
		t.Fatalf("location auth = %+v", a)
	}
}
