package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// kube writes objects as the reconciler does.
func kube(t *testing.T, s *Store, muts ...api.Mutation) int64 {
	t.Helper()
	res, err := kubeWrite(s, api.Meta{Actor: api.ActorKubernetes, Source: api.SourceKubernetes, Message: "sync"}, muts...)
	if err != nil {
		t.Fatalf("kubernetes write: %v", err)
	}
	return res.Revision.ID
}

// kubeWrite writes objects with a kubernetes source, with meta.
func kubeWrite(s *Store, meta api.Meta, muts ...api.Mutation) (*api.WriteResult, error) {
	for i := range muts {
		src := api.Source{Kind: api.SourceKubernetes, Namespace: "shop", Name: "web"}
		switch {
		case muts[i].Backend != nil:
			muts[i].Backend.Source = src
		case muts[i].Server != nil:
			muts[i].Server.Source = src
		}
	}
	return s.Write(context.Background(), meta, muts)
}

// TestRollbackHoldsWhatKubernetesWrote: a rollback holds each object it takes back from
// content Kubernetes wrote (or makes again after Kubernetes deleted it), with the digest
// of the undone content; not the REST API's objects, nor a backend whose endpoints alone
// moved. Holds outlive a restart and are released with an audit event.
func TestRollbackHoldsWhatKubernetesWrote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "restyplane.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b := func(name string, port int, lb string) api.Mutation {
		be := backend(name, port)
		be.LoadBalance = lb
		return api.Mutation{Kind: api.KindBackend, Backend: be}
	}
	srv := func(to string) api.Mutation {
		return api.Mutation{Kind: api.KindServer, Server: server("k8s.shop", "shop.example.com", "/", to)}
	}
	putBackend(t, s, backend("rest", 7000))
	good := kube(t, s, b("a", 8001, api.RoundRobin), b("c", 8003, api.RoundRobin), srv("a"))
	putBackend(t, s, backend("rest", 7001))
	bad := kube(t, s, b("b", 8002, api.RoundRobin), srv("b"), api.Mutation{Kind: api.KindBackend, Name: "a", Delete: true},
		b("c", 8004, api.RoundRobin)) // c: its endpoints alone
	undone := map[api.Ref]string{
		{Kind: api.KindServer, Name: "k8s.shop"}: digestOf(t, s, bad, api.KindServer, "k8s.shop"),
		{Kind: api.KindBackend, Name: "b"}:       digestOf(t, s, bad, api.KindBackend, "b"),
		{Kind: api.KindBackend, Name: "a"}:       "", // Kubernetes had deleted it
	}
	res, err := s.Rollback(ctx, meta("bad deploy"), good)
	if err != nil {
		t.Fatal(err)
	}
	check := func(s *Store) {
		t.Helper()
		holds := s.Holds()
		if len(holds) != len(undone) {
			t.Fatalf("holds = %v, want %d of them (not rest, not c)", holds, len(undone))
		}
		for ref, d := range undone {
			h, ok := holds[ref]
			if !ok || h.Rejected != d || h.Revision != res.Revision.ID {
				t.Errorf("hold on %v = %+v, want rejected %q by revision %d", ref, h, d, res.Revision.ID)
			}
		}
	}
	check(s)
	s.Close()
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(s)

	changed := s.HoldsChanged()
	release := []api.Ref{{Kind: api.KindServer, Name: "k8s.shop"}, {Kind: api.KindBackend, Name: "nothing"}}
	if n, err := s.ReleaseHolds(ctx, api.Meta{Actor: "alice", Message: "fixed upstream"}, release); err != nil || n != 1 {
		t.Fatalf("release = %d, %v; want 1 released (one of the two refs is held)", n, err)
	}
	select {
	case <-changed:
	default:
		t.Error("a release did not wake HoldsChanged")
	}
	if _, ok := s.Holds()[release[0]]; ok || len(s.Holds()) != 2 {
		t.Fatalf("holds after releasing the server = %v", s.Holds())
	}
	evs, err := s.AuditEvents(ctx, api.AuditFilter{Action: api.AuditHoldRelease})
	if err != nil || len(evs) != 1 || evs[0].Actor != "alice" || evs[0].Target != "server/k8s.shop" {
		t.Fatalf("hold release audit = %+v, %v; want one by alice on server/k8s.shop", evs, err)
	}
}

