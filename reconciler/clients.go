package reconciler

import (
	"errors"
	"fmt"

	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	discoveryv1client "k8s.io/client-go/kubernetes/typed/discovery/v1"
	networkingv1client "k8s.io/client-go/kubernetes/typed/networking/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
)

// clients are the part of the Kubernetes API the reconciler speaks: the typed clients of the
// four groups it reads or writes. client-go's full clientset has fifty more, and with the
// informer factory they were more than a quarter of the compile time of restyplane's
// first build.
type clients struct {
	core         corev1client.CoreV1Interface
	networking   networkingv1client.NetworkingV1Interface
	discovery    discoveryv1client.DiscoveryV1Interface
	coordination coordinationv1client.CoordinationV1Interface
	// gateway reaches Gateway API's resources, which a cluster may not serve (gatewayServed).
	gateway gatewayclient.Interface
	// gatewayStatus writes the status of Gateway API's objects, over the same connections
	// with a rate limiter of its own (statusQPS).
	gatewayStatus gatewayclient.Interface
}

// statusQPS and statusBurst bound the Gateway API reporter's requests: a status write per
// object whose status changes, a read after a conflict. They have a token bucket of their
// own, apart from the reconciler's (its reads, Lease, Ingress status and Events), so that
// neither waits behind the other; the first status of 1,000 routes took a minute of the
// shared 50 a second. The reporter writes one status at a time, so the API server's
// priority and fairness, which shares its capacity out by concurrent requests, sees at
// most one of them at once, and the API server's latency paces them (an HTTPRoute's
// status write took 7 to 20 ms on a 2-core test machine). The bucket is a bound on top
// against a reporter that would write without end: at most 200 a second, 1,000 routes
// in no less than 4 s.
const statusQPS, statusBurst = 200, 200

// newClients builds the typed clients as the full clientset does: over one HTTP client, so
// that they share its connections, and one rate limiter, so that cfg's QPS bounds them
// together.
func newClients(cfg *rest.Config) (*clients, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		if cfg.Burst <= 0 {
			return nil, errors.New("burst must be greater than 0 when QPS is set and RateLimiter is not")
		}
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("http client: %w", err)
	}
	var c clients
	if c.core, err = corev1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, fmt.Errorf("core/v1 client: %w", err)
	}
	if c.networking, err = networkingv1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, fmt.Errorf("networking/v1 client: %w", err)
	}
	if c.discovery, err = discoveryv1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, fmt.Errorf("discovery/v1 client: %w", err)
	}
	if c.coordination, err = coordinationv1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, fmt.Errorf("coordination/v1 client: %w", err)
	}
	if c.gateway, err = gatewayclient.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, fmt.Errorf("gateway API client: %w", err)
	}
	if c.gatewayStatus, err = gatewayclient.NewForConfigAndClient(statusConfig(cfg), hc); err != nil {
		return nil, fmt.Errorf("gateway API status client: %w", err)
	}
	return &c, nil
}

// statusConfig is cfg with the status writes' own rate limiter; with none when cfg asks
// for none (a negative QPS: the API server's priority and fairness alone).
func statusConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.RateLimiter = nil
	if cfg.QPS >= 0 {
		cfg.QPS, cfg.Burst = statusQPS, statusBurst
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	return cfg
}
