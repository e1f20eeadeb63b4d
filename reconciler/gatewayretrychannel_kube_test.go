package reconciler_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// claimsRetry reports whether the GatewayClass's supportedFeatures list HTTPRouteRetry now.
func (f *fixture) claimsRetry(t *testing.T) bool {
	t.Helper()
	gc, err := f.c.Gateway.GatewayV1().GatewayClasses().Get(context.Background(), f.class, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get gatewayclass: %v", err)
	}
	return slices.ContainsFunc(gc.Status.SupportedFeatures, func(s gatewayv1.SupportedFeature) bool { return s.Name == "HTTPRouteRetry" })
}

// keepRetries writes retryRoute's rules again until the API server keeps their retries:
// its handlers take the new CRD's schema a moment after the CRD is established.
func (f *fixture) keepRetries(t *testing.T) {
	t.Helper()
	routes := f.c.Gateway.GatewayV1().HTTPRoutes(f.ns)
	waitFor(t, 20*time.Second, "the API server to keep the route's retries", func() bool {
		rt, err := routes.Get(context.Background(), "retries", metav1.GetOptions{})
		if err != nil {
			return false
		}
		if rt.Spec.Rules[0].Retry != nil {
			return true
		}
		rt.Spec = retryRoute(f.ns).Spec
		_, _ = routes.Update(context.Background(), rt, metav1.UpdateOptions{})
		return false
	})
}

// TestGatewayRetryFollowsCRDChannel: the cluster's HTTPRoute CRD goes from Gateway API's
// standard channel to the experimental one under a running reconciler, and back. Without
// a restart, the class claims retries and a route's retry is served once the CRD keeps
// rules[].retry, and neither once it drops it again: the reconciler reads the CRD's
// schema again when the API server's OpenAPI document of the group changes, and writes a
// revision only when what it serves changes.
func TestGatewayRetryFollowsCRDChannel(t *testing.T) {
	f := newGatewayFixtureOf(t, kubetest.ChannelStandard)
	f.c.Create(t, kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.2.0.1")...),
		kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, "")), retryRoute(f.ns))
	opts := f.options("one")
	opts.GatewaySchemaPeriod = 100 * time.Millisecond
	r, _ := f.runWith(t, f.store, opts)
	waitFor(t, 10*time.Second, "the route's three locations in the store", func() bool {
		return len(locationsByPath(f.store.Head(), "r.example.com")) == 3
	})
	rest(t, r)
	if claims := f.classClaims(t); slices.Contains(claims, "HTTPRouteRetry") {
		t.Fatalf("class claims %v on the standard channel, want no HTTPRouteRetry", claims)
	}

	before := f.store.Head().Revision

	f.c.InstallGatewayCRD(t, kubetest.ChannelExperimental, "httproutes")
	waitFor(t, 20*time.Second, "the class to claim HTTPRouteRetry on the experimental channel", func() bool { return f.claimsRetry(t) })
	rest(t, r)
	// The route as stored lost its retries: nothing served changed yet.
	if got := f.store.Head().Revision; got != before {
		t.Errorf("head at revision %d after the CRD changed, want %d: nothing served changed", got, before)
	}
	f.keepRetries(t)
	want := &api.RetryPolicy{NextUpstream: []string{"error", "timeout", "http_500", "non_idempotent"}, Tries: 4, SamePeer: true}
	waitFor(t, 20*time.Second, "/flaky's retry in the store", func() bool {
		return cmp.Equal(want, locationsByPath(f.store.Head(), "r.example.com")["/flaky"].Retry)
	})

	f.c.InstallGatewayCRD(t, kubetest.ChannelStandard, "httproutes")
	waitFor(t, 20*time.Second, "the class to stop claiming HTTPRouteRetry on the standard channel", func() bool { return !f.claimsRetry(t) })
	waitFor(t, 20*time.Second, "the route served without retries", func() bool {
		locs := locationsByPath(f.store.Head(), "r.example.com")
		return len(locs) == 3 && locs["/flaky"].Retry == nil
	})
}
