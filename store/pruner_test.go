package store

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

func TestPrunerRunsUntilCancelled(t *testing.T) {
	s := mustOpen(t)
	for i := 0; i < 5; i++ {
		putBackend(t, s, backend("web", 8000+i))
	}
	revisions := func() int64 {
		n, err := s.RevisionCount(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	p := NewPruner(s, 10*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	go func() { p.Run(ctx); close(done) }()
	if _, err := s.SetRetention(ctx, api.Meta{Actor: "test"}, api.Retention{KeepRevisions: 2}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for revisions() != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the pruner left %d revisions, want 2", revisions())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The prune's audit event is written after its revisions are gone: wait for it too.
	audit := func() []api.AuditEvent {
		ev, err := s.AuditEvents(context.Background(), api.AuditFilter{Action: api.AuditPrune})
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	for len(audit()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the pruner did not stop with its context")
	}
	if ev := audit(); len(ev) != 1 || ev[0].Actor != "retention" {
		t.Fatalf("pruner audit = %+v", ev)
	}
}
