package openresty

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
)

func planState(rev int64, backends map[string]int64, certs map[string]int64) *api.State {
	s := api.NewState()
	s.Revision = rev
	for name, v := range backends {
		s.Backends[name] = &api.Backend{Name: name, Version: v}
	}
	for name, v := range certs {
		s.Certificates[name] = &api.Certificate{Name: name, Version: v}
	}
	return s
}

func objectNames[T any](objs []T, name func(T) string) []string {
	var out []string
	for _, o := range objs {
		out = append(out, name(o))
	}
	return out
}

func TestDynamicChangesListsWhatDiffersSorted(t *testing.T) {
	running := planState(5, map[string]int64{"a": 1, "b": 2, "c": 3, "gone-2": 1, "gone-1": 1}, map[string]int64{"tls": 1, "old": 1})
	head := planState(9, map[string]int64{"a": 1, "b": 7, "c": 3, "z-new": 9, "m-new": 8}, map[string]int64{"tls": 6})
	backend := func(b api.Backend) string { return b.Name }
	cert := func(c api.Certificate) string { return c.Name }

	p := dynamicChanges(running, head, false)
	got := map[string][]string{
		"backends": objectNames(p.Backends, backend), "deleted backends": p.DeletedBackends,
		"certificates": objectNames(p.Certificates, cert), "deleted certificates": p.DeletedCerts,
	}
	want := map[string][]string{
		"backends": {"b", "m-new", "z-new"}, "deleted backends": {"gone-1", "gone-2"},
		"certificates": {"tls"}, "deleted certificates": {"old"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("dynamicChanges (-want +got):\n%s", diff)
	}

	full := dynamicChanges(nil, head, true)
	if got, want := objectNames(full.Backends, backend), []string{"a", "b", "c", "m-new", "z-new"}; !cmp.Equal(got, want) {
		t.Fatalf("full push backends = %v, want %v", got, want)
	}
	if !full.Full || full.DeletedBackends != nil || full.DeletedCerts != nil {
		t.Fatalf("full push = %+v, want Full and no deletions (it replaces everything)", full)
	}
	if p := dynamicChanges(head, head, false); !p.Empty() {
		t.Fatalf("no change gave a push: %+v", p)
	}
}

// testCounter counts the applier's own nginx -t runs; the fake's Reload tests on its own,
// as Instance.Reload does, and is not counted.
type testCounter struct {
	*fakeProxy
	tests atomic.Int32
}

func (c *testCounter) Test(ctx context.Context, conf []byte, certs []api.Certificate) error {
	c.tests.Add(1)
	return c.fakeProxy.Test(ctx, conf, certs)
}

func TestReloadTestsFirstOnlyWhenItPushes(t *testing.T) {
	s := openStore(t)
	p := &testCounter{fakeProxy: &fakeProxy{restarted: make(chan struct{}), rejectOn: "/bad"}}
	mustWrite(t, s, web(8001))
	mustWrite(t, s, shop("/"))
	a := NewApplier(s, p, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), "test")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	applied := func(rev int64) func() bool {
		return func() bool { return a.Status(context.Background()).Applied == rev }
	}
	waitFor(t, "first apply", applied(s.Head().Revision))
	if got, want := p.tests.Load(), int32(1); got != want {
		t.Fatalf("first apply (a full push) ran nginx -t %d times before the reload, want %d", got, want)
	}

	// A location change pushes nothing: Reload's own test is enough.
	rev := mustWrite(t, s, shop("/", "/api"))
	waitFor(t, "reload", applied(rev))
	if got, want := p.tests.Load(), int32(1); got != want {
		t.Fatalf("a reload with nothing to push ran the applier's nginx -t: %d tests, want %d", got, want)
	}
	bad := mustWrite(t, s, shop("/", "/bad"))
	waitFor(t, "rejection", func() bool { return a.Status(context.Background()).Rejected == bad })
	if r, n := p.count(); r != 2 || n != 1 {
		t.Fatalf("after a rejected reload: %d reloads, %d pushes; want 2 and 1", r, n)
	}

	// A backend and a location in one revision: the push waits for the test.
	rev = mustWrite(t, s, web(8002), shop("/", "/v2"))
	waitFor(t, "reload with a push", applied(rev))
	if got, want := p.tests.Load(), int32(2); got != want {
		t.Fatalf("a reload that pushes ran nginx -t %d times in all, want %d", got, want)
	}
	if r, n := p.count(); r != 3 || n != 2 {
		t.Fatalf("after the reload with a push: %d reloads, %d pushes; want 3 and 2", r, n)
	}
}

func TestSameStructure(t *testing.T) {
	base := api.NewState()
	base.Servers["shop"] = &api.Server{Name: "shop", Version: 3}
	base.Certificates["tls"] = &api.Certificate{Name: "tls", Version: 2}
	base.Backends["web"] = &api.Backend{Name: "web", Version: 3}
	tests := []struct {
		name   string
		change func(s *api.State)
		same   bool
	}{
		{"backend changed", func(s *api.State) { s.Backends["web"] = &api.Backend{Name: "web", Version: 9} }, true},
		{"certificate contents changed", func(s *api.State) { s.Certificates["tls"] = &api.Certificate{Name: "tls", Version: 9} }, true},
		{"certificate added", func(s *api.State) { s.Certificates["new"] = &api.Certificate{Name: "new", Version: 9} }, false},
		{"server changed", func(s *api.State) { s.Servers["shop"] = &api.Server{Name: "shop", Version: 9} }, false},
		{"server added", func(s *api.State) { s.Servers["b"] = &api.Server{Name: "b", Version: 9} }, false},
		{"server removed", func(s *api.State) { delete(s.Servers, "shop") }, false},
		{"settings changed", func(s *api.State) { s.Settings.Version = 9 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := base.Clone()
			tt.change(head)
			if got := sameStructure(base, head); got != tt.same {
				t.Fatalf("sameStructure = %v, want %v", got, tt.same)
			}
		})
	}
}
