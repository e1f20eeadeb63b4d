package reconciler

import (
	"context"
	"log/slog"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestSetGatewayStaleCopy: a report's Gateway is the informer's copy, which may show an
// older status than the API server's. When that old status is already what the report
// wants, the status must still be written: the Gateway was left Pending when a sync's
// copy still showed it Programmed from before.
func TestSetGatewayStaleCopy(t *testing.T) {
	c := kubetest.StartGatewayAPIT(t)
	ns := c.Namespace(t, "stale")
	c.Create(t, kubetest.Gateway(ns, "gw", "restyplane", kubetest.Listener("http", 80, "")))
	cl, err := newClients(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	p := newGatewayReporter(cl, nil, slog.New(slog.DiscardHandler), nil, nil)
	ctx := context.Background()
	gws := c.Gateway.GatewayV1().Gateways(ns)
	get := func() *gatewayv1.Gateway {
		t.Helper()
		gw, err := gws.Get(ctx, "gw", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return gw
	}
	report := func(gw *gatewayv1.Gateway) GatewayStatusReport {
		return GatewayStatusReport{Gateway: gw, Programmable: true,
			Accepted: condition(gatewayv1.GatewayConditionAccepted, true, gatewayv1.GatewayReasonAccepted, "served", gw.Generation)}
	}
	programmed := func() metav1.ConditionStatus {
		for _, cd := range get().Status.Conditions {
			if cd.Type == string(gatewayv1.GatewayConditionProgrammed) {
				return cd.Status
			}
		}
		return "missing"
	}

	p.setGateway(ctx, report(get()), Serving{Revision: 1}.of(1))
	stale := get() // Programmed, as the informer will keep showing for a while
	p.setGateway(ctx, report(get()), Serving{Revision: 1}.of(2))
	if got := programmed(); got != metav1.ConditionFalse {
		t.Fatalf("waiting for revision 2: Programmed = %s, want False", got)
	}
	p.setGateway(ctx, report(stale), Serving{Revision: 2}.of(2))
	if got := programmed(); got != metav1.ConditionTrue {
		t.Fatalf("revision 2 served, reported from a copy that still shows revision 1 served: Programmed = %s, want True", got)
	}
}
