package reconciler_test

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
	"github.com/restyplane/restyplane/store"
)

// TestRollbackHoldsAgainstTheCluster: a rollback of what an Ingress asked for outlasts the
// reconciler's next syncs, where before the next sync of anything wrote the cluster's
// content again (and a change that an automatic rollback undid went live again). The
// Ingress hears why; a held backend still follows its Service's endpoints; editing the
// Ingress releases the hold.
func TestRollbackHoldsAgainstTheCluster(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const shop, cart = "shop.example.com", "cart.example.com"
	for i, svc := range []string{"a", "b", "c", "other"} {
		f.c.Create(t, kubetest.Service(f.ns, svc, 80),
			kubetest.EndpointSlice(f.ns, svc, svc+"-1", 8080, kubetest.Endpoint{Address: "10.1.0." + string(rune('2'+i))}))
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
	// edit retries on a conflict: the reconciler writes the Ingress's status meanwhile.
	edit := func(name string, change func(*kubetest.Path) map[string]string) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			ing, err := ingresses.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			p := kubetest.Path{Host: ing.Spec.Rules[0].Host, Path: "/", Service: ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name, Port: 80}
			ing.Annotations = change(&p)
			ing.Spec = kubetest.Ingress(f.ns, name, f.class, p).Spec
			_, err = ingresses.Update(ctx, ing, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("update %s: %v", name, err)
		}
	}
	rollback := func(to int64) {
		t.Helper()
		if _, err := f.store.Rollback(ctx, api.Meta{Actor: api.ActorApplier, Message: "automatic rollback: 5xx"}, to); err != nil {
			t.Fatalf("rollback to %d: %v", to, err)
		}
	}

	// A route moved to another Service, and rolled back.
	f.c.Create(t, kubetest.Ingress(f.ns, "shop", f.class, kubetest.Path{Host: shop, Path: "/", Service: "a", Port: 80}))
	waitFor(t, 5*time.Second, "shop routed to a", func() bool { return routesTo(shop) == backend("a") })
	good := f.store.Head().Revision
	edit("shop", func(p *kubetest.Path) map[string]string { p.Service = "b"; return nil })
	waitFor(t, 5*time.Second, "shop routed to b", func() bool { return routesTo(shop) == backend("b") })
	rollback(good)

	// Another Ingress makes the reconciler sync everything again.
	f.c.Create(t, kubetest.Ingress(f.ns, "other", f.class, kubetest.Path{Host: "other.example.com", Path: "/", Service: "other", Port: 80}))
	waitFor(t, 5*time.Second, "the other Ingress in the store", func() bool { return routesTo("other.example.com") != "" })
	rest(t, r)
	if got, want := routesTo(shop), backend("a"); got != want {
		t.Fatalf("after the rollback and another sync, shop routes to %q, want %q (as the rollback left it)", got, want)
	}
	if f.store.Head().Backends[backend("a")] == nil {
		t.Fatalf("backend %s, which the rolled-back server names, is gone", backend("a"))
	}
	if e := f.event(t, "shop", reconciler.ReasonRolledBack); e.Type != corev1.EventTypeWarning {
		t.Errorf("RolledBack event type = %q, want Warning", e.Type)
	} else {
		t.Logf("RolledBack: %s", e.Message)
	}

	// Backend a, which no Ingress names now, follows its Service's Pods all the same.
	scale := func(svc string, addrs ...string) {
		t.Helper()
		slice, err := f.c.Client.DiscoveryV1().EndpointSlices(f.ns).Get(ctx, svc+"-1", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get slice: %v", err)
		}
		slice.Endpoints = kubetest.EndpointSlice(f.ns, svc, svc+"-1", 8080, kubetest.Ready(addrs...)...).Endpoints
		if _, err := f.c.Client.DiscoveryV1().EndpointSlices(f.ns).Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update slice: %v", err)
		}
	}
	scale("a", "10.4.0.2", "10.4.0.3")
	waitFor(t, 5*time.Second, "backend a's new endpoints", func() bool {
		return endpoints(f.store.Head().Backends[backend("a")]) == "10.4.0.2:8080,10.4.0.3:8080"
	})
	if got, want := routesTo(shop), backend("a"); got != want {
		t.Fatalf("after a's Pods moved, shop routes to %q, want %q", got, want)
	}

	// A backend's settings rolled back: held, while its endpoints follow the Pods.
	f.c.Create(t, kubetest.Ingress(f.ns, "cart", f.class, kubetest.Path{Host: cart, Path: "/", Service: "c", Port: 80}))
	waitFor(t, 5*time.Second, "cart routed to c", func() bool { return routesTo(cart) == backend("c") })
	good = f.store.Head().Revision
	edit("cart", func(*kubetest.Path) map[string]string {
		return map[string]string{"nginx.ingress.kubernetes.io/load-balance": "ewma"}
	})
	waitFor(t, 5*time.Second, "backend c on ewma", func() bool {
		b := f.store.Head().Backends[backend("c")]
		return b != nil && b.LoadBalance == api.EWMA
	})
	rollback(good)
	scale("c", "10.3.0.2", "10.3.0.3")
	waitFor(t, 5*time.Second, "backend c's new endpoints", func() bool {
		return endpoints(f.store.Head().Backends[backend("c")]) == "10.3.0.2:8080,10.3.0.3:8080"
	})
	rest(t, r)
	if got := f.store.Head().Backends[backend("c")].LoadBalance; got != api.RoundRobin {
		t.Fatalf("backend c balances by %q after its endpoints moved, want %q as the rollback left it", got, api.RoundRobin)
	}

	// Editing the Ingress releases the hold: what it asks for now is written.
	edit("shop", func(p *kubetest.Path) map[string]string { p.Service = "b"; p.Path = "/v2"; return nil })
	waitFor(t, 5*time.Second, "shop's edit written", func() bool {
		s := f.store.Head().Servers["k8s."+shop]
		return s != nil && s.Locations[0].Path == "/v2"
	})
	// Backend a, made again by the rollback for the held server, is released and deleted
	// with it: nothing names it any more.
	waitFor(t, 5*time.Second, "backend a gone", func() bool { return f.store.Head().Backends[backend("a")] == nil })
	rest(t, r)
	for ref := range f.store.Holds() {
		if ref.Name == "k8s."+shop || ref.Name == backend("a") || ref.Name == backend("b") {
			t.Errorf("%s %s is still held after its Ingress changed", ref.Kind, ref.Name)
		}
	}
}

