package web_test

import (
	"path/filepath"
	"testing"
)

func TestZZTour(t *testing.T) {
	rp := startRestyplane(t)
	seedShop(rp)
	dir := "/tmp/tour"
	for _, w := range []int{1280, 390} {
		b := newBrowser(t, rp.url, w, 860)
		b.signIn(adminSecret)
		pages := []struct{ name, hash, ready string }{
			{"backends", "#/backends", "backend-list"},
			{"backend", "#/backends/shop-api", "backend-detail"},
			{"backend-edit", "#/backends/shop-api/edit", "backend-form"},
			{"servers", "#/servers", "server-list"},
			{"server", "#/servers/shop", "server-detail"},
			{"server-edit", "#/servers/shop/edit", "server-form"},
			{"certs", "#/certificates", "certificate-list"},
			{"cert", "#/certificates/shop-tls", "certificate-detail"},
			{"history", "#/history", "history"},
			{"revision", "#/history/6", "revision-detail"},
			{"audit", "#/audit", "audit-table"},
			{"tokens", "#/tokens", "tokens"},
		}
		for _, p := range pages {
			b.route(p.hash, tid(p.ready))
			evalJS[bool](b, `(document.querySelectorAll('.notice').forEach((n) => { n.hidden = true; }), true)`)
			b.screenshot(filepath.Join(dir, p.name+"-"+itoa(w)+".png"), p.name)
		}
		b.route("#/backends/new", tid("backend-form"))
		b.typeInto(tid("backend-name"), "x")
		b.typeInto(field("endpoints[0].address"), "10.0.0.1")
		b.typeInto(field("endpoints[0].port"), "70000")
		b.typeInto(tid("backend-reason"), "fail")
		b.click(tid("form-submit"))
		b.waitVisible(`.field-error[data-error-for="endpoints[0].port"]`)
		b.screenshot(filepath.Join(dir, "form-error-"+itoa(w)+".png"), "form error")
		b.route("#/history", tid("history-list"))
		b.click(`[data-testid="revision"][data-revision="2"] [data-testid="revision-rollback"]`)
		b.waitVisible(tid("rollback-diff"))
		evalJS[bool](b, `(document.querySelectorAll('.notice').forEach((n) => { n.hidden = true; }), true)`)
		b.screenshot(filepath.Join(dir, "rollback-"+itoa(w)+".png"), "rollback")
	}
}

func itoa(i int) string { return filepath.Base(string(rune('0'+i/1000)) + string(rune('0'+i/100%10)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))) }
