package reconciler_test

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestLeaderElectionWritesOnce runs two reconcilers on one store: one leads and writes each
// change once; when it stops, the other takes over and goes on.
func TestLeaderElectionWritesOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.c.Create(t, kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.1.0.2")...))
	a, stopA := f.run(t, f.store, "a")
	b, stopB := f.run(t, f.store, "b")
	waitFor(t, 10*time.Second, "a leader", func() bool { return a.Stats().Leader || b.Stats().Leader })
	leader, follower, stopLeader := a, b, stopA
	if b.Stats().Leader {
		leader, follower, stopLeader = b, a, stopB
	}

	f.c.Create(t, kubetest.Ingress(f.ns, "web", f.class, kubetest.Path{Host: "shop.example.com", Path: "/", Service: "web", Port: 80}))
	waitFor(t, 5*time.Second, "the Ingress in the store", func() bool { return f.store.Head().Servers["k8s.shop.example.com"] != nil })
	time.Sleep(500 * time.Millisecond) // time for a second writer, if there were one
	if got, want := revisions(t, f.store), int64(1); got != want {
		t.Fatalf("revisions = %d, want %d", got, want)
	}
	if got, want := follower.Stats().Syncs, int64(0); got != want {
		t.Fatalf("follower syncs = %d, want %d", got, want)
	}
	if got, want := leader.Stats().Writes, int64(1); got != want {
		t.Fatalf("leader writes = %d, want %d", got, want)
	}

	stopLeader()
	waitFor(t, 10*time.Second, "the follower to take over", func() bool { return follower.Stats().Leader })
	slice, err := f.c.Client.DiscoveryV1().EndpointSlices(f.ns).Get(ctx, "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get slice: %v", err)
	}
	slice.Endpoints = kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.1.0.2", "10.1.0.3")...).Endpoints
	if _, err := f.c.Client.DiscoveryV1().EndpointSlices(f.ns).Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update slice: %v", err)
	}
	backend := "k8s." + f.ns + ".web.80"
	waitFor(t, 5*time.Second, "the new leader's write", func() bool {
		return endpoints(f.store.Head().Backends[backend]) == "10.1.0.2:8080,10.1.0.3:8080"
	})
	if got, want := revisions(t, f.store), int64(2); got != want {
		t.Fatalf("revisions = %d, want %d (the new leader's first sync writes only the change)", got, want)
	}
}

// TestLeaderElectionWaitsForExpiry starts a reconciler while the Lease names a holder that
// no longer renews it: the reconciler takes over only when the Lease has expired, counted
// from when it first read it, and counts the transition.
func TestLeaderElectionWaitsForExpiry(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	holder, seconds, now := "gone", int32(2), metav1.NowMicro()
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "reconciler"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds, AcquireTime: &now, RenewTime: &now}}
	if _, err := f.c.Client.CoordinationV1().Leases(f.ns).Create(ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create lease: %v", err)
	}
	start := time.Now()
	a, _ := f.run(t, f.store, "a")
	waitFor(t, 10*time.Second, "a leader", func() bool { return a.Stats().Leader })
	if took, want := time.Since(start), 2*time.Second; took < want {
		t.Fatalf("a led after %v, before the Lease of %v expired", took, want)
	}
	got, err := f.c.Client.CoordinationV1().Leases(f.ns).Get(ctx, "reconciler", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get lease: %v", err)
	}
	if got.Spec.HolderIdentity == nil || *got.Spec.HolderIdentity != "a" || got.Spec.LeaseTransitions == nil || *got.Spec.LeaseTransitions != 1 {
		t.Fatalf("lease holder %v, transitions %v; want a and 1", got.Spec.HolderIdentity, got.Spec.LeaseTransitions)
	}
}
