package reconciler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// splitFixture is a Gateway API fixture whose HTTPRoute "shop" splits its one rule
// between Services a (at 10.2.0.2) and b (at 10.2.0.3) by weight, with a reconciler
// running on it.
type splitFixture struct {
	*fixture
	r *reconciler.Reconciler
}

func newSplitFixture(t *testing.T, wa, wb int32, more ...string) *splitFixture {
	t.Helper()
	f := newGatewayFixture(t)
	for i, svc := range append([]string{"a", "b"}, more...) {
		f.c.Create(t, kubetest.Service(f.ns, svc, 80),
			kubetest.EndpointSlice(f.ns, svc, svc+"-1", 8080, kubetest.Ready(fmt.Sprintf("10.2.0.%d", 2+i))...))
	}
	f.c.Create(t, kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, "")),
		kubetest.HTTPRoute(f.ns, "shop", "gw", []string{"shop.example.com"}, kubetest.Rule("/", []string{"a", "b"}, wa, wb)))
	r, _ := f.run(t, f.store, "one")
	return &splitFixture{fixture: f, r: r}
}

// rule returns the backend of shop's rule in the head, nil if none.
func (f *splitFixture) rule() *api.Backend {
	for _, b := range f.store.Head().Backends {
		if b.Source.Object == api.ObjectHTTPRoute && b.Source.Name == "shop" {
			return b
		}
	}
	return nil
}

// weighed spells the endpoints of shop's rule with their weights:
// "10.2.0.2:8080=1000 10.2.0.3:8080=111".
func (f *splitFixture) weighed() string {
	b := f.rule()
	if b == nil {
		return "<no backend>"
	}
	var s []string
	for _, e := range b.Endpoints {
		s = append(s, fmt.Sprintf("%s:%d=%d", e.Address, e.Port, e.Weight))
	}
	return strings.Join(s, " ")
}

// ruleHold returns the hold on shop's rule's backend.
func (f *splitFixture) ruleHold() (api.Hold, bool) {
	b := f.rule()
	if b == nil {
		return api.Hold{}, false
	}
	h, ok := f.store.Holds()[api.Ref{Kind: api.KindBackend, Name: b.Name}]
	return h, ok
}

