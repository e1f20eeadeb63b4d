package e2e

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
)

// clientTLSCase is what client certificate verification must show on one proxy, however
// it was set: hosts names the strict (verify on, certificate passed upstream), optional,
// error-page and open servers, which share one server certificate.
type clientTLSCase struct {
	upstream                string
	strict, opt, page, open string
	good, wrong             tls.Certificate
	goodCN, caCN, errorPage string
}

// checkClientTLS drives a real Go TLS client through the proxy's HTTPS listener.
func checkClientTLS(t *testing.T, in *instance, c clientTLSCase) {
	t.Helper()
	with := func(sni string, cert *tls.Certificate) tlsClient {
		return tlsClient{addr: in.TLS, sni: sni, cert: cert}
	}
	up := c.upstream + " "

	// A verified client reaches the upstream, which sees the certificate and the outcome.
	resp, body := with(c.strict, &c.good).get(t, c.strict, "/x")
	want := fmt.Sprintf(`%s verify="SUCCESS" subject="CN=%s,O=restyplane tests" issuer="CN=%s" cert=%s`, c.upstream, c.goodCN, c.caCN, c.goodCN)
	if resp.StatusCode != 200 || body != want {
		t.Fatalf("verified client: %d %q, want 200 %q", resp.StatusCode, body, want)
	}
	// No certificate, or one of another CA: 400, and the upstream never sees the request.
	for name, cert := range map[string]*tls.Certificate{"no certificate": nil, "another CA's certificate": &c.wrong} {
		resp, body := with(c.strict, cert).get(t, c.strict, "/x")
		if resp.StatusCode != 400 || strings.HasPrefix(body, up) {
			t.Fatalf("%s on verify on: %d %q, want 400", name, resp.StatusCode, body)
		}
		// With an error page, the same requests are redirected to it.
		resp, body = with(c.page, cert).get(t, c.page, "/x")
		if resp.StatusCode != 302 || resp.Header.Get("Location") != c.errorPage {
			t.Fatalf("%s with an error page: %d Location %q %q, want 302 to %s", name, resp.StatusCode, resp.Header.Get("Location"), body, c.errorPage)
		}
	}
	if resp, body := with(c.page, &c.good).get(t, c.page, "/x"); resp.StatusCode != 200 || !strings.HasPrefix(body, up) {
		t.Fatalf("verified client on the error-page server: %d %q", resp.StatusCode, body)
	}

	// optional: no certificate passes, and says so; a certificate is still verified.
	resp, body = with(c.opt, nil).get(t, c.opt, "/x", "ssl-client-verify", "SUCCESS", "ssl-client-cert", "forged")
	if want := c.upstream + ` verify="NONE" subject="" issuer="" cert=-`; resp.StatusCode != 200 || body != want {
		t.Fatalf("optional, no certificate, forged headers: %d %q, want 200 %q", resp.StatusCode, body, want)
	}
	if resp, body := with(c.opt, &c.good).get(t, c.opt, "/x"); resp.StatusCode != 200 || !strings.Contains(body, `verify="SUCCESS"`) || !strings.HasSuffix(body, "cert=-") {
		t.Fatalf("optional, verified (certificate not passed): %d %q", resp.StatusCode, body)
	}
	if resp, body := with(c.opt, &c.wrong).get(t, c.opt, "/x"); resp.StatusCode != 400 || strings.HasPrefix(body, up) {
		t.Fatalf("optional, another CA's certificate: %d %q, want 400", resp.StatusCode, body)
	}

	// The open server shares the certificate and asks for nothing.
	if resp, body := with(c.open, nil).get(t, c.open, "/x"); resp.StatusCode != 200 || !strings.HasPrefix(body, up) {
		t.Fatalf("open server: %d %q", resp.StatusCode, body)
	}
	checkClientTLSServerNames(t, in, c)
	// Plain HTTP would skip the handshake, so it is sent to HTTPS.
	if resp, _ := in.do(c.strict, "/x"); resp.StatusCode != 308 || !strings.HasPrefix(resp.Header.Get("Location"), "https://"+c.strict) {
		t.Fatalf("plain HTTP to the strict server: %d %q, want 308 to https", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// checkClientTLSServerNames: nginx chooses the server block, and so the verification, by
// SNI. The servers share a certificate, and no way of naming them skips the strict one's
// verification: SNI of the open server with the strict Host, no SNI at all, or a session
// of the open server resumed on the strict one.
func checkClientTLSServerNames(t *testing.T, in *instance, c clientTLSCase) {
	t.Helper()
	up := c.upstream + " "
	resp, body := tlsClient{addr: in.TLS, sni: c.open}.get(t, c.strict, "/x")
	if resp.StatusCode != 421 || strings.HasPrefix(body, up) {
		t.Fatalf("SNI %s, Host %s, no certificate: %d %q, want 421", c.open, c.strict, resp.StatusCode, body)
	}
	resp, body = tlsClient{addr: in.TLS}.get(t, c.strict, "/x")
	if resp.StatusCode != 400 || strings.HasPrefix(body, up) {
		t.Fatalf("no SNI, Host %s, no certificate: %d %q, want 400", c.strict, resp.StatusCode, body)
	}
	sticky := &stickySessions{}
	if resp, _ := (tlsClient{addr: in.TLS, sni: c.open, cache: sticky}).get(t, c.open, "/x"); resp.StatusCode != 200 {
		t.Fatalf("open server for a session: %d", resp.StatusCode)
	}
	if sticky.last.Load() == nil {
		t.Fatalf("the open server gave no session to resume")
	}
	// OpenSSL refuses the handshake (the session belongs to another context); a full
	// handshake without a certificate would be a 400. Either way, no upstream.
	resp, body, err := tlsClient{addr: in.TLS, sni: c.strict, cache: sticky}.try(c.strict, "/x")
	var alert *net.OpError // a TLS alert from the server is a "remote error"
	switch {
	case err != nil && !(errors.As(err, &alert) && alert.Op == "remote error"):
		t.Fatalf("the open server's session offered to %s: %v, want a TLS alert or 400", c.strict, err)
	case err == nil && (resp.StatusCode != 400 || strings.HasPrefix(body, up)):
		t.Fatalf("the open server's session offered to %s: %d %q, want 400", c.strict, resp.StatusCode, body)
	}
}

func TestClientCertificatesThroughREST(t *testing.T) {
	in := start(t)
	clients, other, servers := newCertAuthority(t, "Clients CA"), newCertAuthority(t, "Other CA"), newCertAuthority(t, "Servers CA")
	good, _, _ := clients.sign(t, "alice")
	wrong, _, _ := other.sign(t, "alice")
	_, crt, key := servers.sign(t, "proxy", "strict.test", "opt.test", "page.test", "open.test")
	in.must("POST", "/api/v1/backends", backend("web", certEcho(t, "web")))
	in.must("POST", "/api/v1/certificates", map[string]any{"name": "shared", "cert": crt, "key": key})
	in.must("POST", "/api/v1/caCertificates", map[string]any{"name": "clients", "cert": clients.PEM})
	add := func(name string, clientTLS map[string]any) {
		srv := server(name, name+".test", location("/", "web"))
		srv["tls"] = map[string]any{"certificate": "shared"}
		if clientTLS != nil {
			clientTLS["caCertificate"] = "clients"
			srv["clientTLS"] = clientTLS
		}
		in.must("POST", "/api/v1/servers", srv)
	}
	add("strict", map[string]any{"passCertificateToUpstream": true})
	add("opt", map[string]any{"verify": "optional"})
	add("page", map[string]any{"verify": "on", "errorPage": "https://certs.test/needed?from=proxy"})
	add("open", nil)
	in.waitSynced()
	checkClientTLS(t, in, clientTLSCase{upstream: "web", strict: "strict.test", opt: "opt.test", page: "page.test",
		open: "open.test", good: good, wrong: wrong, goodCN: "alice", caCN: "Clients CA",
		errorPage: "https://certs.test/needed?from=proxy"})

	// Depth counts the intermediate CAs between a client's certificate and the CA, as
	// OpenSSL's verify depth does: two intermediates, sent with the certificate, are
	// refused at depth 1 (strict) and verified at depth 2.
	mid := clients.intermediate(t, "Clients Intermediate")
	mid2 := mid.intermediate(t, "Clients Team CA")
	leaf, _, _ := mid2.sign(t, "bob")
	leaf.Certificate = append(leaf.Certificate, mid2.cert.Raw, mid.cert.Raw)
	add("deep", map[string]any{"depth": 2})
	in.waitSynced()
	if resp, body := (tlsClient{addr: in.TLS, sni: "strict.test", cert: &leaf}).get(t, "strict.test", "/x"); resp.StatusCode != 400 {
		t.Fatalf("a two-deep chain at depth 1: %d %q, want 400", resp.StatusCode, body)
	}
	if resp, body := (tlsClient{addr: in.TLS, sni: "deep.test", cert: &leaf}).get(t, "deep.test", "/x"); resp.StatusCode != 200 || !strings.Contains(body, `verify="SUCCESS" subject="CN=bob`) {
		t.Fatalf("a two-deep chain at depth 2: %d %q, want 200 and SUCCESS", resp.StatusCode, body)
	}

	// Bad input is a 400 naming the field, and changes nothing.
	for field, clientTLS := range map[string]map[string]any{
		"clientTLS.verify":        {"caCertificate": "clients", "verify": "sometimes"},
		"clientTLS.depth":         {"caCertificate": "clients", "depth": 11},
		"clientTLS.errorPage":     {"caCertificate": "clients", "errorPage": "https://x.test/$host"},
		"clientTLS.caCertificate": {"caCertificate": "missing"},
	} {
		srv := server("bad", "bad.test", location("/", "web"))
		srv["tls"] = map[string]any{"certificate": "shared"}
		srv["clientTLS"] = clientTLS
		out := map[string]any{}
		if code := in.call("POST", "/api/v1/servers", srv, &out); code != 400 || !strings.Contains(fmt.Sprint(out), field) {
			t.Errorf("clientTLS %v: %d %v, want 400 naming %s", clientTLS, code, out, field)
		}
	}
	// A server that shares a hostname must verify the same way.
	srv := server("strict-api", "strict.test", location("/api", "web"))
	srv["tls"] = map[string]any{"certificate": "shared"}
	out := map[string]any{}
	if code := in.call("POST", "/api/v1/servers", srv, &out); code != 409 || !strings.Contains(fmt.Sprint(out), "clientTLS") {
		t.Errorf("server sharing strict.test without clientTLS: %d %v, want 409 naming clientTLS", code, out)
	}
	// A CA in use is not deleted.
	if code := in.call("DELETE", "/api/v1/caCertificates/clients", nil, &out); code != 409 {
		t.Errorf("DELETE a CA in use: %d %v, want 409", code, out)
	}
}
