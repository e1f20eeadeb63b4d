package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A certificate uploaded through the form shows its subject, names and expiry, and the key
// appears nowhere afterwards.
func TestCertificateUploadNeverShowsTheKey(t *testing.T) {
	rp := startRestyplane(t)
	cert, key := selfSigned(t, "shop.test", "www.shop.test")
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	b.route("#/certificates", tid("certificate-list"))
	b.click(tid("new-certificate"))
	b.waitVisible(tid("certificate-form"))
	b.typeInto(tid("certificate-name"), "shop-tls")
	// Pasting a PEM block is one input event, as a paste is.
	for sel, v := range map[string]string{tid("certificate-cert"): cert, tid("certificate-key"): key} {
		evalJS[chromedp.Void](b, fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = %s; e.dispatchEvent(new Event('input', { bubbles: true })); })()`, js(sel), js(v)))
	}
	b.typeInto(tid("certificate-reason"), "certificate for shop.test")
	b.click(tid("form-submit"))
	b.waitVisible(tid("certificate-detail"))
	if got := b.text(tid("certificate-subject")); !strings.Contains(got, "CN=shop.test") {
		t.Fatalf("subject = %q", got)
	}
	if got := b.text(tid("certificate-names")); !containsAll(got, "shop.test", "www.shop.test") {
		t.Fatalf("names = %q", got)
	}
	if got := b.text(tid("certificate-expiry")); !strings.Contains(got, "valid") {
		t.Fatalf("expiry badge = %q", got)
	}
	keyBody := strings.Split(strings.TrimSpace(key), "\n")[1]
	for _, p := range []struct{ hash, ready string }{
		{"", "certificate-detail"}, // where the upload landed
		{"#/certificates", "certificate-list"},
		{"#/certificates/shop-tls/edit", "certificate-form"},
		{"#/history/1", "revision-detail"},
		{"#/diff?from=0&to=1", "diff-view"},
	} {
		if p.hash != "" {
			b.route(p.hash, tid(p.ready))
		}
		hash := p.hash
		page := evalJS[string](b, `document.body.innerText + [...document.querySelectorAll('input, textarea')].map((e) => e.value).join()`)
		if strings.Contains(page, "PRIVATE KEY") || strings.Contains(page, keyBody) {
			t.Fatalf("%s shows the private key", hash)
		}
	}
}
