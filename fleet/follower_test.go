package fleet

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

func newTestFollower(t *testing.T, dir string) *Follower {
	t.Helper()
	f, err := New(Options{ControlPlane: "http://127.0.0.1:1", Token: "x", Name: "edge", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAppliedStatePersistsAndLoads: the state a successful apply reports is written to
// state.json (0600, in a 0700 dir, keys included), and a new follower loads it as its head.
func TestAppliedStatePersistsAndLoads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent")
	f := newTestFollower(t, dir)
	if err := f.Load(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.Loaded():
		t.Fatal("loaded without a state on disk")
	default:
	}
	st := api.NewState()
	st.Revision = 7
	st.Backends["web"] = &api.Backend{Name: "web", Version: 7}
	st.Certificates["shop"] = &api.Certificate{Name: "shop", Key: "KEY", Version: 3}
	f.setHead(st, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.persistLoop(ctx)
	// A rejected apply is not what runs: it is not kept.
	_ = f.RecordApply(ctx, &api.ApplyRecord{Revision: 7, Outcome: api.OutcomeRejected})
	_ = f.RecordApply(ctx, &api.ApplyRecord{Revision: 7, Outcome: api.OutcomeSuccess})
	path := filepath.Join(dir, stateFile)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("state.json not written")
		}
		time.Sleep(10 * time.Millisecond)
	}
	fi, _ := os.Stat(path)
	di, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("modes: file %v dir %v, want 0600 and 0700", fi.Mode().Perm(), di.Mode().Perm())
	}
	g := newTestFollower(t, dir)
	if err := g.Load(); err != nil {
		t.Fatal(err)
	}
	<-g.Loaded()
	h := g.Head()
	if h.Revision != 7 || h.Backends["web"] == nil || h.Certificates["shop"].Key != "KEY" {
		t.Fatalf("loaded head = %+v", h)
	}
	if len(g.pending) != 0 || len(f.pending) != 2 {
		t.Fatalf("pending records: loaded %d, original %d", len(g.pending), len(f.pending))
	}
}

// TestBackoffGrowsCapsAndJitters: delays double from the minimum, stop at the maximum,
// and are drawn from the upper half of each step.
func TestBackoffGrowsCapsAndJitters(t *testing.T) {
	min, max := 100*time.Millisecond, 2*time.Second
	for _, tc := range []struct {
		n      int
		random float64
		want   time.Duration
	}{
		{1, 0, 50 * time.Millisecond}, {1, 1, 100 * time.Millisecond},
		{2, 0, 100 * time.Millisecond}, {3, 1, 400 * time.Millisecond},
		{10, 0, time.Second}, {50, 1, 2 * time.Second},
	} {
		if got := backoff(tc.n, min, max, func() float64 { return tc.random }); got != tc.want {
			t.Errorf("backoff(%d, random %v) = %v, want %v", tc.n, tc.random, got, tc.want)
		}
	}
}

// TestDeltaApplies: a snapshot then a delta give the state the control plane holds.
func TestDeltaApplies(t *testing.T) {
	old := api.NewState()
	old.Revision = 1
	old.Backends["a"] = &api.Backend{Name: "a", Version: 1}
	old.Backends["b"] = &api.Backend{Name: "b", Version: 1}
	cur := old.Clone()
	cur.Revision = 2
	cur.Backends["a"] = &api.Backend{Name: "a", Version: 2}
	delete(cur.Backends, "b")
	got := api.Delta(old, cur).ApplyTo(api.Snapshot(old).ApplyTo(nil))
	if got.Revision != 2 || len(got.Backends) != 1 || got.Backends["a"].Version != 2 {
		t.Fatalf("state = %+v", got)
	}
	if old.Backends["b"] == nil {
		t.Fatal("applying a delta changed its base")
	}
}
