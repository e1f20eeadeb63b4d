package reconciler_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// newGatewayFixtureOf is newGatewayFixture on a cluster of Gateway API's channel.
func newGatewayFixtureOf(t *testing.T, channel string) *fixture {
	t.Helper()
	c := kubetest.StartGatewayAPIT(t)
	if channel == kubetest.ChannelExperimental {
		c = kubetest.StartGatewayAPIExperimentalT(t)
	}
	f := newFixtureOn(t, c)
	f.gatewayController = "restyplane.io/gw-" + f.ns
	f.c.Create(t, kubetest.GatewayClass(f.class, f.gatewayController))
	return f
}

// retryRoute is an HTTPRoute of three rules: "flaky" retries 500 three times, "teapot"
// asks to retry 501, which nginx cannot, and the last is plain.
func retryRoute(ns string) *gatewayv1.HTTPRoute {
	three, two := 3, 2
	flaky, teapot := kubetest.Rule("/flaky", []string{"web"}), kubetest.Rule("/teapot", []string{"web"})
	fn, tn := gatewayv1.SectionName("flaky"), gatewayv1.SectionName("teapot")
	flaky.Name, teapot.Name = &fn, &tn
	flaky.Retry = &gatewayv1.HTTPRouteRetry{Codes: []gatewayv1.HTTPRouteRetryStatusCode{500}, Attempts: &three}
	teapot.Retry = &gatewayv1.HTTPRouteRetry{Codes: []gatewayv1.HTTPRouteRetryStatusCode{501}, Attempts: &two}
	return kubetest.HTTPRoute(ns, "retries", "gw", []string{"r.example.com"}, flaky, teapot, kubetest.Rule("/plain", []string{"web"}))
}

// locationsByPath returns the locations of the head's server for host, by path.
func locationsByPath(h *api.State, host string) map[string]api.Location {
	out := map[string]api.Location{}
	for _, s := range h.Servers {
		if slices.Contains(s.Hostnames, host) {
			for _, l := range s.Locations {
				out[l.Path] = l
			}
		}
	}
	return out
}

// classClaims returns the GatewayClass's supportedFeatures once its status lists some.
func (f *fixture) classClaims(t *testing.T) []string {
	t.Helper()
	var names []string
	waitFor(t, 10*time.Second, "the GatewayClass's supportedFeatures", func() bool {
		gc, err := f.c.Gateway.GatewayV1().GatewayClasses().Get(context.Background(), f.class, metav1.GetOptions{})
		if err != nil {
			return false
		}
		names = names[:0]
		for _, s := range gc.Status.SupportedFeatures {
			names = append(names, string(s.Name))
		}
		return len(names) > 0
	})
	return names
}

// TestGatewayRetryOnExperimentalChannel: on a cluster of Gateway API's experimental
// channel, whose HTTPRoute keeps rules[].retry, a rule's retry reaches the store as its
// location's retry policy (attempts beyond the first try, to the same endpoint again); a
// rule asking for a code nginx cannot retry on is dropped, and the route's status says
// so with the rule's name; the class claims retries and named rules.
func TestGatewayRetryOnExperimentalChannel(t *testing.T) {
	f := newGatewayFixtureOf(t, kubetest.ChannelExperimental)
	f.c.Create(t, kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.2.0.1")...),
		kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, "")), retryRoute(f.ns))
	r, _ := f.run(t, f.store, "one")
	waitFor(t, 10*time.Second, "the route's locations in the store", func() bool {
		return len(locationsByPath(f.store.Head(), "r.example.com")) == 2
	})
	rest(t, r)
	locs := locationsByPath(f.store.Head(), "r.example.com")
	want := &api.RetryPolicy{NextUpstream: []string{"error", "timeout", "http_500", "non_idempotent"}, Tries: 4, SamePeer: true}
	if d := cmp.Diff(want, locs["/flaky"].Retry); d != "" {
		t.Errorf("/flaky's retry (-want +got):\n%s", d)
	}
	if l, ok := locs["/plain"]; !ok || l.Retry != nil {
		t.Errorf("/plain = %+v, want served without a retry", l)
	}
	var msg string
	waitFor(t, 10*time.Second, "the route's PartiallyInvalid condition", func() bool {
		rt, err := f.c.Gateway.GatewayV1().HTTPRoutes(f.ns).Get(context.Background(), "retries", metav1.GetOptions{})
		if err != nil || len(rt.Status.Parents) == 0 {
			return false
		}
		for _, c := range rt.Status.Parents[0].Conditions {
			if c.Type == string(gatewayv1.RouteConditionPartiallyInvalid) && c.Status == metav1.ConditionTrue {
				msg = c.Message
			}
		}
		return msg != ""
	})
	if !strings.HasPrefix(msg, `Dropped Rule rules[1] "teapot": retry.codes: 501`) {
		t.Errorf("PartiallyInvalid message %q, want the teapot rule dropped for code 501", msg)
	}
	claims := f.classClaims(t)
	for _, n := range []string{"HTTPRouteRetry", "HTTPRouteRetryConnectionError", "HTTPRouteRetryBackendTimeout", "HTTPRouteNamedRouteRule"} {
		if !slices.Contains(claims, n) {
			t.Errorf("class claims %v, want %s among them", claims, n)
		}
	}
}

// TestGatewayRetryOnStandardChannel: the standard channel's HTTPRoute has no
// rules[].retry: the API server drops it, so the class claims no retry, and the named
// rules are served as they are.
func TestGatewayRetryOnStandardChannel(t *testing.T) {
	f := newGatewayFixtureOf(t, kubetest.ChannelStandard)
	f.c.Create(t, kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.2.0.1")...),
		kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, "")), retryRoute(f.ns))
	r, _ := f.run(t, f.store, "one")
	waitFor(t, 10*time.Second, "the route's locations in the store", func() bool {
		return len(locationsByPath(f.store.Head(), "r.example.com")) == 3
	})
	rest(t, r)
	for p, l := range locationsByPath(f.store.Head(), "r.example.com") {
		if l.Retry != nil {
			t.Errorf("%s has a retry %+v on a cluster that drops rules[].retry", p, l.Retry)
		}
	}
	claims := f.classClaims(t)
	if slices.Contains(claims, "HTTPRouteRetry") || !slices.Contains(claims, "HTTPRouteNamedRouteRule") {
		t.Errorf("class claims %v, want HTTPRouteNamedRouteRule and no HTTPRouteRetry", claims)
	}
}
