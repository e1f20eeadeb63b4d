package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// mustOpen opens a store on a real SQLite file in a temporary directory.
func mustOpen(tb testing.TB) *Store {
	tb.Helper()
	s, err := Open(context.Background(), filepath.Join(tb.TempDir(), "restyplane.db"))
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func meta(msg string) api.Meta {
	return api.Meta{Actor: "tester", Source: api.SourceAPI, Message: msg}
}

func backend(name string, ports ...int) *api.Backend {
	b := &api.Backend{Name: name}
	for _, p := range ports {
		b.Endpoints = append(b.Endpoints, api.Endpoint{Address: "127.0.0.1", Port: p})
	}
	return b
}

func putBackend(tb testing.TB, s *Store, b *api.Backend) *api.WriteResult {
	tb.Helper()
	res, err := s.Write(context.Background(), meta("put "+b.Name), []api.Mutation{{Kind: api.KindBackend, Backend: b}})
	if err != nil {
		tb.Fatalf("write backend %s: %v", b.Name, err)
	}
	return res
}

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := api.ErrorCode(err); got != code {
		tb.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func TestHistoryAndStateAtRevision(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	r1 := putBackend(t, s, backend("web", 8001))
	r2 := putBackend(t, s, backend("web", 8002))
	putBackend(t, s, backend("api", 9000))
	if got, want := r1.Revision.ID, int64(1); got != want {
		t.Fatalf("first revision = %d, want %d", got, want)
	}
	if got, want := r2.Diff.Entries[0].Op, api.OpUpdate; got != want {
		t.Fatalf("second write op = %q, want %q", got, want)
	}
	st, err := s.State(ctx, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := st.Backends["web"].Endpoints[0].Port, 8001; got != want {
		t.Fatalf("port at revision 1 = %d, want %d", got, want)
	}
	if st.Backends["api"] != nil {
		t.Fatalf("backend api exists at revision 1")
	}
	if got, want := s.Head().Backends["web"].Endpoints[0].Port, 8002; got != want {
		t.Fatalf("head port = %d, want %d", got, want)
	}
	if got, want := s.Head().Backends["web"].Version, int64(2); got != want {
		t.Fatalf("web version = %d, want %d", got, want)
	}
	revs, err := s.Revisions(ctx, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(revs), 2; got != want {
		t.Fatalf("page size = %d, want %d", got, want)
	}
	if got, want := revs[0].ID, int64(3); got != want {
		t.Fatalf("newest revision = %d, want %d", got, want)
	}
	older, _ := s.Revisions(ctx, revs[1].ID, 10)
	if got, want := len(older), 1; got != want {
		t.Fatalf("second page size = %d, want %d", got, want)
	}
	rev, err := s.Revision(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rev.Message, "put web"; got != want {
		t.Fatalf("message = %q, want %q", got, want)
	}
	if got, want := len(rev.Changes), 1; got != want {
		t.Fatalf("changes = %d, want %d", got, want)
	}
	_, err = s.Revision(ctx, 99)
	wantCode(t, err, api.ENotFound)
	_, err = s.State(ctx, 99, false)
	wantCode(t, err, api.ENotFound)
}

func TestNoopWriteMakesNoRevision(t *testing.T) {
	s := mustOpen(t)
	putBackend(t, s, backend("web", 8001))
	res := putBackend(t, s, backend("web", 8001))
	if !res.Noop || res.Revision != nil {
		t.Fatalf("identical write: noop = %v, revision = %v; want a noop without revision", res.Noop, res.Revision)
	}
	if n, _ := s.RevisionCount(context.Background()); n != 1 {
		t.Fatalf("revisions = %d, want 1", n)
	}
}

func TestReopenLoadsHead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	putBackend(t, s, backend("web", 8001, 8002))
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := s.Head().Revision, int64(1); got != want {
		t.Fatalf("head revision after reopen = %d, want %d", got, want)
	}
	if got, want := len(s.Head().Backends["web"].Endpoints), 2; got != want {
		t.Fatalf("endpoints after reopen = %d, want %d", got, want)
	}
}

func TestHeadChangedWakesOnWrite(t *testing.T) {
	s := mustOpen(t)
	ch := s.HeadChanged()
	select {
	case <-ch:
		t.Fatal("woken before any write")
	default:
	}
	putBackend(t, s, backend("web", 8001))
	select {
	case <-ch:
	default:
		t.Fatal("not woken by a write")
	}
}

// TestOpenSettings guards the connection settings, which the driver applies in its own
// order from the DSN.
func TestOpenSettings(t *testing.T) {
	s := mustOpen(t)
	var foreignKeys, synchronous int
	var journal string
	for q, dst := range map[string]any{"PRAGMA foreign_keys": &foreignKeys, "PRAGMA synchronous": &synchronous, "PRAGMA journal_mode": &journal} {
		if err := s.db.Get(dst, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if foreignKeys != 1 || synchronous != 1 || journal != "wal" {
		t.Fatalf("foreign_keys %d, synchronous %d, journal_mode %s; want 1, 1 (NORMAL), wal", foreignKeys, synchronous, journal)
	}
}
