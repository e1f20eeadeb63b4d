package web_test

import (
	"testing"
)

// The server form sets client certificate verification on a TLS server, and the server's
// page shows it (policies).
func TestServerFormClientTLS(t *testing.T) {
	rp := startRestyplane(t)
	_, port := upstream(t, "web")
	rp.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{map[string]any{"address": "127.0.0.1", "port": port}}})
	crt, key := selfSigned(t, "shop.test")
	rp.must("POST", "/api/v1/certificates", map[string]any{"name": "shop", "cert": crt, "key": key})
	rp.must("POST", "/api/v1/caCertificates", map[string]any{"name": "clients", "cert": caPEM(t)})
	rp.must("POST", "/api/v1/servers", map[string]any{"name": "shop", "hostnames": []string{"shop.test"},
		"tls": map[string]any{"certificate": "shop"}, "locations": []any{map[string]any{"path": "/", "backend": "web"}}})
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	b.route("#/servers/shop/edit", tid("server-form"))
	b.waitVisible(tid("server-clienttls-ca"))
	b.choose(tid("server-clienttls-ca"), "clients")
	b.waitVisible(tid("server-clienttls-verify"))
	b.choose(tid("server-clienttls-verify"), "optional")
	b.typeInto(tid("server-clienttls-errorpage"), "https://certs.test/needed")
	b.click(tid("server-clienttls-pass"))
	b.typeInto(tid("server-reason"), "verify shop clients")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))
	if got := b.text(tid("server-clienttls-summary")); !containsAll(got, "clients", "verify optional", "depth 1", "https://certs.test/needed", "passed upstream") {
		t.Fatalf("client certificates on the server page = %q", got)
	}
	var srv struct {
		ClientTLS struct {
			CACertificate, Verify, ErrorPage string
			Depth                            int
			PassCertificateToUpstream        bool
		}
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/servers/shop", nil, &srv); code != 200 {
		t.Fatalf("GET server = %d", code)
	}
	if c := srv.ClientTLS; c.CACertificate != "clients" || c.Verify != "optional" || c.Depth != 1 || c.ErrorPage != "https://certs.test/needed" || !c.PassCertificateToUpstream {
		t.Fatalf("clientTLS = %+v", c)
	}

	// Choosing no CA takes client verification off again.
	b.route("#/servers/shop/edit", tid("server-form"))
	b.waitVisible(tid("server-clienttls-ca"))
	b.choose(tid("server-clienttls-ca"), "")
	b.typeInto(tid("server-reason"), "stop verifying")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))
	if got := b.text(tid("server-detail")); !containsAll(got, "not asked for") {
		t.Fatalf("after removing the CA the server page says %q", got)
	}
}
