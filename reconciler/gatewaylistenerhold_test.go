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
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestGatewayHeldListenerAloneIsNotProgrammed: two teams' routes share a Gateway, each
// through a listener of its hostname. A rollback that holds one team's route back makes
// that listener not Programmed, saying so; the other team's listener and the Gateway stay
// Programmed, since the proxy serves what they ask for. Once the other team's route is
// held too, no listener is programmed, and neither is the Gateway.
func TestGatewayHeldListenerAloneIsNotProgrammed(t *testing.T) {
	f := newGatewayFixture(t)
	ctx := context.Background()
	st := &servingStore{Store: f.store}
	for i, svc := range []string{"a", "b", "c", "d"} {
		f.c.Create(t, kubetest.Service(f.ns, svc, 80),
			kubetest.EndpointSlice(f.ns, svc, svc+"-1", 8080, kubetest.Ready("10.2.0."+string(rune('2'+i)))...))
	}
	f.c.Create(t, kubetest.Gateway(f.ns, "gw", f.class,
		kubetest.Listener("shop", 80, "shop.example.com"), kubetest.Listener("cart", 80, "cart.example.com")),
		kubetest.HTTPRoute(f.ns, "shop", "gw", []string{"shop.example.com"}, kubetest.Rule("/", []string{"a"})),
		kubetest.HTTPRoute(f.ns, "cart", "gw", []string{"cart.example.com"}, kubetest.Rule("/", []string{"c"})))
	r := f.runProgrammed(t, st)
	// The fixture's reconciler has no proxy port of its own: listener port 80 makes
	// servers of their own.
	shopServer, cartServer := "k8s.shop.example.com_80", "k8s.cart.example.com_80"
	routesTo := func(server string) string {
		if s := f.store.Head().Servers[server]; s != nil && len(s.Locations) > 0 {
			return s.Locations[0].Backend
		}
		return ""
	}
	backend := func(svc string) string { return "k8s." + f.ns + "." + svc + ".80" }
	routes := f.c.Gateway.GatewayV1().HTTPRoutes(f.ns)
	// moveTo moves route name to Service svc and waits for the store to have it; it
	// retries on a conflict: the reconciler writes the route's status meanwhile.
	moveTo := func(name, server, svc string) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			rt, err := routes.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			rt.Spec.Rules[0].BackendRefs[0].Name = gatewayv1.ObjectName(svc)
			_, err = routes.Update(ctx, rt, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("move route %s to %s: %v", name, svc, err)
		}
		waitFor(t, 10*time.Second, "route "+name+"'s server on "+svc, func() bool { return routesTo(server) == backend(svc) })
	}
	// rollBack has route name move to Service svc, which goes live and is rolled back
	// automatically; it returns the rollback's revision.
	rollBack := func(name, server, from, svc string) int64 {
		t.Helper()
		good := f.store.Head().Revision
		moveTo(name, server, svc)
		st.served.Store(f.store.Head().Revision)
		waitFor(t, 10*time.Second, "the Gateway Programmed on "+svc, func() bool {
			return programmed(t, f.c, f.ns, "gw") == "True/Programmed"
		})
		rb, err := f.store.Rollback(ctx, api.Meta{Actor: api.ActorApplier, Message: "automatic rollback"}, good)
		if err != nil {
			t.Fatalf("rollback to %d: %v", good, err)
		}
		st.served.Store(rb.Revision.ID)
		rest(t, r)
		if got, want := routesTo(server), backend(from); got != want {
			t.Fatalf("after the rollback server %s routes to %q, want %q", server, got, want)
		}
		if _, ok := f.store.Holds()[api.Ref{Kind: api.KindServer, Name: server}]; !ok {
			t.Fatalf("server %s is not held after rollback %d", server, rb.Revision.ID)
		}
		return rb.Revision.ID
	}

	// Shop's route is held back: its listener alone is not Programmed.
	rev := rollBack("shop", shopServer, "a", "b")
	waitGatewaySays(t, f, "True/Programmed", "False/Invalid True/Programmed", fmt.Sprintf("while rollback %d holds shop's route back", rev))
	if msg := listenerProgrammedMessage(t, f, "gw", "shop"); !strings.Contains(msg, fmt.Sprintf("revision %d,", rev)) ||
		!strings.Contains(msg, "server "+shopServer) || !strings.Contains(msg, "DELETE /api/v1/holds/") {
		t.Errorf("listener shop's Programmed message = %q, want it to name rollback %d, server %s and how the hold ends", msg, rev, shopServer)
	}

	// Cart's route is held back too: no listener is programmed, nor the Gateway.
	rev = rollBack("cart", cartServer, "c", "d")
	waitGatewaySays(t, f, "False/Invalid", "False/Invalid False/Invalid", fmt.Sprintf("while rollback %d holds cart's route back too", rev),
		"rollback", "server "+cartServer, "DELETE /api/v1/holds/")
	if msg := listenerProgrammedMessage(t, f, "gw", "cart"); !strings.Contains(msg, "server "+cartServer) || strings.Contains(msg, shopServer) {
		t.Errorf("listener cart's Programmed message = %q, want it to name server %s and not %s", msg, cartServer, shopServer)
	}
}

// listenerProgrammedMessage returns the message of the Programmed condition of the
// Gateway's listener listener, "" without one.
func listenerProgrammedMessage(t *testing.T, f *fixture, gateway, listener string) string {
	t.Helper()
	gw, err := f.c.Gateway.GatewayV1().Gateways(f.ns).Get(context.Background(), gateway, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get gateway: %v", err)
	}
	for _, l := range gw.Status.Listeners {
		for _, cd := range l.Conditions {
			if string(l.Name) == listener && cd.Type == string(gatewayv1.ListenerConditionProgrammed) {
				return cd.Message
			}
		}
	}
	return ""
}
