package web_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func caPEM(t *testing.T) string {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "shop internal ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// A CA bundle made through its form shows its subject; the backend form sets the
// protocol and upstream TLS naming it, and the server form a location's upstream host and
// X-Forwarded-Prefix (policies).
func TestCACertificateAndUpstreamForms(t *testing.T) {
	rp := startRestyplane(t)
	_, port := upstream(t, "web")
	rp.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{map[string]any{"address": "127.0.0.1", "port": port}}})
	rp.must("POST", "/api/v1/servers", map[string]any{"name": "shop", "hostnames": []string{"shop.test"},
		"locations": []any{map[string]any{"path": "/", "backend": "web"}}})
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	b.route("#/caCertificates", tid("ca-list"))
	b.click(tid("new-ca"))
	b.waitVisible(tid("ca-form"))
	b.typeInto(tid("ca-name"), "internal")
	evalJS[chromedp.Void](b, fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = %s; e.dispatchEvent(new Event('input', { bubbles: true })); })()`,
		js(tid("ca-cert")), js(caPEM(t))))
	b.typeInto(tid("ca-reason"), "the shop's CA")
	b.click(tid("form-submit"))
	b.waitVisible(tid("ca-detail"))
	if got := b.text(tid("ca-subjects")); !strings.Contains(got, "shop internal ca") {
		t.Fatalf("subjects = %q", got)
	}

	b.route("#/backends/web/edit", tid("backend-form"))
	b.choose(tid("backend-protocol"), "https")
	b.click(tid("upstream-verify"))
	b.choose(tid("upstream-ca"), "internal")
	b.typeInto(tid("upstream-server-name"), "api.internal")
	b.typeInto(tid("backend-reason"), "speak TLS to the shop")
	b.click(tid("form-submit"))
	b.waitVisible(tid("backend-detail"))
	var be struct {
		Protocol    string
		UpstreamTLS struct {
			Verify                    bool
			CACertificate, ServerName string
		}
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/backends/web", nil, &be); code != 200 || be.Protocol != "https" ||
		!be.UpstreamTLS.Verify || be.UpstreamTLS.CACertificate != "internal" || be.UpstreamTLS.ServerName != "api.internal" {
		t.Fatalf("GET backend = %d %+v", code, be)
	}
	b.route("#/caCertificates/internal", tid("ca-detail"))
	if got := b.text(tid("ca-uses")); !strings.Contains(got, "web") {
		t.Fatalf("used by = %q", got)
	}

	b.route("#/servers/shop/edit", tid("server-form"))
	evalJS[chromedp.Void](b, `document.querySelector('[data-testid="location-upstream"]').open = true`)
	b.typeInto(tid("location-upstream-host"), "api.internal")
	b.typeInto(tid("location-forwarded-prefix"), "/shop")
	b.typeInto(tid("server-reason"), "the upstream's own host")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))
	var srv struct {
		Locations []struct{ UpstreamHost, ForwardedPrefix string }
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/servers/shop", nil, &srv); code != 200 || len(srv.Locations) != 1 ||
		srv.Locations[0].UpstreamHost != "api.internal" || srv.Locations[0].ForwardedPrefix != "/shop" {
		t.Fatalf("GET server = %d %+v", code, srv)
	}
}
