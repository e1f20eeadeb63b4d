package reconciler_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
	"github.com/restyplane/restyplane/store"
)

// The tests share one API server (it takes seconds to start) and keep out of each other's
// way: each has its own namespace, IngressClass controller name and Lease.
var shared struct {
	once    sync.Once
	cluster *kubetest.Cluster
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cluster != nil {
		if err := shared.cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop cluster:", err)
		}
	}
	os.Exit(code)
}

func cluster(t *testing.T) *kubetest.Cluster {
	t.Helper()
	shared.once.Do(func() { shared.cluster, shared.err = kubetest.Start() })
	if shared.err != nil {
		t.Fatalf("kubetest: %v", shared.err)
	}
	return shared.cluster
}

// fixture is one test's corner of the cluster and its store.
type fixture struct {
	c          *kubetest.Cluster
	ns         string
	class      string
	controller string
	// gatewayController is the GatewayClass controller of a Gateway API fixture's
	// reconciler, whose class is named like the IngressClass; "" otherwise.
	gatewayController string
	store             *store.Store
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureOn(t, cluster(t))
}

// newGatewayFixture is newFixture on a cluster that serves Gateway API's CRDs, with a
// GatewayClass of the fixture's own controller. The cluster is the test's.
func newGatewayFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixtureOn(t, kubetest.StartGatewayAPIT(t))
	f.gatewayController = "restyplane.io/gw-" + f.ns
	f.c.Create(t, kubetest.GatewayClass(f.class, f.gatewayController))
	return f
}

func newFixtureOn(t *testing.T, c *kubetest.Cluster) *fixture {
	t.Helper()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	name = strings.TrimRight(name, "-")
	// The namespace's name is unique in this process, so the class and controller named
	// after it are too (IngressClasses are cluster-wide).
	ns := c.Namespace(t, name)
	f := &fixture{c: c, ns: ns, class: ns, controller: "restyplane.io/" + ns}
	c.Create(t, kubetest.IngressClass(f.class, f.controller, false))
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "restyplane.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	f.store = s
	return f
}

// options returns the options of a reconciler for this fixture, with a short Lease so that
// a take-over is quick.
func (f *fixture) options(identity string) reconciler.Options {
	return reconciler.Options{Config: f.c.Config, Controller: f.controller, GatewayController: f.gatewayController, StatusAddress: "127.0.0.1",
		LeaseNamespace: f.ns, LeaseName: "reconciler", Identity: identity,
		LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 200 * time.Millisecond}
}

// run starts a reconciler on st and returns it and a function that stops it and waits.
func (f *fixture) run(t *testing.T, st reconciler.Store, identity string) (*reconciler.Reconciler, func()) {
	t.Helper()
	return f.runWith(t, st, f.options(identity))
}

// runWith is run with the options given.
func (f *fixture) runWith(t *testing.T, st reconciler.Store, opts reconciler.Options) (*reconciler.Reconciler, func()) {
	t.Helper()
	r, err := reconciler.New(st, opts)
	if err != nil {
		t.Fatalf("new reconciler: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("reconciler did not stop within 10s")
			}
		})
	}
	t.Cleanup(stop)
	return r, stop
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rest waits until r has run no sync for a while: the informers' handlers deliver the
// objects of a start (or of a change) in no order across kinds, and a late one causes a
// sync of its own.
func rest(t *testing.T, r *reconciler.Reconciler) {
	t.Helper()
	last := r.Stats().Syncs
	quietSince := time.Now()
	waitFor(t, 10*time.Second, "the reconciler at rest", func() bool {
		if s := r.Stats(); s.Syncs != last || s.QueueDepth != 0 {
			last, quietSince = s.Syncs, time.Now()
		}
		return time.Since(quietSince) > 300*time.Millisecond
	})
}

// event waits for an Event of the reason on the object and returns it.
func (f *fixture) event(t *testing.T, name, reason string) corev1.Event {
	t.Helper()
	var found corev1.Event
	defer func(start time.Time) { t.Logf("event %s on %s after %v", reason, name, time.Since(start)) }(time.Now())
	waitFor(t, 10*time.Second, "event "+reason+" on "+name, func() bool {
		for _, e := range f.c.Events(t, f.ns, name) {
			if e.Reason == reason {
				found = e
				return true
			}
		}
		return false
	})
	return found
}

func endpoints(b *api.Backend) string {
	if b == nil {
		return "<no backend>"
	}
	var s []string
	for _, e := range b.Endpoints {
		s = append(s, fmt.Sprintf("%s:%d", e.Address, e.Port))
	}
	return strings.Join(s, ",")
}

func revisions(t *testing.T, st *store.Store) int64 {
	t.Helper()
	n, err := st.RevisionCount(context.Background())
	if err != nil {
		t.Fatalf("revision count: %v", err)
	}
	return n
}

// The store is what the reconciler writes to in restyplane serve.
var _ reconciler.Store = (*store.Store)(nil)

// scale sets the endpoints of EndpointSlice slice of Service svc to the addresses, on
// port 8080.
func (f *fixture) scale(t *testing.T, slice, svc string, addrs ...string) {
	t.Helper()
	ctx := context.Background()
	s, err := f.c.Client.DiscoveryV1().EndpointSlices(f.ns).Get(ctx, slice, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get slice: %v", err)
	}
	s.Endpoints = kubetest.EndpointSlice(f.ns, svc, slice, 8080, kubetest.Ready(addrs...)...).Endpoints
	if _, err := f.c.Client.DiscoveryV1().EndpointSlices(f.ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update slice: %v", err)
	}
}
