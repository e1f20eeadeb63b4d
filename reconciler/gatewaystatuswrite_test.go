package reconciler

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestSetRouteConflict: the reporter writes a route's status from the informer's copy;
// when the route changed under it since (here another controller wrote its own parent
// into the status), the API server refuses the copy, and the reporter reads the route
// and writes again: restyplane's parent is there, the other controller's too. A reporter
// that starts again, from a copy that already shows that status or from the older copy,
// writes nothing.
func TestSetRouteConflict(t *testing.T) {
	c := kubetest.StartGatewayAPIT(t)
	ns := c.Namespace(t, "conflict")
	c.Create(t, kubetest.HTTPRoute(ns, "shop", "gw", []string{"shop.example.com"}, kubetest.Rule("/", []string{"web"})))
	// requests counts the reporter's requests by method and status code.
	var mu sync.Mutex
	requests := map[string]int{}
	cfg := rest.CopyConfig(c.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err == nil {
				mu.Lock()
				requests[fmt.Sprint(req.Method, " ", resp.StatusCode)]++
				mu.Unlock()
			}
			return resp, err
		})
	})
	sent := func() string {
		mu.Lock()
		defer mu.Unlock()
		out := fmt.Sprint(requests)
		clear(requests)
		return out
	}
	cl, err := newClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	routes := c.Gateway.GatewayV1().HTTPRoutes(ns)
	get := func() *gatewayv1.HTTPRoute {
		t.Helper()
		rt, err := routes.Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	cached := get() // what the informer holds when the sync reports

	other := gatewayv1.GatewayController("example.com/other")
	theirs := get()
	accepted := condition(gatewayv1.RouteConditionAccepted, true, gatewayv1.RouteReasonAccepted, "theirs", theirs.Generation)
	accepted.LastTransitionTime = metav1.Now()
	theirs.Status.Parents = []gatewayv1.RouteParentStatus{{ParentRef: gatewayv1.ParentReference{Name: "their-gw"}, ControllerName: other,
		Conditions: []metav1.Condition{accepted}}}
	if _, err := routes.UpdateStatus(ctx, theirs, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("the other controller's status write: %v", err)
	}

	gen := cached.Generation
	report := func(rt *gatewayv1.HTTPRoute) *RouteReport {
		return &RouteReport{Kind: "HTTPRoute", Route: rt, Meta: &rt.ObjectMeta, Applied: true,
			Parents: []gatewayv1.RouteParentStatus{{ParentRef: cached.Spec.ParentRefs[0], ControllerName: testGatewayController,
				Conditions: []metav1.Condition{
					condition(gatewayv1.RouteConditionAccepted, true, gatewayv1.RouteReasonAccepted, "attached", gen),
					condition(gatewayv1.RouteConditionResolvedRefs, true, gatewayv1.RouteReasonResolvedRefs, "resolved", gen)}}}}
	}
	reporter := func() *gatewayReporter {
		p := newGatewayReporter(cl, nil, slog.New(slog.DiscardHandler), nil, nil)
		return p
	}
	if wrote := reporter().setRoute(ctx, testGatewayController, report(cached)); !wrote {
		t.Fatalf("setRoute from a copy older than the route wrote nothing")
	}
	if got, want := sent(), "map[GET 200:1 PUT 200:1 PUT 409:1]"; got != want {
		t.Errorf("requests of the write from the older copy: %s, want %s (refused, read, written)", got, want)
	}
	got := get()
	byController := map[gatewayv1.GatewayController]gatewayv1.RouteParentStatus{}
	for _, p := range got.Status.Parents {
		byController[p.ControllerName] = p
	}
	if p, ok := byController[other]; !ok || p.ParentRef.Name != "their-gw" {
		t.Errorf("the other controller's parent is gone: %+v", got.Status.Parents)
	}
	ours, ok := byController[testGatewayController]
	if !ok || len(ours.Conditions) != 2 || ours.Conditions[0].Type != "Accepted" || ours.Conditions[0].Status != metav1.ConditionTrue ||
		ours.Conditions[0].ObservedGeneration != gen || ours.Conditions[1].Type != "ResolvedRefs" || ours.Conditions[1].Status != metav1.ConditionTrue {
		t.Fatalf("restyplane's parent after the conflict: %+v, want Accepted and ResolvedRefs True at generation %d", ours, gen)
	}

	for _, tc := range []struct {
		name     string
		copy     *gatewayv1.HTTPRoute
		requests string
	}{
		{"the current copy", got, "map[]"},
		{"the older copy", cached, "map[GET 200:1 PUT 409:1]"},
	} {
		sent()
		if wrote := reporter().setRoute(ctx, testGatewayController, report(tc.copy)); wrote {
			t.Errorf("a new reporter from %s wrote a status that was already right", tc.name)
		}
		if now := sent(); now != tc.requests {
			t.Errorf("a new reporter from %s sent %s, want %s", tc.name, now, tc.requests)
		}
		if rv := get().ResourceVersion; rv != got.ResourceVersion {
			t.Errorf("a new reporter from %s: resourceVersion %s, want %s unchanged", tc.name, rv, got.ResourceVersion)
		}
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
