package reconciler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestEndpointSliceOnlySync: a batch of EndpointSlice changes alone is synced without
// translating every Ingress again, and writes what a full translation would: after it, a
// full sync writes nothing. A Service routed by an Ingress that is not applied whole, and
// any other change, still get a full translation.
func TestEndpointSliceOnlySync(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const ng = "nginx.ingress.kubernetes.io/"
	f.c.Create(t,
		kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.2.0.1")...),
		kubetest.Service(f.ns, "next", 80), kubetest.EndpointSlice(f.ns, "next", "next-1", 8080, kubetest.Ready("10.2.1.1")...),
		kubetest.Service(f.ns, "other", 80), kubetest.EndpointSlice(f.ns, "other", "other-1", 8080, kubetest.Ready("10.2.2.1")...))
	canary := kubetest.Ingress(f.ns, "web-canary", f.class, kubetest.Path{Host: "shop.example.com", Path: "/", Service: "next", Port: 80})
	canary.Annotations = map[string]string{ng + "canary": "true", ng + "canary-weight": "20"}
	f.c.Create(t, kubetest.Ingress(f.ns, "web", f.class, kubetest.Path{Host: "shop.example.com", Path: "/", Service: "web", Port: 80}), canary,
		// Port 81 is not the Service's: this Ingress is not applied.
		kubetest.Ingress(f.ns, "broken", f.class, kubetest.Path{Host: "broken.example.com", Path: "/", Service: "other", Port: 81}))
	r, _ := f.run(t, f.store, "one")
	web, next := "k8s."+f.ns+".web.80", "k8s."+f.ns+".next.80"
	waitFor(t, 5*time.Second, "both backends in the store", func() bool {
		h := f.store.Head()
		return h.Backends[web] != nil && h.Backends[next] != nil && h.Backends[web].Canary != nil
	})
	rest(t, r)

	before := r.Stats()
	count := revisions(t, f.store)
	f.scale(t, "web-1", "web", "10.2.0.1", "10.2.0.2")
	waitFor(t, 5*time.Second, "web scaled", func() bool { return endpoints(f.store.Head().Backends[web]) == "10.2.0.1:8080,10.2.0.2:8080" })
	// The canary's backend is scaled on its own, and the main backend keeps its split.
	f.scale(t, "next-1", "next", "10.2.1.1", "10.2.1.2")
	waitFor(t, 5*time.Second, "next scaled", func() bool { return endpoints(f.store.Head().Backends[next]) == "10.2.1.1:8080,10.2.1.2:8080" })
	head := f.store.Head()
	if c := head.Backends[web].Canary; c == nil || c.Backend != next || c.Weight != 20 {
		t.Fatalf("web's canary after the endpoint syncs = %+v, want 20%% to %s", c, next)
	}
	if got, want := revisions(t, f.store), count+2; got != want {
		t.Fatalf("revisions after two slice changes = %d, want %d", got, want)
	}
	rest(t, r)
	after := r.Stats()
	if got := after.EndpointSyncs - before.EndpointSyncs; got < 2 {
		t.Fatalf("endpoint syncs %d of %d syncs, want one for each slice change", got, after.Syncs-before.Syncs)
	}

	// A Service that an Ingress not applied whole routes to: a full translation, which
	// still writes nothing new for it.
	f.scale(t, "other-1", "other", "10.2.2.1", "10.2.2.2")
	waitFor(t, 5*time.Second, "a sync of the broken Ingress's Service", func() bool { return r.Stats().Syncs > after.Syncs })
	rest(t, r) // every sync the slice change caused is done
	if s := r.Stats(); s.EndpointSyncs != after.EndpointSyncs {
		t.Fatalf("the broken Ingress's Service took the endpoint sync (%d, was %d)", s.EndpointSyncs, after.EndpointSyncs)
	}

	// A slice that takes a Service over the endpoints a backend holds: the plan fails, and a
	// full translation refuses the Ingress. Once the slices shrink it is applied again, by a
	// full translation too, since the last one did not route to the Service. (The second
	// slice comes after the Ingress is applied: the informers of two kinds deliver in no
	// order, so an Ingress created after both slices may first be seen with one of them.)
	var many []string
	for i := 0; i < 1001; i++ {
		many = append(many, fmt.Sprintf("10.3.%d.%d", i/250, i%250+1))
	}
	bigServer := "k8s.big.example.com"
	f.c.Create(t, kubetest.Service(f.ns, "big", 80), kubetest.EndpointSlice(f.ns, "big", "big-1", 8080, kubetest.Ready(many[:501]...)...),
		kubetest.Ingress(f.ns, "big", f.class, kubetest.Path{Host: "big.example.com", Path: "/", Service: "big", Port: 80}))
	// The Ingress may be seen before its slice, and applied with no endpoints first.
	bigBackend := "k8s." + f.ns + ".big.80"
	waitFor(t, 5*time.Second, "the big Ingress applied with its 501 endpoints", func() bool {
		h := f.store.Head()
		return h.Servers[bigServer] != nil && h.Backends[bigBackend] != nil && len(h.Backends[bigBackend].Endpoints) == 501
	})
	f.c.Create(t, kubetest.EndpointSlice(f.ns, "big", "big-2", 8080, kubetest.Ready(many[501:]...)...))
	waitFor(t, 5*time.Second, "the big Ingress refused, its path held", func() bool { return reconciler.Held(f.store.Head().Servers[bigServer]) })
	if e := f.event(t, "big", reconciler.ReasonSkipped); !strings.Contains(e.Message, "1001 ready endpoints") {
		t.Fatalf("the big Ingress is skipped for %q, want its 1001 endpoints", e.Message)
	}
	f.scale(t, "big-2", "big", "10.3.9.1")
	waitFor(t, 5*time.Second, "the big Ingress applied again", func() bool { return f.store.Head().Servers[bigServer] != nil })
	rest(t, r)

	// A full translation of the cluster agrees with what the endpoint syncs wrote.
	count = revisions(t, f.store)
	syncs := r.Stats()
	ing, err := f.c.Client.NetworkingV1().Ingresses(f.ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get ingress: %v", err)
	}
	ing.Annotations = map[string]string{"team": "checkout"}
	if _, err := f.c.Client.NetworkingV1().Ingresses(f.ns).Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update ingress: %v", err)
	}
	waitFor(t, 5*time.Second, "a full sync", func() bool { return r.Stats().Syncs > syncs.Syncs })
	if got, want := revisions(t, f.store), count; got != want {
		var msgs []string
		for id := count + 1; id <= got; id++ {
			rev, err := f.store.Revision(ctx, id)
			if err == nil {
				msgs = append(msgs, fmt.Sprintf("%d: %s", id, rev.Message))
			}
		}
		t.Fatalf("revisions after a full sync = %d, want %d: %q", got, want, msgs)
	}
	if s := r.Stats(); s.EndpointSyncs != syncs.EndpointSyncs || s.Errors != 0 {
		t.Fatalf("stats after the Ingress change: %+v, want a full sync and no error", s)
	}
}
