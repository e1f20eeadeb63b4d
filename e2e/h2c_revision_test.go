package e2e

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// TestH2CRouterBesidePassthroughAcrossRevisions: the h2c router and TLS passthrough's
// router share nginx's stream block. With the router on (the catch-all passes to a gRPC
// backend, as an Ingress without a host does), a later revision that adds a passthrough
// server and many servers by hostname, as the real-Ingress corpus does at once, goes live:
// each Host reaches its own server, not the catch-all, the passthrough host its backend,
// and gRPC still answers over h2c on the plain port. The revision after it takes the
// router away again and every Host still reaches its server.
func TestH2CRouterBesidePassthroughAcrossRevisions(t *testing.T) {
	in := start(t)
	hs := health.NewServer()
	in.must("POST", "/api/v1/backends", withProtocol(backend("rpc", grpcServe(t, hs)), "grpc", nil))
	in.must("POST", "/api/v1/backends", backend("catchall", newUpstream(t, "catchall", 200, 0).endpoint(1)))
	in.must("POST", "/api/v1/servers", map[string]any{"name": "catchall", "hostnames": []string{"_"},
		"locations": []map[string]any{location("/grpc.health.v1.Health", "rpc"), location("/", "catchall")}})
	in.waitSynced()
	in.wantFrom("nobody.test", "/", "catchall")
	grpcHealthH2C(t, in, "any.test")

	// One revision: a passthrough server and many servers by hostname.
	ca := newTestCA(t, "passthrough ca")
	in.must("POST", "/api/v1/backends", backend("tlsapp", tlsUpstream(t, "tlsapp", ca, "tlsapp.test", nil)))
	pt := server("tlsapp", "tlsapp.test", location("/", "catchall"))
	pt["passthrough"] = map[string]any{"backend": "tlsapp"}
	const n = 30
	var objs []func()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("web%d", i)
		u := newUpstream(t, name, 200, 0)
		objs = append(objs, func() {
			in.must("POST", "/api/v1/backends", backend(name, u.endpoint(1)))
			in.must("POST", "/api/v1/servers", server(name, name+".test", location("/", name)))
		})
	}
	in.must("POST", "/api/v1/servers", pt)
	for _, create := range objs {
		create()
	}
	in.waitSynced()
	hostsReachTheirServers := func(when string) {
		t.Helper()
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("web%d", i)
			if code, body := in.get(name+".test", "/"); code != 200 || !strings.HasPrefix(body, name+" ") {
				t.Fatalf("%s: GET %s.test/ = %d %q, want 200 from %s", when, name, code, body, name)
			}
		}
		in.wantFrom("nobody.test", "/", "catchall")
		resp, body := tlsClient{addr: in.TLS, sni: "tlsapp.test"}.get(t, "tlsapp.test", "/x")
		if resp.StatusCode != 200 || !strings.HasPrefix(body, "tlsapp /x ") {
			t.Fatalf("%s: passthrough GET https://tlsapp.test/x = %d %q, want 200 from tlsapp", when, resp.StatusCode, body)
		}
	}
	hostsReachTheirServers("with the h2c router and passthrough")
	grpcHealthH2C(t, in, "any.test")

	// The router goes: no server passes to gRPC any more.
	in.must("PUT", "/api/v1/servers/catchall", map[string]any{"name": "catchall", "hostnames": []string{"_"},
		"locations": []map[string]any{location("/", "catchall")}})
	in.waitSynced()
	hostsReachTheirServers("after the h2c router went")
}

// grpcHealthH2C makes a gRPC health check over cleartext HTTP/2 with prior knowledge on
// the proxy's plain port, with authority host, and fails unless it answers SERVING.
func grpcHealthH2C(t *testing.T, in *instance, host string) {
	t.Helper()
	st, err := grpcHealthPlain(t, strings.TrimPrefix(in.Proxy, "http://"), host, "")
	if err != nil || st != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("gRPC health over h2c on the plain port (authority %s): %v %v, want SERVING", host, st, err)
	}
}
