package rollback

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// fakeStore is a history of states by revision; Rollback appends a copy of the target.
type fakeStore struct {
	mu        sync.Mutex
	states    []*api.State
	rollbacks []api.Meta
}

func (s *fakeStore) Head() *api.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.states[len(s.states)-1]
}

func (s *fakeStore) HeadChanged() <-chan struct{} { return make(chan struct{}) }

func (s *fakeStore) Rollback(_ context.Context, meta api.Meta, to int64) (*api.WriteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := *s.states[to-1]
	next.Revision = int64(len(s.states) + 1)
	s.states = append(s.states, &next)
	s.rollbacks = append(s.rollbacks, meta)
	return &api.WriteResult{Revision: &api.Revision{ID: next.Revision}}, nil
}

func (s *fakeStore) push(st *api.State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Revision = int64(len(s.states) + 1)
	s.states = append(s.states, st)
}

func state(version int64, kept bool) *api.State {
	st := &api.State{
		Settings: api.Settings{RollbackWindow: "30s", RollbackErrorRatio: 0.5, RollbackMinRequests: 10, RollbackMinClients: 3},
		Backends: map[string]*api.Backend{"web": {Name: "web", Version: version}},
	}
	if kept {
		st.Kept = -1 // set to the revision once pushed
	}
	return st
}

func bad() map[string]api.BackendCounter {
	return map[string]api.BackendCounter{"web": {Requests: 20, Errors: 20, Clients: 2}}
}

func TestWatcherRollsBackOnceAndNeverAKeptRevision(t *testing.T) {
	st := &fakeStore{}
	st.push(state(1, false))
	w := New(st, slog.New(slog.DiscardHandler), nil, nil)
	w.headMoved(st.Head(), time.Now()) // as Run does at its start
	w.lastGood = 1

	kept := state(2, true)
	st.push(kept)
	kept.Kept = kept.Revision
	w.headMoved(st.Head(), time.Now())
	for _, n := range []string{"a", "b"} {
		w.Observe(n, 2, map[string]api.BackendCounter{})
		w.Observe(n, 2, bad())
	}
	w.check(context.Background(), time.Now())
	if len(st.rollbacks) != 0 {
		t.Fatalf("a kept revision was rolled back: %v", st.rollbacks)
	}

	st.push(state(3, false))
	w.headMoved(st.Head(), time.Now())
	for _, n := range []string{"a", "b"} {
		w.Observe(n, 3, map[string]api.BackendCounter{})
		w.Observe(n, 2, bad()) // counters of an instance still on 2 do not count for 3
	}
	w.check(context.Background(), time.Now())
	if len(st.rollbacks) != 0 {
		t.Fatalf("rolled back on another revision's counters: %v", st.rollbacks)
	}
	for _, n := range []string{"a", "b"} {
		w.Observe(n, 3, bad())
	}
	w.check(context.Background(), time.Now())
	w.check(context.Background(), time.Now())
	if len(st.rollbacks) != 1 {
		t.Fatalf("rollbacks = %d, want exactly 1", len(st.rollbacks))
	}
	m := st.rollbacks[0]
	if m.Actor != api.ActorApplier || !strings.Contains(m.Message, "revision 3") || !strings.Contains(m.Message, "on instances a, b") ||
		!strings.Contains(m.Message, "40 of 40 requests") {
		t.Fatalf("rollback meta = %+v", m)
	}
	if h := st.Head(); h.Backends["web"].Version != 2 {
		t.Fatalf("rolled back to %+v, want the kept revision 2's state", h.Backends["web"])
	}
	// The rollback itself is not watched: the same bad counters roll nothing back again.
	w.headMoved(st.Head(), time.Now())
	for _, n := range []string{"a", "b"} {
		w.Observe(n, st.Head().Revision, map[string]api.BackendCounter{})
		w.Observe(n, st.Head().Revision, bad())
	}
	w.check(context.Background(), time.Now())
	if len(st.rollbacks) != 1 {
		t.Fatalf("the rollback was rolled back: %v", st.rollbacks)
	}
}
