package reconciler

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestSameSecondIncumbentKeepsTheHost: creationTimestamp counts whole seconds, so two
// Ingresses of a host created in the same second tie. The one whose server the head
// already serves keeps the host, so that a newer Ingress whose name sorts first cannot take
// it over (and with it, say, drop the host's client certificate verification: found by
// the e2e test of auth-tls, whose "sneaky" Ingress came in the second of "strict").
func TestSameSecondIncumbentKeepsTheHost(t *testing.T) {
	objs := []runtime.Object{kubetest.Service("shop", "web", 80), kubetest.EndpointSlice("shop", "web", "web-1", 8080, kubetest.Ready("10.0.0.1")...),
		kubetest.Service("shop", "other", 80), kubetest.EndpointSlice("shop", "other", "other-1", 8080, kubetest.Ready("10.0.0.2")...)}
	strict := aged(kubetest.Ingress("shop", "strict", "", kubetest.Path{Host: "shop.example.com", Path: "/", Service: "web", Port: 80}), 0)
	sneaky := aged(kubetest.Ingress("shop", "sneaky", "", kubetest.Path{Host: "shop.example.com", Path: "/", Service: "other", Port: 80}), 0)
	strict.UID, sneaky.UID = "uid-strict", "uid-sneaky"
	snap := func(ings ...runtime.Object) *Snapshot {
		return snapshotOf(append(append([]runtime.Object(nil), objs...), ings...)...)
	}
	routedTo := func(tr *Translation) string {
		srv := tr.Servers["k8s.shop.example.com"]
		if srv == nil || len(srv.Locations) == 0 {
			return ""
		}
		return srv.Locations[0].Backend
	}
	first := Translate(snap(strict), nil)
	head := api.NewState()
	for n, s := range first.Servers {
		head.Servers[n] = s
	}
	for n, b := range first.Backends {
		head.Backends[n] = b
	}
	if got := routedTo(Translate(snap(strict, sneaky), head)); got != "k8s.shop.web.80" {
		t.Fatalf("with strict served, the same second's sneaky took the host: / routes to %q", got)
	}
	// With no head to say which came first, the names decide, as before.
	if got := routedTo(Translate(snap(strict, sneaky), nil)); got != "k8s.shop.other.80" {
		t.Fatalf("with no head, / routes to %q, want the name order's first (sneaky)", got)
	}
}
