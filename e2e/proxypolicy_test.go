package e2e

import (
	"strings"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// TestProxyPoliciesThroughREST: a body limit, retries on another endpoint, an error
// backend for intercepted codes, a regex location and a second hostname, set through
// REST, behave as they must through the real nginx and real upstreams (policies).
func TestProxyPoliciesThroughREST(t *testing.T) {
	in := start(t)
	web, _ := proxyPolicyUpstream(t, "web")
	fail, failHits := proxyPolicyUpstream(t, "fail")
	pages, _ := proxyPolicyUpstream(t, "pages")
	in.must("POST", "/api/v1/backends", backend("web", web))
	in.must("POST", "/api/v1/backends", backend("flaky", fail, web))
	in.must("POST", "/api/v1/backends", backend("pages", pages))

	upload := location("/upload", "web")
	upload["proxy"] = map[string]any{"bodySize": "1k", "clientBodyBufferSize": "16k", "buffering": "off",
		"bufferSize": "8k", "buffersNumber": 4, "requestBuffering": "on", "maxTempFileSize": "1m"}
	retry := location("/retry", "flaky")
	retry["retry"] = map[string]any{"nextUpstream": []string{"error", "timeout", "http_503"}, "tries": 2, "timeout": "10s"}
	noretry := location("/noretry", "flaky")
	noretry["retry"] = map[string]any{"nextUpstream": []string{"error", "timeout", "http_503"}, "tries": 1}
	errs := location("/err", "web")
	errs["errors"] = map[string]any{"codes": []int{404, 503}, "backend": "pages",
		"origin": map[string]any{"namespace": "shop", "ingress": "shop-web", "service": "web", "servicePort": "80"}}
	re := map[string]any{"path": "^/re/[0-9]+$", "match": "regex", "backend": "web"}
	srv := server("shop", "shop.test", upload, retry, noretry, errs, re)
	srv["hostnames"] = []string{"shop.test", "alias.test"}
	in.must("POST", "/api/v1/servers", srv)
	in.waitSynced()

	checkBodySize(t, in, "shop.test", "web")
	checkRetry(t, in, "shop.test", "web", failHits.Load)
	checkErrorPage(t, in, "shop.test", "web", "pages", "namespace=shop ingress=shop-web service=web port=80")
	checkRegex(t, in, "shop.test", "web")
	in.wantFrom("alias.test", "/re/1", "web")

	// A bad value is a 400 naming the field, and nothing changes.
	bad := location("/bad", "web")
	bad["retry"] = map[string]any{"nextUpstream": []string{"error", "http_418"}}
	code, raw, _ := in.Call(adminToken, "PUT", "/api/v1/servers/shop", server("shop", "shop.test", bad), nil)
	if code != 400 || !strings.Contains(string(raw), "locations[0].retry.nextUpstream[1]") {
		t.Fatalf("bad nextUpstream: %d %s, want 400 naming locations[0].retry.nextUpstream[1]", code, raw)
	}
	in.wantFrom("shop.test", "/re/2", "web")
}

// TestProxyPoliciesOnGRPCLocation: a gRPC location takes the body size, retry and error
// page policies (grpc_* directives, an HTTP error backend): nginx accepts the conf and
// gRPC calls still go through.
func TestProxyPoliciesOnGRPCLocation(t *testing.T) {
	in := start(t)
	crt, key := selfSigned(t, "grpc.test", 7)
	in.must("POST", "/api/v1/certificates", map[string]any{"name": "grpc-front", "cert": crt, "key": key})
	in.must("POST", "/api/v1/backends", withProtocol(backend("h2c", grpcUpstream(t, "plain", nil, "")), "grpc", nil))
	pages, _ := proxyPolicyUpstream(t, "pages")
	in.must("POST", "/api/v1/backends", backend("pages", pages))
	loc := location("/", "h2c")
	loc["proxy"] = map[string]any{"bodySize": "1m"}
	loc["retry"] = map[string]any{"nextUpstream": []string{"error", "timeout"}, "tries": 2}
	loc["errors"] = map[string]any{"codes": []int{502}, "backend": "pages"}
	srv := server("h2c", "h2c.grpc.test", loc)
	srv["tls"] = map[string]any{"certificate": "grpc-front"}
	in.must("POST", "/api/v1/servers", srv)
	in.waitSynced()
	if st, err := grpcHealth(t, in.TLS, "h2c.grpc.test", "plain"); err != nil || st != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("gRPC health through a location with policies: %v %v, want SERVING", st, err)
	}
}