// digestOf is the hold digest of an object as it stood at revision rev.
func digestOf(t *testing.T, s *Store, rev int64, kind, name string) string {
	t.Helper()
	st, err := s.State(context.Background(), rev, true)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := mutationOf(st, api.Ref{Kind: kind, Name: name})
	if !ok {
		t.Fatalf("%s %s not at revision %d", kind, name, rev)
	}
	return api.HoldDigest(m)
}

// lbBackend is a write of backend name on port with the load balancing lb.
func lbBackend(name string, port int, lb string) api.Mutation {
	b := backend(name, port)
	b.LoadBalance = lb
	return api.Mutation{Kind: api.KindBackend, Backend: b}
}

// TestRollbackFailsTheSyncComputedBeforeIt: a write or a release conditioned on no
// rollback after the head it was computed from (the reconciler's sync) fails once a
// rollback was committed since, and stores nothing: it would write again what the
// rollback undid. A REST write since does not fail it, so that those cannot starve the
// reconciler.
func TestRollbackFailsTheSyncComputedBeforeIt(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	sync := func(from int64) api.Meta {
		return api.Meta{Actor: api.ActorKubernetes, Source: api.SourceKubernetes, Message: "sync", NoRollbackAfter: from}
	}
	read := kube(t, s, lbBackend("a", 8001, api.RoundRobin))
	putBackend(t, s, backend("rest", 7000))
	if _, err := kubeWrite(s, sync(read), lbBackend("c", 8003, api.RoundRobin)); err != nil {
		t.Fatalf("a sync's write after a REST write: %v", err)
	}
	good := s.Head().Revision
	bad := kube(t, s, lbBackend("a", 8001, api.EWMA))
	rb, err := s.Rollback(ctx, meta("automatic rollback: 5xx"), good)
	if err != nil {
		t.Fatal(err)
	}
	a := api.Ref{Kind: api.KindBackend, Name: "a"}
	if _, ok := s.Holds()[a]; !ok {
		t.Fatalf("holds after the rollback = %v, want a held", s.Holds())
	}
	revs := revisionCount(t, s)

	// The sync read revision bad, before the rollback.
	_, err = kubeWrite(s, sync(bad), lbBackend("a", 8002, api.EWMA))
	wantCode(t, err, api.EPreconditionFailed)
	_, err = s.ReleaseHolds(ctx, sync(bad), []api.Ref{a})
	wantCode(t, err, api.EPreconditionFailed)
	if got := s.Head().Backends["a"].LoadBalance; got != api.RoundRobin {
		t.Errorf("backend a balances by %q after the refused write, want %q as the rollback left it", got, api.RoundRobin)
	}
	if _, ok := s.Holds()[a]; !ok || revisionCount(t, s) != revs {
		t.Errorf("after the refused write and release: holds %v, %d revisions; want a held, %d revisions", s.Holds(), revisionCount(t, s), revs)
	}

	// The sync read the rollback's revision.
	if _, err := kubeWrite(s, sync(rb.Revision.ID), lbBackend("a", 8002, api.RoundRobin)); err != nil {
		t.Fatalf("a sync's write after the rollback it read: %v", err)
	}
}

