package store

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// walSpace returns the WAL's size and the bytes allocated to it.
func walSpace(t *testing.T, s *Store) (size, allocated int64) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(s.path+"-wal", &st); err != nil {
		t.Fatal(err)
	}
	return st.Size, st.Blocks * 512
}

// TestWALKeptAllocatedAheadOfCommits: the WAL is allocated past its end when the store
// opens, so commits write into allocated blocks (walspace_linux.go says why), and the
// checkpointer gives the reserve back after the WAL lost it to a truncation.
func TestWALKeptAllocatedAheadOfCommits(t *testing.T) {
	s := mustOpen(t)
	for i := 0; i < 20; i++ {
		putBackend(t, s, backend("web", 8000+i))
	}
	if size, alloc := walSpace(t, s); alloc < size+walReserve/2 {
		t.Fatalf("WAL of %d bytes has %d allocated after the open, want at least %d", size, alloc, size+walReserve/2)
	}
	// A TRUNCATE checkpoint frees the WAL's blocks with its length. Rounds are held off
	// meanwhile: one would give the reserve back before the check could see it gone.
	s.ckpt.round.Lock()
	if err := s.Checkpoint(context.Background()); err != nil {
		s.ckpt.round.Unlock()
		t.Fatal(err)
	}
	_, alloc := walSpace(t, s)
	s.ckpt.round.Unlock()
	if alloc >= walReserve/2 {
		t.Fatalf("WAL still has %d bytes allocated after the truncation; the test cannot see the reserve come back", alloc)
	}
	putBackend(t, s, backend("web", 9000))
	deadline := time.Now().Add(3 * checkpointEvery)
	for {
		size, alloc := walSpace(t, s)
		if alloc >= size+walReserve/2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("WAL of %d bytes has %d allocated %v after the truncation, want at least %d", size, alloc, 3*checkpointEvery, size+walReserve/2)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := s.Head().Backends["web"].Endpoints[0].Port; got != 9000 {
		t.Fatalf("head port = %d, want 9000", got)
	}
}
