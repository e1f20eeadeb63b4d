package store

import (
	"context"
	"testing"
	"time"
)

// TestWALCheckpointedInTheBackground: no connection checkpoints at commit (SQLite's
// automatic checkpoint is off on every pooled connection), and the background
// checkpointer folds the WAL that writes leave.
func TestWALCheckpointedInTheBackground(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	for i := 0; i < 8; i++ {
		var n int
		if err := s.db.GetContext(ctx, &n, `PRAGMA wal_autocheckpoint`); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("wal_autocheckpoint = %d on a pooled connection, want 0", n)
		}
	}
	for i := 0; i < 50; i++ {
		putBackend(t, s, backend("web", 8000+i))
	}
	before := s.ckpt.runs.Load()
	deadline := time.Now().Add(30 * time.Second)
	for s.ckpt.runs.Load() <= before {
		if time.Now().After(deadline) {
			t.Fatalf("no background checkpoint within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := s.Head().Backends["web"].Endpoints[0].Port; got != 8049 {
		t.Fatalf("head port = %d after the checkpoint, want 8049", got)
	}
}
