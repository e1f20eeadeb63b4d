package reconciler_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestRollbackKeptBackendFollowsItsPods: a backend that stays only because a held server
// names it follows its Service's Pods. An edit moves server shop from Service a to b while
// Ingress other still names a, so the rollback holds shop alone, at a; once other drops a,
// a is no Ingress's and not held, yet kept for shop. Before, it kept the endpoints it had
// then: a rollout of a's Pods (a new EndpointSlice, the old one gone) left shop's traffic
// on Pods that were gone.
func TestRollbackKeptBackendFollowsItsPods(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const shop, other = "shop.example.com", "other.example.com"
	for i, svc := range []string{"a", "b", "c"} {
		f.c.Create(t, kubetest.Service(f.ns, svc, 80),
			kubetest.EndpointSlice(f.ns, svc, svc+"-1", 8080, kubetest.Ready("10.6.0."+string(rune('2'+i)))...))
	}
	r, _ := f.run(t, f.store, "one")
	backend := func(svc string) string { return "k8s." + f.ns + "." + svc + ".80" }
	routesTo := func(host string) string {
		if s := f.store.Head().Servers["k8s."+host]; s != nil && len(s.Locations) > 0 {
			return s.Locations[0].Backend
		}
		return ""
	}
	ingresses := f.c.Client.NetworkingV1().Ingresses(f.ns)
	// routeTo retries on a conflict: the reconciler writes the Ingress's status meanwhile.
	routeTo := func(name, host, svc string) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			ing, err := ingresses.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			ing.Spec = kubetest.Ingress(f.ns, name, f.class, kubetest.Path{Host: host, Path: "/", Service: svc, Port: 80}).Spec
			_, err = ingresses.Update(ctx, ing, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("route %s to %s: %v", name, svc, err)
		}
		waitFor(t, 5*time.Second, name+" routed to "+svc, func() bool { return routesTo(host) == backend(svc) })
	}

	f.c.Create(t, kubetest.Ingress(f.ns, "shop", f.class, kubetest.Path{Host: shop, Path: "/", Service: "a", Port: 80}),
		kubetest.Ingress(f.ns, "other", f.class, kubetest.Path{Host: other, Path: "/", Service: "a", Port: 80}))
	waitFor(t, 5*time.Second, "shop and other routed to a", func() bool {
		return routesTo(shop) == backend("a") && routesTo(other) == backend("a")
	})
	good := f.store.Head().Revision
	routeTo("shop", shop, "b")
	if _, err := f.store.Rollback(ctx, api.Meta{Actor: api.ActorApplier, Message: "automatic rollback: 5xx"}, good); err != nil {
		t.Fatalf("rollback to %d: %v", good, err)
	}
	waitFor(t, 5*time.Second, "shop held at a", func() bool {
		_, held := f.store.Holds()[api.Ref{Kind: api.KindServer, Name: "k8s." + shop}]
		return held && routesTo(shop) == backend("a")
	})
	if _, held := f.store.Holds()[api.Ref{Kind: api.KindBackend, Name: backend("a")}]; held {
		t.Fatalf("backend a is held; the test needs it kept for shop without a hold of its own")
	}

	// Ingress other drops a: nothing in the cluster names it, and shop keeps it.
	routeTo("other", other, "c")
	rest(t, r)
	if got, want := routesTo(shop), backend("a"); got != want {
		t.Fatalf("shop routes to %q, want %q as the rollback left it", got, want)
	}
	if got, want := endpoints(f.store.Head().Backends[backend("a")]), "10.6.0.2:8080"; got != want {
		t.Fatalf("backend a, kept for shop, has endpoints %s, want %s", got, want)
	}

	// A rollout of a: a new EndpointSlice, and the old one gone.
	f.c.Create(t, kubetest.EndpointSlice(f.ns, "a", "a-2", 8080, kubetest.Ready("10.6.1.2", "10.6.1.3")...))
	if err := f.c.Client.DiscoveryV1().EndpointSlices(f.ns).Delete(ctx, "a-1", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete slice a-1: %v", err)
	}
	waitFor(t, 5*time.Second, "backend a, kept for shop, on its Service's new Pods", func() bool {
		return endpoints(f.store.Head().Backends[backend("a")]) == "10.6.1.2:8080,10.6.1.3:8080"
	})
	if got, want := routesTo(shop), backend("a"); got != want {
		t.Fatalf("after a's rollout, shop routes to %q, want %q", got, want)
	}
}
