package reconciler

import (
	"testing"

	"k8s.io/client-go/rest"
)

// TestStatusClientRateLimiter: the Gateway API status writes have a token bucket of their
// own (statusQPS), apart from the reconciler's client, so that neither waits behind the
// other; a configuration that turns client-side limits off (a negative QPS) turns theirs
// off too.
func TestStatusClientRateLimiter(t *testing.T) {
	c, err := newClients(&rest.Config{Host: "https://127.0.0.1:6443", QPS: 50, Burst: 100})
	if err != nil {
		t.Fatal(err)
	}
	shared, status := c.gateway.GatewayV1().RESTClient().GetRateLimiter(), c.gatewayStatus.GatewayV1().RESTClient().GetRateLimiter()
	if shared == nil || status == nil || shared == status {
		t.Fatalf("rate limiters: reconciler %v, status %v, want two of their own", shared, status)
	}
	if got, want := status.QPS(), float32(statusQPS); got != want {
		t.Errorf("status writes' QPS = %v, want %v", got, want)
	}
	if got, want := shared.QPS(), float32(50); got != want {
		t.Errorf("the reconciler's QPS = %v, want %v", got, want)
	}

	c, err = newClients(&rest.Config{Host: "https://127.0.0.1:6443", QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	if rl := c.gatewayStatus.GatewayV1().RESTClient().GetRateLimiter(); rl != nil {
		t.Errorf("status writes' rate limiter with client-side limits off: %v, want none", rl)
	}
}