// update edits HTTPRoute name, retrying on a conflict: the reconciler writes its status
// meanwhile.
func (f *splitFixture) update(t *testing.T, name string, edit func(*gatewayv1.HTTPRoute)) {
	t.Helper()
	routes := f.c.Gateway.GatewayV1().HTTPRoutes(f.ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		rt, err := routes.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		edit(rt)
		_, err = routes.Update(context.Background(), rt, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("update route %s: %v", name, err)
	}
}

// setWeights gives shop's backendRefs a and b the weights.
func (f *splitFixture) setWeights(t *testing.T, wa, wb int32) {
	t.Helper()
	f.update(t, "shop", func(rt *gatewayv1.HTTPRoute) {
		refs := rt.Spec.Rules[0].BackendRefs
		refs[0].Weight, refs[1].Weight = &wa, &wb
	})
}

func (f *splitFixture) rollback(t *testing.T, to int64) int64 {
	t.Helper()
	res, err := f.store.Rollback(context.Background(), api.Meta{Actor: api.ActorApplier, Message: "automatic rollback: 5xx"}, to)
	if err != nil {
		t.Fatalf("rollback to %d: %v", to, err)
	}
	return res.Revision.ID
}

// TestGatewayHeldSplitFollowsPods: a switch of a rule's weights that an automatic
// rollback undid stays undone when a Service's Pods move, where before the first
// EndpointSlice change of either Service released the hold and the switch went live
// again; the held backend keeps the rollback's weights on the Pods there are now. An edit
// of the weights ends the hold.
func TestGatewayHeldSplitFollowsPods(t *testing.T) {
	f := newSplitFixture(t, 90, 10)
	const split9010, split1090 = "10.2.0.2:8080=1000 10.2.0.3:8080=111", "10.2.0.2:8080=111 10.2.0.3:8080=1000"
	waitFor(t, 10*time.Second, "shop split 90/10", func() bool { return f.weighed() == split9010 })
	good := f.store.Head().Revision
	f.setWeights(t, 10, 90)
	waitFor(t, 10*time.Second, "shop split 10/90", func() bool { return f.weighed() == split1090 })
	rb := f.rollback(t, good)
	rest(t, f.r)
	if h, ok := f.ruleHold(); !ok || h.Revision != rb {
		t.Fatalf("hold on shop's rule after the rollback = %+v (%v), want one by revision %d", h, ok, rb)
	}
	if got := f.weighed(); got != split9010 {
		t.Fatalf("shop's rule after the rollback = %s, want %s", got, split9010)
	}

	// a's Pod is replaced: the held backend takes the new Pod, at the rollback's weights.
	f.scale(t, "a-1", "a", "10.2.1.2")
	waitFor(t, 10*time.Second, "shop's rule on a's new Pod", func() bool { return strings.Contains(f.weighed(), "10.2.1.2:") })
	rest(t, f.r)
	if h, ok := f.ruleHold(); !ok || h.Revision != rb {
		t.Errorf("hold on shop's rule after a's Pods moved = %+v (%v), want still the one by revision %d", h, ok, rb)
	}
	if got, want := f.weighed(), "10.2.0.3:8080=111 10.2.1.2:8080=1000"; got != want {
		t.Errorf("shop's rule after a's Pods moved = %s, want %s (90/10, as the rollback left it)", got, want)
	}

	// b scales to two Pods: each weighs half of b's share.
	f.scale(t, "b-1", "b", "10.2.1.3", "10.2.1.4")
	waitFor(t, 10*time.Second, "shop's rule on b's new Pods", func() bool { return strings.Contains(f.weighed(), "10.2.1.4:") })
	rest(t, f.r)
	if got, want := f.weighed(), "10.2.1.2:8080=1000 10.2.1.3:8080=56 10.2.1.4:8080=56"; got != want {
		t.Errorf("shop's rule after b scaled = %s, want %s", got, want)
	}

	// The route asks for other weights: the hold ends, and they are written.
	f.setWeights(t, 50, 50)
	waitFor(t, 10*time.Second, "shop split 50/50", func() bool {
		return f.weighed() == "10.2.1.2:8080=1000 10.2.1.3:8080=500 10.2.1.4:8080=500"
	})
	if h, ok := f.ruleHold(); ok {
		t.Errorf("shop's rule still held (by revision %d) after its weights were edited", h.Revision)
	}
}

// TestGatewayRollbackNeverPinsASplitsGonePods: a rollback to a revision from before a
// Service's Pods moved (here undoing another route's edit) takes a rule's backend back to
// Pods that are gone; the weights being the same, that is no hold, and the next sync
// gives it the Pods there are. Before, it was held on the gone Pods until an EndpointSlice
// changed.
func TestGatewayRollbackNeverPinsASplitsGonePods(t *testing.T) {
	f := newSplitFixture(t, 90, 10, "x", "y")
	f.c.Create(t, kubetest.HTTPRoute(f.ns, "other", "gw", []string{"other.example.com"}, kubetest.Rule("/", []string{"x"})))
	other := "k8s.other.example.com_80"
	routesTo := func() string {
		if s := f.store.Head().Servers[other]; s != nil && len(s.Locations) > 0 {
			return s.Locations[0].Backend
		}
		return ""
	}
	backend := func(svc string) string { return "k8s." + f.ns + "." + svc + ".80" }
	waitFor(t, 10*time.Second, "shop split 90/10 and other on x", func() bool {
		return f.weighed() == "10.2.0.2:8080=1000 10.2.0.3:8080=111" && routesTo() == backend("x")
	})
	good := f.store.Head().Revision
	f.update(t, "other", func(rt *gatewayv1.HTTPRoute) { rt.Spec.Rules[0].BackendRefs[0].Name = "y" })
	waitFor(t, 10*time.Second, "other on y", func() bool { return routesTo() == backend("y") })
	f.scale(t, "a-1", "a", "10.2.1.2")
	const now = "10.2.0.3:8080=111 10.2.1.2:8080=1000"
	waitFor(t, 10*time.Second, "shop's rule on a's new Pod", func() bool { return f.weighed() == now })

	rb := f.rollback(t, good)
	if h, ok := f.store.Holds()[api.Ref{Kind: api.KindServer, Name: other}]; !ok || h.Revision != rb {
		t.Fatalf("hold on %s = %+v (%v), want one by revision %d", other, h, ok, rb)
	}
	rest(t, f.r)
	if got := routesTo(); got != backend("x") {
		t.Fatalf("other routes to %q after the rollback, want %q as the rollback left it", got, backend("x"))
	}
	if h, ok := f.ruleHold(); ok {
		t.Errorf("shop's rule held by revision %d, though the rollback took back its Pods alone", h.Revision)
	}
	if got := f.weighed(); got != now {
		t.Errorf("shop's rule after the rollback and a sync = %s, want %s (a's Pod at 10.2.0.2 is gone)", got, now)
	}
}
