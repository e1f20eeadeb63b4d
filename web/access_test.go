package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The server form puts access lists and limits on a location (policies), the
// config holds them, and a bad CIDR is shown next to its field.
func TestLocationAccessAndLimitsForm(t *testing.T) {
	rp := startRestyplane(t)
	_, port := upstream(t, "web")
	rp.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{map[string]any{"address": "127.0.0.1", "port": port}}})
	rp.must("POST", "/api/v1/servers", map[string]any{"name": "shop", "hostnames": []string{"shop.test"},
		"locations": []any{map[string]any{"path": "/", "backend": "web"}}})
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	setText := func(sel, v string) {
		evalJS[chromedp.Void](b, fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = %s; e.dispatchEvent(new Event('input', { bubbles: true })); })()`, js(sel), js(v)))
	}

	b.route("#/servers/shop/edit", tid("server-form"))
	evalJS[chromedp.Void](b, `document.querySelector('[data-testid="location-access"]').open = true`)
	setText(tid("location-access-allow"), "10.0.0.0/8\n2001:db8::/32, 127.0.0.1")
	setText(tid("location-access-deny"), "10.0.0.66")
	b.typeInto(tid("location-limit-rps"), "10")
	b.typeInto(tid("location-limit-burst"), "3")
	b.typeInto(tid("location-limit-connections"), "20")
	setText(tid("location-limit-exempt"), "10.1.0.0/16")
	b.typeInto(tid("location-limit-rate"), "100k")
	b.typeInto(tid("server-reason"), "protect the shop")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))
	var srv struct {
		Locations []struct {
			Access struct{ Allow, Deny []string }
			Limits struct {
				RPS, BurstMultiplier, Connections int
				Exempt                            []string
				Rate                              string
			}
		}
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/servers/shop", nil, &srv); code != 200 || len(srv.Locations) != 1 {
		t.Fatalf("GET server = %d %+v", code, srv)
	}
	l := srv.Locations[0]
	if strings.Join(l.Access.Allow, " ") != "10.0.0.0/8 2001:db8::/32 127.0.0.1" || strings.Join(l.Access.Deny, " ") != "10.0.0.66" ||
		l.Limits.RPS != 10 || l.Limits.BurstMultiplier != 3 || l.Limits.Connections != 20 ||
		strings.Join(l.Limits.Exempt, " ") != "10.1.0.0/16" || l.Limits.Rate != "100k" {
		t.Fatalf("location policy = %+v", l)
	}

	if got := b.text(tid("location-table")); !containsAll(got, "allow 3 address ranges", "deny 1 address range", "limit 10/s, 20 connections, 100kB/s per address") {
		t.Fatalf("location table = %q, want the policy summed up", got)
	}

	// The edit form shows what is stored; a CIDR with host bits is refused at its field.
	b.route("#/servers/shop/edit", tid("server-form"))
	if got := evalJS[string](b, fmt.Sprintf(`document.querySelector(%s).value`, js(tid("location-limit-rps")))); got != "10" {
		t.Fatalf("rps field = %q, want 10", got)
	}
	setText(tid("location-access-deny"), "10.0.0.66/8")
	b.typeInto(tid("server-reason"), "a typo")
	b.click(tid("form-submit"))
	b.waitVisible(tid("form-error"))
	if got := b.text(`.field-error:not([hidden])`); !strings.Contains(got, "10.0.0.0/8") {
		t.Fatalf("field error = %q, want it to suggest 10.0.0.0/8", got)
	}
}
