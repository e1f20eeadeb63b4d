package store

import (
	"context"
	"encoding/binary"
	"io"
	"os"
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

// walRestarts reads the WAL header's checkpoint sequence number, which SQLite counts up
// each time it writes the WAL from its start again.
func walRestarts(t *testing.T, s *Store) uint32 {
	t.Helper()
	f, err := os.Open(s.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var hdr [16]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint32(hdr[12:])
}

// waitRound waits until the checkpointer has finished a round after the runs-th, or
// until time enough for one has passed, since a round with nothing committed before it
// does not count.
func waitRound(s *Store, runs int64) {
	deadline := time.Now().Add(3 * checkpointEvery)
	for s.ckpt.runs.Load() <= runs && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCheckpointerRestartsTheWAL: the WAL is restarted by the checkpointer after a whole
// fold, not by the next revision's commit, which would sync the new WAL header before
// its change could go live; and an idle store neither checkpoints nor writes.
func TestCheckpointerRestartsTheWAL(t *testing.T) {
	s := mustOpen(t)
	// Rounds are held off while the revisions are written and the header read, so that
	// none can restart the WAL before it is read.
	s.ckpt.round.Lock()
	for i := 0; i < 5; i++ {
		putBackend(t, s, backend("web", 8000+i))
	}
	before := walRestarts(t, s)
	runs := s.ckpt.runs.Load()
	s.ckpt.round.Unlock()
	waitRound(s, runs)
	restarted := walRestarts(t, s)
	if restarted <= before {
		t.Fatalf("WAL restarts %d after a checkpoint round with no revision since, want more than %d", restarted, before)
	}
	runs = s.ckpt.runs.Load()
	time.Sleep(3 * checkpointEvery)
	if got := s.ckpt.runs.Load(); got != runs {
		t.Fatalf("%d checkpoint rounds ran on an idle store, want none", got-runs)
	}
	if got := walRestarts(t, s); got != restarted {
		t.Fatalf("WAL restarted %d times more on an idle store, want none", got-restarted)
	}
	var id int64
	if err := s.db.GetContext(context.Background(), &id, `PRAGMA application_id`); err != nil || id != 0x72707931 {
		t.Fatalf("application_id = %#x (%v), want 0x72707931", id, err)
	}
	// The next revision goes on in the restarted WAL and is checkpointed in its turn.
	putBackend(t, s, backend("web", 9000))
	waitRound(s, runs)
	if got := s.ckpt.runs.Load(); got <= runs {
		t.Fatalf("no checkpoint round after a revision")
	}
	if got := s.Head().Backends["web"].Endpoints[0].Port; got != 9000 {
		t.Fatalf("head port = %d, want 9000", got)
	}
}

// TestCheckpointerBoundsTheWALUnderAStream: commits that never pause leave no moment
// when the whole WAL is folded; past its limit the checkpointer restarts it anyway, so
// it does not grow without end.
func TestCheckpointerBoundsTheWALUnderAStream(t *testing.T) {
	s := mustOpen(t)
	s.ckpt.limit.Store(64 << 10)
	putBackend(t, s, backend("web", 8000))
	before := walRestarts(t, s)
	stop := time.Now().Add(3*checkpointEvery + checkpointEvery/2)
	n := 0
	for time.Now().Before(stop) {
		putBackend(t, s, backend("web", 8001+n%1000))
		n++
	}
	if got := walRestarts(t, s); got < before+2 {
		t.Fatalf("WAL restarted %d times in %d back-to-back revisions over %v, want at least 2", got-before, n, 3*checkpointEvery)
	}
	if got, want := s.Head().Backends["web"].Endpoints[0].Port, 8001+(n-1)%1000; got != want {
		t.Fatalf("head port = %d, want %d", got, want)
	}
}
