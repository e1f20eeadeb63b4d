package reconciler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestGatewayHeldByRollbackIsNotProgrammed: after an automatic rollback of a route's move
// to another Service, the proxy serves a revision newer than the one that changed the
// Gateway, yet what the route asks for is held back and not served. The Gateway must not
// read Programmed, and the route hears why; editing the route ends the hold, and the
// Gateway is Programmed once the proxy serves the edit.
func TestGatewayHeldByRollbackIsNotProgrammed(t *testing.T) {
	f := newGatewayFixture(t)
	ctx := context.Background()
	st := &servingStore{Store: f.store}
	const host = "shop.example.com"
	for i, svc := range []string{"a", "b", "c"} {
		f.c.Create(t, kubetest.Service(f.ns, svc, 80),
			kubetest.EndpointSlice(f.ns, svc, svc+"-1", 8080, kubetest.Ready("10.2.0."+string(rune('2'+i)))...))
	}
	f.c.Create(t, kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, "")),
		kubetest.HTTPRoute(f.ns, "shop", "gw", []string{host}, kubetest.Rule("/", []string{"a"})))
	r := f.runProgrammed(t, st)
	// The fixture's reconciler has no proxy port of its own: listener port 80 makes a
	// server of its own.
	server := "k8s." + host + "_80"
	routesTo := func() string {
		if s := f.store.Head().Servers[server]; s != nil && len(s.Locations) > 0 {
			return s.Locations[0].Backend
		}
		return ""
	}
	backend := func(svc string) string { return "k8s." + f.ns + "." + svc + ".80" }
	routes := f.c.Gateway.GatewayV1().HTTPRoutes(f.ns)
	// moveTo retries on a conflict: the reconciler writes the route's status meanwhile.
	moveTo := func(svc string) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			rt, err := routes.Get(ctx, "shop", metav1.GetOptions{})
			if err != nil {
				return err
			}
			rt.Spec.Rules[0].BackendRefs[0].Name = gatewayv1.ObjectName(svc)
			_, err = routes.Update(ctx, rt, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("move the route to %s: %v", svc, err)
		}
		waitFor(t, 10*time.Second, "the route's server on "+svc, func() bool { return routesTo() == backend(svc) })
	}

	// The route moves to b, which goes live and is rolled back automatically.
	good := f.store.Head().Revision
	moveTo("b")
	st.served.Store(f.store.Head().Revision)
	waitFor(t, 10*time.Second, "the Gateway Programmed on b", func() bool { return programmed(t, f.c, f.ns, "gw") == "True/Programmed" })
	rb, err := f.store.Rollback(ctx, api.Meta{Actor: api.ActorApplier, Message: "automatic rollback"}, good)
	if err != nil {
		t.Fatalf("rollback to %d: %v", good, err)
	}
	st.served.Store(rb.Revision.ID)
	rest(t, r)
	if got, want := routesTo(), backend("a"); got != want {
		t.Fatalf("after the rollback the server routes to %q, want %q", got, want)
	}
	waitHeld(t, f, rb.Revision.ID, server)
	if e := f.event(t, "shop", reconciler.ReasonRolledBack); e.Type != corev1.EventTypeWarning {
		t.Errorf("RolledBack event type = %q, want Warning", e.Type)
	} else {
		t.Logf("RolledBack: %s", e.Message)
	}

	// The route moves on to c: the hold ends, and the Gateway waits for the edit's revision.
	moveTo("c")
	if h, ok := f.store.Holds()[api.Ref{Kind: api.KindServer, Name: server}]; ok {
		t.Fatalf("server %s still held (by revision %d) after its route moved on", server, h.Revision)
	}
	waitFor(t, 10*time.Second, "the Gateway Pending for the edit", func() bool { return programmed(t, f.c, f.ns, "gw") == "False/Pending" })
	st.served.Store(f.store.Head().Revision)
	waitFor(t, 10*time.Second, "the Gateway Programmed once the edit is served", func() bool {
		return programmed(t, f.c, f.ns, "gw") == "True/Programmed" && listenersProgrammed(t, f, "gw") == "True/Programmed"
	})
}

// waitHeld waits for the Gateway "gw" and its listener to be Programmed False (Invalid)
// with a message that names rollback rev, the held object and how the hold ends.
func waitHeld(t *testing.T, f *fixture, rev int64, object string) {
	t.Helper()
	waitGatewaySays(t, f, "False/Invalid", "False/Invalid", fmt.Sprintf("while rollback %d holds its route back", rev),
		fmt.Sprintf("revision %d,", rev), "rollback", object, "DELETE /api/v1/holds/")
}
