package e2e

import (
	"strings"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// upstreamTLS is a backend's upstreamTLS as REST takes it.
func upstreamTLS(ca, serverName string, extra ...string) map[string]any {
	t := map[string]any{"verify": true, "caCertificate": ca, "serverName": serverName, "sni": true}
	for i := 0; i+1 < len(extra); i += 2 {
		t[extra[i]] = extra[i+1]
	}
	return t
}

func withProtocol(b map[string]any, protocol string, tls map[string]any) map[string]any {
	b["protocol"] = protocol
	if tls != nil {
		b["upstreamTLS"] = tls
	}
	return b
}

// checkUpstreams is what the upstream policies on host must show, however they were set:
// /secure reaches an HTTPS upstream whose certificate verifies against the CA, sending the
// location's Host and X-Forwarded-Prefix; a wrong CA or a name the certificate does not
// hold is refused by the proxy with 502.
func checkUpstreams(t *testing.T, in *instance, host, secure string, refused ...string) {
	t.Helper()
	resp, body := in.do(host, "/secure/x")
	if want := secure + " /secure/x host=api.internal prefix=/secure"; resp.StatusCode != 200 || !strings.HasPrefix(body, want) {
		t.Fatalf("verified HTTPS upstream: %d %q, want 200 %q", resp.StatusCode, body, want)
	}
	for _, path := range refused {
		if resp, body := in.do(host, path); resp.StatusCode != 502 {
			t.Fatalf("%s: %d %q, want 502 (the upstream's certificate must not verify)", path, resp.StatusCode, body)
		}
	}
}

func TestUpstreamProtocolsThroughREST(t *testing.T) {
	in := start(t)
	ca, other := newTestCA(t, "upstream ca"), newTestCA(t, "other ca")
	in.must("POST", "/api/v1/caCertificates", map[string]any{"name": "upstream-ca", "cert": ca.PEM})
	in.must("POST", "/api/v1/caCertificates", map[string]any{"name": "other-ca", "cert": other.PEM})
	_, clientCrt, clientKey := ca.issue(t, "proxy-client", true)
	in.must("POST", "/api/v1/certificates", map[string]any{"name": "proxy-client", "cert": clientCrt, "key": clientKey})

	secure := tlsUpstream(t, "secure", ca, "api.internal", nil)
	mtls := tlsUpstream(t, "mtls", ca, "api.internal", ca)
	in.must("POST", "/api/v1/backends", withProtocol(backend("secure", secure), "https", upstreamTLS("upstream-ca", "")))
	in.must("POST", "/api/v1/backends", withProtocol(backend("wrong-ca", secure), "https", upstreamTLS("other-ca", "api.internal")))
	in.must("POST", "/api/v1/backends", withProtocol(backend("wrong-name", secure), "https", upstreamTLS("upstream-ca", "other.internal")))
	in.must("POST", "/api/v1/backends", withProtocol(backend("mtls", mtls), "https", upstreamTLS("upstream-ca", "api.internal", "clientCertificate", "proxy-client")))
	in.must("POST", "/api/v1/backends", withProtocol(backend("mtls-anon", mtls), "https", upstreamTLS("upstream-ca", "api.internal")))
	in.must("POST", "/api/v1/backends", backend("plain", serveLoopback(t, headerEcho("plain"))))

	sec := location("/secure", "secure")
	sec["upstreamHost"], sec["forwardedPrefix"] = "api.internal", "/secure"
	plain := location("/plain", "plain")
	plain["upstreamHost"], plain["forwardedPrefix"] = "vhost.internal", "/shop"
	in.must("POST", "/api/v1/servers", server("up", "up.test", sec, location("/wrongca", "wrong-ca"),
		location("/wrongname", "wrong-name"), location("/mtls", "mtls"), location("/anon", "mtls-anon"), plain))
	in.waitSynced()
	checkUpstreams(t, in, "up.test", "secure", "/wrongca", "/wrongname", "/anon")
	resp, body := in.do("up.test", "/plain/y")
	if want := "plain /plain/y host=vhost.internal prefix=/shop client="; resp.StatusCode != 200 || body != want {
		t.Fatalf("plain upstream: %d %q, want %q", resp.StatusCode, body, want)
	}
	// Mutual TLS: the upstream that demands a client certificate gets the proxy's.
	resp, body = in.do("up.test", "/mtls/z")
	if want := "mtls /mtls/z host=up.test prefix= client=proxy-client"; resp.StatusCode != 200 || body != want {
		t.Fatalf("mTLS upstream: %d %q, want %q", resp.StatusCode, body, want)
	}

	// Bad input is refused naming the field, and changes nothing.
	for _, c := range []struct {
		path  string
		body  map[string]any
		field string
	}{
		{"/api/v1/backends", withProtocol(backend("bad"), "ajp", nil), "protocol"},
		{"/api/v1/backends", withProtocol(backend("bad"), "http", upstreamTLS("upstream-ca", "")), "upstreamTLS"},
		{"/api/v1/backends", withProtocol(backend("bad"), "https", upstreamTLS("", "")), "upstreamTLS.caCertificate"},
		{"/api/v1/backends", withProtocol(backend("bad"), "https", upstreamTLS("nope", "")), "upstreamTLS.caCertificate"},
		{"/api/v1/backends", withProtocol(backend("bad"), "https", upstreamTLS("upstream-ca", "a b")), "upstreamTLS.serverName"},
		{"/api/v1/servers", server("bad", "bad.test", map[string]any{"path": "/", "backend": "plain", "upstreamHost": "x;y"}), "locations[0].upstreamHost"},
		{"/api/v1/servers", server("bad", "bad.test", map[string]any{"path": "/", "backend": "plain", "forwardedPrefix": "/a b"}), "locations[0].forwardedPrefix"},
	} {
		var out struct{ Error struct{ Field string } }
		if code := in.call("POST", c.path, c.body, &out); code != 400 || out.Error.Field != c.field {
			t.Errorf("POST %v = %d %v, want 400 naming %s", c.body, code, out, c.field)
		}
	}
	if code := in.call("DELETE", "/api/v1/caCertificates/upstream-ca", nil, nil); code != 409 {
		t.Fatalf("deleting a CA bundle in use = %d, want 409", code)
	}

	// A protocol change on a live backend reloads: the plain HTTP upstream cannot answer
	// TLS, and answers again once the backend is plain HTTP again.
	plainEP := serveLoopback(t, headerEcho("plain2"))
	in.must("PUT", "/api/v1/backends/plain", withProtocol(backend("plain", plainEP), "https", nil))
	in.waitSynced()
	if resp, body := in.do("up.test", "/plain/y"); resp.StatusCode != 502 {
		t.Fatalf("plain upstream spoken to in TLS: %d %q, want 502", resp.StatusCode, body)
	}
	in.must("PUT", "/api/v1/backends/plain", backend("plain", plainEP))
	in.waitSynced()
	if resp, body := in.do("up.test", "/plain/y"); resp.StatusCode != 200 || !strings.HasPrefix(body, "plain2 ") {
		t.Fatalf("plain upstream again: %d %q", resp.StatusCode, body)
	}
	// Replacing a CA bundle's certificates reloads too: the upstream no longer verifies.
	in.must("PUT", "/api/v1/caCertificates/upstream-ca", map[string]any{"name": "upstream-ca", "cert": other.PEM})
	in.waitSynced()
	if resp, body := in.do("up.test", "/secure/x"); resp.StatusCode != 502 {
		t.Fatalf("after the CA bundle changed: %d %q, want 502", resp.StatusCode, body)
	}
}

func TestGRPCUpstreamsThroughREST(t *testing.T) {
	in := start(t)
	ca := newTestCA(t, "grpc ca")
	in.must("POST", "/api/v1/caCertificates", map[string]any{"name": "grpc-ca", "cert": ca.PEM})
	crt, key := selfSigned(t, "grpc.test", 7)
	in.must("POST", "/api/v1/certificates", map[string]any{"name": "grpc-front", "cert": crt, "key": key})
	in.must("POST", "/api/v1/backends", withProtocol(backend("h2c", grpcUpstream(t, "plain", nil, "")), "grpc", nil))
	in.must("POST", "/api/v1/backends", withProtocol(backend("grpcs", grpcUpstream(t, "secure", ca, "grpc.internal")), "grpcs",
		upstreamTLS("grpc-ca", "grpc.internal")))
	for _, s := range []struct{ name, host, backend string }{{"h2c", "h2c.grpc.test", "h2c"}, {"grpcs", "tls.grpc.test", "grpcs"}} {
		srv := server(s.name, s.host, location("/", s.backend))
		srv["tls"] = map[string]any{"certificate": "grpc-front"}
		in.must("POST", "/api/v1/servers", srv)
	}
	in.waitSynced()
	for _, c := range []struct{ host, service string }{{"h2c.grpc.test", "plain"}, {"tls.grpc.test", "secure"}} {
		st, err := grpcHealth(t, in.TLS, c.host, c.service)
		if err != nil || st != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("gRPC health of %q through %s: %v %v, want SERVING", c.service, c.host, st, err)
		}
	}
	// The other server's service is unknown there: each call reached its own upstream.
	if _, err := grpcHealth(t, in.TLS, "h2c.grpc.test", "secure"); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Fatalf("h2c upstream asked for the grpcs one's service: %v, want NotFound", err)
	}
}