// TestWriteReleasesHoldsWithItsRevision: the holds a write names in Meta.Release end in the
// transaction of its revision, audited as released by it; a write that changes nothing
// ends them all the same, and a dry run does not.
func TestWriteReleasesHoldsWithItsRevision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "restyplane.db")
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	good := kube(t, s, lbBackend("a", 8001, api.RoundRobin), lbBackend("c", 8003, api.RoundRobin))
	kube(t, s, lbBackend("a", 8001, api.EWMA), lbBackend("c", 8003, api.EWMA))
	if _, err := s.Rollback(ctx, meta("automatic rollback: 5xx"), good); err != nil {
		t.Fatal(err)
	}
	a, c := api.Ref{Kind: api.KindBackend, Name: "a"}, api.Ref{Kind: api.KindBackend, Name: "c"}
	if len(s.Holds()) != 2 {
		t.Fatalf("holds after the rollback = %v, want a and c", s.Holds())
	}
	release := func(dry bool, refs ...api.Ref) api.Meta {
		return api.Meta{Actor: api.ActorKubernetes, Source: api.SourceKubernetes, Message: "sync", DryRun: dry, Release: refs}
	}

	if _, err := kubeWrite(s, release(true, a), lbBackend("a", 8002, api.EWMA)); err != nil {
		t.Fatal(err)
	}
	if len(s.Holds()) != 2 {
		t.Fatalf("holds after a dry run = %v, want a and c still", s.Holds())
	}
	res, err := kubeWrite(s, release(false, a), lbBackend("a", 8002, api.EWMA))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Holds()[a]; ok || len(s.Holds()) != 1 {
		t.Fatalf("holds after the write releasing a = %v, want c alone", s.Holds())
	}
	noop, err := kubeWrite(s, release(false, c), lbBackend("c", 8003, api.RoundRobin))
	if err != nil || !noop.Noop {
		t.Fatalf("write of c as it is = %+v, %v; want a noop", noop, err)
	}
	if len(s.Holds()) != 0 {
		t.Fatalf("holds after the noop releasing c = %v, want none", s.Holds())
	}
	evs, err := s.AuditEvents(ctx, api.AuditFilter{Action: api.AuditHoldRelease})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, e := range evs {
		got[e.Target] = e.Revision
	}
	if byC, ok := got["backend/c"]; len(evs) != 2 || got["backend/a"] != res.Revision.ID || !ok || byC != 0 {
		t.Fatalf("hold release audit (target: revision) = %v, want backend/a released by revision %d, backend/c by none", got, res.Revision.ID)
	}
	// The holds table agrees with what the store shows.
	s.Close()
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Holds()) != 0 {
		t.Fatalf("holds after a restart = %v, want none", s.Holds())
	}
}

func revisionCount(t *testing.T, s *Store) int64 {
	t.Helper()
	n, err := s.RevisionCount(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRollbackHoldsARulesSplitNotItsPods: a rollback that only moves the Pods of a
// Gateway API rule's backend (its endpoints, and the share answered 500 they scale) holds
// nothing, as for a Service's backend: the next sync writes the Pods there are. One that
// takes the rule's weights back holds it, with the digest of the undone split.
func TestRollbackHoldsARulesSplitNotItsPods(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	rule := func(web, canary int, errorWeight int, addrs ...string) api.Mutation {
		b := &api.Backend{Name: "k8s.httproute.shop.web.rule0", ErrorWeight: errorWeight,
			Split: &api.Split{Parts: []api.SplitPart{{Namespace: "shop", Service: "web", Port: 80, Weight: web},
				{Namespace: "shop", Service: "canary", Port: 80, Weight: canary}}, UnresolvedWeight: 5},
			Source: api.Source{Kind: api.SourceKubernetes, Object: api.ObjectHTTPRoute, Namespace: "shop", Name: "web"}}
		for _, a := range addrs {
			b.Endpoints = append(b.Endpoints, api.Endpoint{Address: a, Port: 8080})
		}
		return api.Mutation{Kind: api.KindBackend, Backend: b}
	}
	k8s := api.Meta{Actor: api.ActorKubernetes, Source: api.SourceKubernetes, Message: "sync"}
	sync := func(m api.Mutation) int64 {
		t.Helper()
		res, err := s.Write(ctx, k8s, []api.Mutation{m})
		if err != nil {
			t.Fatalf("kubernetes write: %v", err)
		}
		return res.Revision.ID
	}
	good := sync(rule(90, 10, 56, "10.0.0.1", "10.0.0.2"))
	sync(rule(90, 10, 111, "10.0.0.3", "10.0.0.4", "10.0.0.2")) // a's Pods moved, and scaled
	if _, err := s.Rollback(ctx, meta("bad deploy"), good); err != nil {
		t.Fatal(err)
	}
	if holds := s.Holds(); len(holds) != 0 {
		t.Fatalf("holds after a rollback of Pods alone = %v, want none", holds)
	}

	before := sync(rule(90, 10, 56, "10.0.0.5", "10.0.0.2"))
	switched := sync(rule(10, 90, 56, "10.0.0.5", "10.0.0.2"))
	res, err := s.Rollback(ctx, meta("bad weights"), before)
	if err != nil {
		t.Fatal(err)
	}
	ref := api.Ref{Kind: api.KindBackend, Name: "k8s.httproute.shop.web.rule0"}
	h, ok := s.Holds()[ref]
	if want := digestOf(t, s, switched, ref.Kind, ref.Name); !ok || h.Rejected != want || h.Revision != res.Revision.ID {
		t.Fatalf("hold on the rule's backend = %+v (%v), want rejected %q by revision %d", h, ok, want, res.Revision.ID)
	}
}
