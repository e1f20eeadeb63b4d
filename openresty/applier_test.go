package openresty

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
	"github.com/restyplane/restyplane/store"
)

// fakeProxy stands in for OpenResty in unit tests of the applier's decisions; the
// end-to-end tests drive a real nginx.
type fakeProxy struct {
	mu        sync.Mutex
	reloads   int
	pushes    []render.Push
	rejectOn  string // a Test of a config containing this fails
	restarted chan struct{}
}

func (f *fakeProxy) RenderSized(cfg api.Config, dicts render.DictSizes, gen string) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "gen %s\ndicts %d %d\n", gen, dicts.Backends, dicts.Certificates)
	for _, s := range cfg.Servers {
		fmt.Fprintf(&b, "server %s %v\n", s.Name, s.Locations)
	}
	fmt.Fprintf(&b, "workers %d\n", cfg.Settings.WorkerConnections)
	return []byte(b.String()), nil
}

func (f *fakeProxy) Test(_ context.Context, conf []byte, _ []api.Certificate) error {
	if f.rejectOn != "" && strings.Contains(string(conf), f.rejectOn) {
		return errors.New(`nginx: [emerg] unexpected "}"`)
	}
	return nil
}

func (f *fakeProxy) Reload(ctx context.Context, conf []byte, certs []api.Certificate, _ string) error {
	if err := f.Test(ctx, conf, certs); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reloads++
	return nil
}

func (f *fakeProxy) Push(_ context.Context, _ int64, p render.Push) ([]api.SkippedObject, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pushes = append(f.pushes, p)
	return nil, nil
}

func (f *fakeProxy) Restarted() <-chan struct{} { return f.restarted }
func (f *fakeProxy) State() string              { return "running" }

func (f *fakeProxy) count() (reloads, pushes int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reloads, len(f.pushes)
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustWrite(t *testing.T, s *store.Store, muts ...api.Mutation) int64 {
	t.Helper()
	res, err := s.Write(context.Background(), api.Meta{Actor: "t", Source: api.SourceAPI, Message: "test"}, muts)
	if err != nil {
		t.Fatal(err)
	}
	return res.Revision.ID
}

func startApplier(t *testing.T, s *store.Store, p *fakeProxy) *Applier {
	t.Helper()
	a := NewApplier(s, p, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), "test")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return a
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func web(port int) api.Mutation {
	return api.Mutation{Kind: api.KindBackend, Backend: &api.Backend{Name: "web",
		Endpoints: []api.Endpoint{{Address: "127.0.0.1", Port: port}}}}
}

func shop(paths ...string) api.Mutation {
	s := &api.Server{Name: "shop", Hostnames: []string{"shop.example.com"}}
	for _, p := range paths {
		s.Locations = append(s.Locations, api.Location{Path: p, Backend: "web"})
	}
	return api.Mutation{Kind: api.KindServer, Server: s}
}

func TestApplierChoosesDynamicOrReload(t *testing.T) {
	s := openStore(t)
	p := &fakeProxy{restarted: make(chan struct{})}
	mustWrite(t, s, web(8001))
	mustWrite(t, s, shop("/"))
	a := startApplier(t, s, p)
	waitFor(t, "first apply", func() bool { return a.Status(context.Background()).InSync })
	reloads, pushes := p.count()
	if reloads != 1 || pushes != 1 || !p.pushes[0].Full {
		t.Fatalf("first apply: reloads %d, pushes %d; want one reload with a full push", reloads, pushes)
	}
	rev := mustWrite(t, s, web(8002))
	waitFor(t, "dynamic apply", func() bool { return a.Status(context.Background()).Applied == rev })
	if r, n := p.count(); r != 1 || n != 2 || len(p.pushes[1].Backends) != 1 {
		t.Fatalf("endpoint change: reloads %d, pushes %d (%+v); want a dynamic push of one backend", r, n, p.pushes)
	}
	if got := a.Status(context.Background()).LastApply.Mode; got != api.ModeDynamic {
		t.Fatalf("mode = %q, want dynamic", got)
	}
	rev = mustWrite(t, s, shop("/", "/api"))
	waitFor(t, "reload", func() bool { return a.Status(context.Background()).Applied == rev })
	if r, _ := p.count(); r != 2 {
		t.Fatalf("location change: reloads = %d, want 2", r)
	}
}

func TestApplierRejectsAndGoesOn(t *testing.T) {
	s := openStore(t)
	p := &fakeProxy{restarted: make(chan struct{}), rejectOn: "/bad"}
	mustWrite(t, s, web(8001))
	good := mustWrite(t, s, shop("/"))
	a := startApplier(t, s, p)
	waitFor(t, "first apply", func() bool { return a.Status(context.Background()).Applied == good })
	bad := mustWrite(t, s, shop("/", "/bad"))
	waitFor(t, "rejection", func() bool { return a.Status(context.Background()).Rejected == bad })
	st := a.Status(context.Background())
	if st.Applied != good || st.InSync || !strings.Contains(st.LastApply.Error, "unexpected") {
		t.Fatalf("after rejection: %+v", st)
	}
	if _, n := p.count(); n != 1 {
		t.Fatalf("a rejected revision pushed dynamic state (%d pushes)", n)
	}
	fixed := mustWrite(t, s, shop("/", "/good"))
	waitFor(t, "next good head", func() bool { return a.Status(context.Background()).Applied == fixed })
}