// cartOnC runs a reconciler on st with Ingress cart routing to Service c (one Pod,
// 10.3.0.2), at rest, and returns it, c's backend and the revision that serves cart.
func cartOnC(t *testing.T, f *fixture, st reconciler.Store) (*reconciler.Reconciler, string, int64) {
	t.Helper()
	f.c.Create(t, kubetest.Service(f.ns, "c", 80),
		kubetest.EndpointSlice(f.ns, "c", "c-1", 8080, kubetest.Endpoint{Address: "10.3.0.2"}))
	r, _ := f.run(t, st, "one")
	backend := "k8s." + f.ns + ".c.80"
	f.c.Create(t, kubetest.Ingress(f.ns, "cart", f.class, kubetest.Path{Host: "cart.example.com", Path: "/", Service: "c", Port: 80}))
	waitFor(t, 5*time.Second, "backend c", func() bool {
		b := f.store.Head().Backends[backend]
		return b != nil && b.LoadBalance == api.RoundRobin
	})
	rest(t, r)
	return r, backend, f.store.Head().Revision
}

// cartOnEWMA edits Ingress cart to balance by EWMA.
func cartOnEWMA(t *testing.T, f *fixture) {
	t.Helper()
	ctx := context.Background()
	ingresses := f.c.Client.NetworkingV1().Ingresses(f.ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ing, err := ingresses.Get(ctx, "cart", metav1.GetOptions{})
		if err != nil {
			return err
		}
		ing.Annotations = map[string]string{"nginx.ingress.kubernetes.io/load-balance": "ewma"}
		_, err = ingresses.Update(ctx, ing, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("update cart: %v", err)
	}
}

// racingStore is the store with a rollback slipped into a sync: armed, it runs the
// rollback once, when the reconciler next reads the holds or next writes.
type racingStore struct {
	*store.Store
	mu    sync.Mutex
	seam  string // "holds" or "write"
	run   func()
	fired bool
}

var _ reconciler.Store = (*racingStore)(nil)

func (s *racingStore) arm(seam string, run func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seam, s.run = seam, run
}

func (s *racingStore) at(seam string) {
	s.mu.Lock()
	run := s.run
	if s.seam != seam || run == nil {
		s.mu.Unlock()
		return
	}
	s.run, s.fired = nil, true
	s.mu.Unlock()
	run()
}

func (s *racingStore) hasFired() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fired
}

// Holds runs the armed rollback between the sync's read of the head and of the holds.
func (s *racingStore) Holds() map[api.Ref]api.Hold {
	s.at("holds")
	return s.Store.Holds()
}

// Write runs the armed rollback between the sync's reads and its write.
func (s *racingStore) Write(ctx context.Context, meta api.Meta, muts []api.Mutation) (*api.WriteResult, error) {
	s.at("write")
	return s.Store.Write(ctx, meta, muts)
}

