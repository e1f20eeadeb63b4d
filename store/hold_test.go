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
	for i := range muts {
		src := api.Source{Kind: api.SourceKubernetes, Namespace: "shop", Name: "web"}
		switch {
		case muts[i].Backend != nil:
			muts[i].Backend.Source = src
		case muts[i].Server != nil:
			muts[i].Server.Source = src
		}
	}
	res, err := s.Write(context.Background(), api.Meta{Actor: api.ActorKubernetes, Source: api.SourceKubernetes, Message: "sync"}, muts)
	if err != nil {
		t.Fatalf("kubernetes write: %v", err)
	}
	return res.Revision.ID
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
