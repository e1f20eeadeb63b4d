package reconciler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestGatewayEndpointSliceOnlySync: an EndpointSlice change of a Service that HTTPRoutes
// route to, and an edit of a route's weights, are synced without translating every route
// again, and write what a full translation would: the Service's backend and the weighted
// backend of a rule that balances it with another get the new endpoints and weights, and
// a full sync afterwards writes nothing; a weight moved to 0 is such an edit too. A
// Service of a route that is not applied whole, and an edit that changes which backend a
// location uses, still get a full translation.
func TestGatewayEndpointSliceOnlySync(t *testing.T) {
	f := newGatewayFixture(t)
	ctx := context.Background()
	f.c.Create(t,
		kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.2.0.1")...),
		kubetest.Service(f.ns, "canary", 80), kubetest.EndpointSlice(f.ns, "canary", "canary-1", 8080, kubetest.Ready("10.2.1.1")...),
		kubetest.Service(f.ns, "other", 80), kubetest.EndpointSlice(f.ns, "other", "other-1", 8080, kubetest.Ready("10.2.2.1")...),
		kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, "")),
		kubetest.HTTPRoute(f.ns, "shop", "gw", []string{"shop.example.com"},
			kubetest.Rule("/", []string{"web", "canary"}, 3, 1), kubetest.Rule("/api", []string{"web"})),
		// Service ghost does not exist: this route is not applied whole.
		kubetest.HTTPRoute(f.ns, "half", "gw", []string{"half.example.com"}, kubetest.Rule("/", []string{"other", "ghost"})))
	r, _ := f.run(t, f.store, "one")
	web, split := "k8s."+f.ns+".web.80", "k8s.httproute."+f.ns+".shop.rule0"
	waitFor(t, 10*time.Second, "the route's backends in the store", func() bool {
		h := f.store.Head()
		return h.Backends[web] != nil && endpoints(h.Backends[split]) == "10.2.0.1:8080,10.2.1.1:8080"
	})
	rest(t, r)

	before := r.Stats()
	count := revisions(t, f.store)
	f.scale(t, "web-1", "web", "10.2.0.1", "10.2.0.2")
	waitFor(t, 5*time.Second, "web scaled, in its backend and in the split", func() bool {
		h := f.store.Head()
		return endpoints(h.Backends[web]) == "10.2.0.1:8080,10.2.0.2:8080" &&
			endpoints(h.Backends[split]) == "10.2.0.1:8080,10.2.0.2:8080,10.2.1.1:8080"
	})
	// web's two endpoints share its weight 3, canary's one has 1: 1.5 to 1 each.
	if w := f.store.Head().Backends[split].Endpoints; w[0].Weight != w[1].Weight || abs(2*w[0].Weight-3*w[2].Weight) > 3 {
		t.Errorf("the split's weights after the endpoint sync = %+v, want each of web's two 1.5 times canary's one", w)
	}
	if got, want := revisions(t, f.store), count+1; got != want {
		t.Fatalf("revisions after one slice change = %d, want %d", got, want)
	}
	rest(t, r)
	after := r.Stats()
	if got := after.EndpointSyncs - before.EndpointSyncs; got < 1 {
		t.Fatalf("endpoint syncs %d of %d syncs, want one for the slice change", got, after.Syncs-before.Syncs)
	}

	// A Service of the route not applied whole: a full translation.
	f.scale(t, "other-1", "other", "10.2.2.1", "10.2.2.2")
	waitFor(t, 5*time.Second, "a sync of the half route's Service", func() bool { return r.Stats().Syncs > after.Syncs })
	rest(t, r)
	if s := r.Stats(); s.EndpointSyncs != after.EndpointSyncs {
		t.Fatalf("the half-applied route's Service took the endpoint sync (%d, was %d)", s.EndpointSyncs, after.EndpointSyncs)
	}
	// other's share of the half route's split, whose missing ghost answers the rest 500.
	if got := endpoints(f.store.Head().Backends["k8s.httproute."+f.ns+".half.rule0"]); got != "10.2.2.1:8080,10.2.2.2:8080" {
		t.Fatalf("the half route's split after the full sync = %s", got)
	}

	// An edit of the route's weights changes its split's endpoints alone: no full
	// translation either, and the revision and the route's status name its new generation.
	routes := f.c.Gateway.GatewayV1().HTTPRoutes(f.ns)
	edit := func(change func(*gatewayv1.HTTPRoute)) int64 {
		t.Helper()
		rt, err := routes.Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get route: %v", err)
		}
		change(rt)
		if rt, err = routes.Update(ctx, rt, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update route: %v", err)
		}
		return rt.Generation
	}
	syncs := r.Stats()
	gen := edit(func(rt *gatewayv1.HTTPRoute) {
		one, three := int32(1), int32(3)
		rt.Spec.Rules[0].BackendRefs[0].Weight, rt.Spec.Rules[0].BackendRefs[1].Weight = &one, &three
	})
	waitFor(t, 5*time.Second, "canary's endpoint the heaviest of the split", func() bool {
		w := f.store.Head().Backends[split].Endpoints
		return len(w) == 3 && w[2].Weight > w[0].Weight
	})
	rest(t, r)
	if s := r.Stats(); s.EndpointSyncs == syncs.EndpointSyncs || s.Errors != 0 {
		t.Fatalf("stats after the weight edit: %+v, want an endpoint sync and no error (before: %+v)", s, syncs)
	}
	if rev, err := f.store.Revision(ctx, revisions(t, f.store)); err != nil || !strings.Contains(rev.Message, fmt.Sprintf("HTTPRoute %s/shop generation %d", f.ns, gen)) {
		t.Errorf("the weight edit's revision: %v %v, want a message naming generation %d", rev, err, gen)
	}
	waitFor(t, 10*time.Second, "the route's status at its new generation", func() bool {
		rt, err := routes.Get(ctx, "shop", metav1.GetOptions{})
		return err == nil && len(rt.Status.Parents) == 1 && len(rt.Status.Parents[0].Conditions) > 0 &&
			rt.Status.Parents[0].Conditions[0].ObservedGeneration == gen && rt.Status.Parents[0].Conditions[0].Status == metav1.ConditionTrue
	})

	// A weight moved to 0 keeps the location on the split, which then balances web's
	// endpoints alone: an endpoint sync too, so nginx gets a push and no reload.
	syncs = r.Stats()
	edit(func(rt *gatewayv1.HTTPRoute) { rt.Spec.Rules[0].BackendRefs[1].Weight = new(int32) })
	waitFor(t, 5*time.Second, "canary out of the split", func() bool {
		return endpoints(f.store.Head().Backends[split]) == "10.2.0.1:8080,10.2.0.2:8080"
	})
	rest(t, r)
	if s := r.Stats(); s.EndpointSyncs == syncs.EndpointSyncs || s.Errors != 0 {
		t.Fatalf("stats after the weight edit to 0: %+v, want an endpoint sync and no error (before: %+v)", s, syncs)
	}
	if h := f.store.Head(); h.Servers["k8s.shop.example.com_80"] == nil || h.Servers["k8s.shop.example.com_80"].Locations[0].Backend != split {
		t.Fatalf("shop's / after the weight edit to 0: %+v, want the split", h.Servers["k8s.shop.example.com_80"])
	}

	// An edit that changes which backend a location uses (canary's backendRef gone leaves
	// web alone) takes a full translation.
	syncs = r.Stats()
	edit(func(rt *gatewayv1.HTTPRoute) { rt.Spec.Rules[0].BackendRefs = rt.Spec.Rules[0].BackendRefs[:1] })
	waitFor(t, 5*time.Second, "a sync of the shape edit", func() bool { return r.Stats().Syncs > syncs.Syncs })
	rest(t, r)
	if s := r.Stats(); s.EndpointSyncs != syncs.EndpointSyncs {
		t.Fatalf("the edit of a location's backend took the endpoint sync (%d, was %d)", s.EndpointSyncs, syncs.EndpointSyncs)
	}
	if h := f.store.Head(); h.Servers["k8s.shop.example.com_80"] == nil || h.Servers["k8s.shop.example.com_80"].Locations[0].Backend != web {
		t.Fatalf("shop's / after the shape edit: %+v, want web's backend", h.Servers["k8s.shop.example.com_80"])
	}

	// A full translation of the cluster agrees with what the endpoint syncs wrote.
	count = revisions(t, f.store)
	syncs = r.Stats()
	edit(func(rt *gatewayv1.HTTPRoute) { rt.Annotations = map[string]string{"team": "checkout"} })
	waitFor(t, 5*time.Second, "a full sync", func() bool { return r.Stats().Syncs > syncs.Syncs })
	rest(t, r)
	if got := revisions(t, f.store); got != count {
		t.Fatalf("revisions after a full sync = %d, want %d: the endpoint sync wrote what a translation would not", got, count)
	}
	if s := r.Stats(); s.EndpointSyncs != syncs.EndpointSyncs || s.Errors != 0 {
		t.Fatalf("stats after the route change: %+v, want a full sync and no error", s)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestGatewayEndpointSliceOnlySyncKeepsBackendTLS: the endpoints of a Service that a
// BackendTLSPolicy covers move by an endpoint sync as any other's, into its TLS backend:
// the sync plans the routes with the policies, as a full translation does.
func TestGatewayEndpointSliceOnlySyncKeepsBackendTLS(t *testing.T) {
	f := newGatewayFixture(t)
	ca, _ := kubetest.CA(t, "test CA")
	p := &gatewayv1.BackendTLSPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "secure"},
		Spec: gatewayv1.BackendTLSPolicySpec{
			TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{{
				LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Kind: "Service", Name: "web"}}},
			Validation: gatewayv1.BackendTLSPolicyValidation{Hostname: "web.internal",
				CACertificateRefs: []gatewayv1.LocalObjectReference{{Kind: "ConfigMap", Name: "ca"}}}}}
	f.c.Create(t,
		kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8443, kubetest.Ready("10.2.0.1")...),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "ca"}, Data: map[string]string{"ca.crt": string(ca)}},
		p,
		kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, "")),
		kubetest.HTTPRoute(f.ns, "shop", "gw", []string{"shop.example.com"}, kubetest.Rule("/", []string{"web"})))
	r, _ := f.run(t, f.store, "one")
	name := "k8s." + f.ns + ".web.80.tls"
	waitFor(t, 10*time.Second, "the covered Service's TLS backend in the store", func() bool {
		return endpoints(f.store.Head().Backends[name]) == "10.2.0.1:8443"
	})
	rest(t, r)
	if rev, err := f.store.Revision(context.Background(), 1); err != nil || !strings.Contains(rev.Message, "BackendTLSPolicy "+f.ns+"/secure (caCertificate") {
		t.Errorf("the first revision's message names the CA bundle's owner so: %v (%v), want the BackendTLSPolicy", rev, err)
	}
	before := r.Stats()
	f.scale(t, "web-1", "web", "10.2.0.1", "10.2.0.2")
	waitFor(t, 5*time.Second, "web scaled, in its TLS backend", func() bool {
		return endpoints(f.store.Head().Backends[name]) == "10.2.0.1:8443,10.2.0.2:8443"
	})
	rest(t, r)
	h := f.store.Head()
	if b := h.Backends[name]; b.Protocol != api.ProtocolHTTPS || b.UpstreamTLS == nil || !b.UpstreamTLS.Verify {
		t.Fatalf("the covered Service's backend after the endpoint change = %+v, want verified https", b)
	}
	if b := h.Backends["k8s."+f.ns+".web.80"]; b != nil {
		t.Fatalf("a plain backend of the covered Service appeared: %+v", b)
	}
	if s := r.Stats(); s.Errors != before.Errors {
		t.Fatalf("stats after the endpoint change: %+v (before %+v)", s, before)
	}
}