// TestRollbackDuringASyncHolds: a rollback committed while a sync runs, after it read the
// head, is not overwritten by that sync's write, which the store refuses; the sync runs
// again from the rollback's head, holds what it took back, and counts no error. Before,
// the write went through over the rollback and the undone content was live again while
// the object was listed as held.
func TestRollbackDuringASyncHolds(t *testing.T) {
	for _, seam := range []string{"holds", "write"} {
		t.Run("before the "+seam, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			st := &racingStore{Store: f.store}
			r, backend, good := cartOnC(t, f, st)
			balance := func() string {
				if b := f.store.Head().Backends[backend]; b != nil {
					return b.LoadBalance
				}
				return ""
			}
			cartOnEWMA(t, f)
			waitFor(t, 5*time.Second, "backend c on ewma", func() bool { return balance() == api.EWMA })
			rest(t, r)

			st.arm(seam, func() {
				if _, err := f.store.Rollback(ctx, api.Meta{Actor: api.ActorApplier, Message: "automatic rollback: 5xx"}, good); err != nil {
					t.Errorf("rollback to %d: %v", good, err)
				}
			})
			f.scale(t, "c-1", "c", "10.3.0.3", "10.3.0.4")
			waitFor(t, 5*time.Second, "backend c's new endpoints", func() bool {
				return endpoints(f.store.Head().Backends[backend]) == "10.3.0.3:8080,10.3.0.4:8080"
			})
			rest(t, r)
			if !st.hasFired() {
				t.Fatalf("no sync read the holds or wrote after the Pods moved: the rollback did not run")
			}
			if got := balance(); got != api.RoundRobin {
				t.Errorf("backend c balances by %q after a rollback during the sync, want %q as the rollback left it", got, api.RoundRobin)
			}
			if _, ok := f.store.Holds()[api.Ref{Kind: api.KindBackend, Name: backend}]; !ok {
				t.Errorf("backend c is not held after the rollback: holds %v", f.store.Holds())
			}
			if n := r.Stats().Errors; n != 0 {
				t.Errorf("the reconciler counted %d failed syncs, want none: a rollback during a sync is no failure", n)
			}
		})
	}
}

// staleStore answers the reads of the head, once armed, with the head it was armed with
// until the holds are next read: a sync that reads the head in the moment after a
// rollback published its holds and before it published its head.
type staleStore struct {
	*store.Store
	mu     sync.Mutex
	stale  *api.State
	served bool
}

var _ reconciler.Store = (*staleStore)(nil)

// Head returns the armed stale head, else the store's.
func (s *staleStore) Head() *api.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.stale; h != nil {
		s.served = true
		return h
	}
	return s.Store.Head()
}

// Holds disarms the stale head once a read of it was served: the holds are read after it.
func (s *staleStore) Holds() map[api.Ref]api.Hold {
	s.mu.Lock()
	if s.served {
		s.stale = nil
	}
	s.mu.Unlock()
	return s.Store.Holds()
}

// TestRollbackSeenHalfByASyncIsFollowed: a sync that reads the head from before a
// rollback and the holds it made has nothing to write against that head, yet the
// rollback took a held backend back to Pods that are gone: the sync runs again from the
// rollback's head, and the held backend gets the Pods there are. Before, nothing was
// written and the backend stayed on the gone Pods until the cluster changed again.
func TestRollbackSeenHalfByASyncIsFollowed(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := &staleStore{Store: f.store}
	r, backend, good := cartOnC(t, f, st)
	state := func() string {
		if b := f.store.Head().Backends[backend]; b != nil {
			return b.LoadBalance + " " + endpoints(b)
		}
		return ""
	}
	f.scale(t, "c-1", "c", "10.3.0.3")
	cartOnEWMA(t, f)
	waitFor(t, 5*time.Second, "backend c on ewma and its new Pod", func() bool { return state() == "ewma 10.3.0.3:8080" })
	rest(t, r)

	st.mu.Lock()
	st.stale = f.store.Head()
	st.mu.Unlock()
	if _, err := f.store.Rollback(ctx, api.Meta{Actor: api.ActorApplier, Message: "automatic rollback: 5xx"}, good); err != nil {
		t.Fatalf("rollback to %d: %v", good, err)
	}
	waitFor(t, 5*time.Second, "backend c held at round_robin, on the Pod there is", func() bool {
		return state() == "round_robin 10.3.0.3:8080"
	})
	st.mu.Lock()
	served := st.served
	st.mu.Unlock()
	if !served {
		t.Fatal("no sync read the stale head")
	}
	if _, ok := f.store.Holds()[api.Ref{Kind: api.KindBackend, Name: backend}]; !ok {
		t.Errorf("backend c is not held after the rollback: holds %v", f.store.Holds())
	}
}
