package web_test

import (
	"testing"
)

// On a 390-pixel phone every page fits the width and the menu works.
func TestPhoneLayoutFitsTheWidth(t *testing.T) {
	rp := startRestyplane(t)
	seedShop(rp)
	b := newBrowser(t, rp.API, 390, 844)
	b.signIn(adminSecret)
	if evalJS[bool](b, `document.getElementById('main-nav').getClientRects().length > 0`) {
		t.Fatal("the menu is open on a phone before it was asked for")
	}
	b.click(tid("nav-toggle"))
	b.waitVisible(tid("nav-backends"))
	if got := evalJS[string](b, `document.getElementById('nav-toggle').getAttribute('aria-expanded')`); got != "true" {
		t.Fatalf("menu button aria-expanded = %q after opening", got)
	}
	b.click(tid("nav-backends"))
	b.waitVisible(tid("backend-list"))
	pages := []struct{ hash, ready string }{
		{"#/", "overview"},
		{"#/backends", "backend-list"},
		{"#/backends/shop-api", "backend-detail"},
		{"#/backends/shop-api/edit", "backend-form"},
		{"#/servers", "server-list"},
		{"#/servers/shop", "server-detail"},
		{"#/servers/shop/edit", "server-form"},
		{"#/certificates", "certificate-list"},
		{"#/certificates/shop-tls", "certificate-detail"},
		{"#/history", "history"},
		{"#/history/6", "revision-detail"},
		{"#/diff?from=1&to=6", "diff-view"},
		{"#/audit", "audit-table"},
		{"#/tokens", "tokens"},
	}
	for _, p := range pages {
		b.route(p.hash, tid(p.ready))
		b.noHorizontalScroll(p.hash)
	}
	b.route("#/history", tid("history-list"))
	b.click(`[data-testid="revision"][data-revision="2"] [data-testid="revision-rollback"]`)
	b.waitVisible(tid("rollback-diff"))
	b.noHorizontalScroll("rollback dialog")
}