// TestGatewayWeightEditSyncsTheShareAnswered500: a rule whose every weight is 0 answers
// every request 500 (its backend's errorWeight, all of it); an edit of the weights from or
// to that, taken by an endpoint sync, writes the errorWeight with the endpoints. Before,
// the endpoint sync wrote the endpoints alone: weights from 0 to 10/10 kept half the
// requests answered 500, and back to 0 left a backend of no endpoints and no share
// answered 500.
func TestGatewayWeightEditSyncsTheShareAnswered500(t *testing.T) {
	f := newSplitFixture(t, 0, 0)
	errorWeight := func() int {
		if b := f.rule(); b != nil {
			return b.ErrorWeight
		}
		return -1
	}
	waitFor(t, 10*time.Second, "shop's rule answering every request 500", func() bool { return errorWeight() == api.MaxWeight })
	rest(t, f.r)

	syncs := f.r.Stats()
	f.setWeights(t, 10, 10)
	waitFor(t, 10*time.Second, "shop split 10/10", func() bool { return f.weighed() == "10.2.0.2:8080=1000 10.2.0.3:8080=1000" })
	rest(t, f.r)
	if s := f.r.Stats(); s.EndpointSyncs == syncs.EndpointSyncs || s.Errors != 0 {
		t.Fatalf("stats after the weight edit: %+v, want an endpoint sync and no error (before: %+v)", s, syncs)
	}
	if got := errorWeight(); got != 0 {
		t.Errorf("shop's rule errorWeight at 10/10 = %d, want 0", got)
	}

	syncs = f.r.Stats()
	f.setWeights(t, 0, 0)
	waitFor(t, 10*time.Second, "shop split 0/0", func() bool { return f.weighed() == "" })
	rest(t, f.r)
	if s := f.r.Stats(); s.EndpointSyncs == syncs.EndpointSyncs || s.Errors != 0 {
		t.Fatalf("stats after the weight edit to 0: %+v, want an endpoint sync and no error (before: %+v)", s, syncs)
	}
	if got := errorWeight(); got != api.MaxWeight {
		t.Errorf("shop's rule errorWeight at 0/0 = %d, want %d", got, api.MaxWeight)
	}
}
