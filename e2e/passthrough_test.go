package e2e

import (
	"crypto/x509"
	"strings"
	"testing"
)

// TestPassthroughThroughREST: a server with passthrough hands its TLS connections,
// untouched, to its backend: the client's TLS session is with the backend, which presents
// its own certificate (verified here against the backend's CA) and answers itself, while
// a server that terminates TLS on the same port is still served with its certificate.
// A new endpoint of the passthrough backend takes the next connection. Bad passthroughs
// are answered 400 or 409 naming the field.
func TestPassthroughThroughREST(t *testing.T) {
	in := start(t)
	ca := newTestCA(t, "argocd ca")
	crt, key := selfSigned(t, "shop.test", 11)
	in.must("POST", "/api/v1/certificates", map[string]any{"name": "shop-tls", "cert": crt, "key": key})
	in.must("POST", "/api/v1/backends", backend("web", serveLoopback(t, headerEcho("web"))))
	in.must("POST", "/api/v1/backends", backend("argocd", tlsUpstream(t, "argocd", ca, "argocd.test", nil)))
	shop := server("shop", "shop.test", location("/", "web"))
	shop["tls"] = map[string]any{"certificate": "shop-tls"}
	in.must("POST", "/api/v1/servers", shop)
	cd := server("argocd", "argocd.test", location("/", "web"))
	cd["passthrough"] = map[string]any{"backend": "argocd"}
	in.must("POST", "/api/v1/servers", cd)
	in.waitSynced()

	through := func(sni, want string) *x509.Certificate {
		t.Helper()
		resp, body := tlsClient{addr: in.TLS, sni: sni}.get(t, sni, "/x")
		if resp.StatusCode != 200 || !strings.HasPrefix(body, want+" /x ") || resp.TLS == nil {
			t.Fatalf("GET https://%s/x: %d %q, want 200 from %s", sni, resp.StatusCode, body, want)
		}
		return resp.TLS.PeerCertificates[0]
	}
	verify := func(leaf *x509.Certificate) error {
		_, err := leaf.Verify(x509.VerifyOptions{DNSName: "argocd.test", Roots: ca.pool})
		return err
	}
	if err := verify(through("argocd.test", "argocd")); err != nil {
		t.Fatalf("passthrough: the client's session is not with the backend: %v", err)
	}
	if leaf := through("shop.test", "web"); leaf.Subject.CommonName != "shop.test" || verify(leaf) == nil {
		t.Fatalf("terminated beside passthrough: certificate %q, want the proxy's shop.test", leaf.Subject.CommonName)
	}
	// Plain HTTP for the passthrough host is served by its locations.
	in.wantFrom("argocd.test", "/y", "web")

	// The stream proxy's endpoints are in nginx.conf: a new one applies by a reload.
	in.must("PUT", "/api/v1/backends/argocd", backend("argocd", tlsUpstream(t, "argocd-2", ca, "argocd.test", nil)))
	in.waitSynced()
	if err := verify(through("argocd.test", "argocd-2")); err != nil {
		t.Fatalf("passthrough after the endpoint change: %v", err)
	}

	for _, c := range []struct {
		method, path string
		body         map[string]any
		code         int
		field        string
	}{
		{"POST", "/api/v1/servers", map[string]any{"name": "bad", "hostnames": []string{"bad.test"}, "locations": []any{},
			"passthrough": map[string]any{"backend": "argocd"}, "tls": map[string]any{"certificate": "shop-tls"}}, 400, "passthrough"},
		{"POST", "/api/v1/servers", map[string]any{"name": "bad", "hostnames": []string{"bad.test"}, "locations": []any{},
			"passthrough": map[string]any{"backend": "nope"}}, 400, "passthrough.backend"},
		{"POST", "/api/v1/servers", map[string]any{"name": "bad", "hostnames": []string{"bad.test"}, "locations": []any{},
			"passthrough": map[string]any{"backend": "a;b"}}, 400, "passthrough.backend"},
		{"POST", "/api/v1/servers", map[string]any{"name": "bad", "hostnames": []string{"_"}, "locations": []any{},
			"passthrough": map[string]any{"backend": "argocd"}}, 400, "hostnames[0]"},
		// A terminating server may not take a passthrough hostname.
		{"POST", "/api/v1/servers", map[string]any{"name": "bad", "hostnames": []string{"argocd.test"}, "tls": map[string]any{"certificate": "shop-tls"},
			"locations": []any{location("/bad", "web")}}, 409, "passthrough"},
	} {
		var out struct{ Error struct{ Field string } }
		if code := in.call(c.method, c.path, c.body, &out); code != c.code || out.Error.Field != c.field {
			t.Errorf("%s %s %v = %d %v, want %d naming %s", c.method, c.path, c.body, code, out, c.code, c.field)
		}
	}
	if code := in.call("DELETE", "/api/v1/backends/argocd", nil, nil); code != 409 {
		t.Fatalf("deleting the passthrough backend = %d, want 409", code)
	}
}
