package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// checkpointEvery is how often the background checkpointer folds the WAL into the
// database file. SQLite's automatic checkpoint is off (wal_autocheckpoint(0) in the DSN):
// it ran inside the commit that crossed 1000 pages, with an fsync of the database file,
// so every hundredth API write or so waited for it before its change could go live.
const checkpointEvery = time.Second

// checkpointer runs PRAGMA wal_checkpoint(PASSIVE) every checkpointEvery on a pooled
// connection of its own. A passive checkpoint never blocks a writer: a commit that comes
// meanwhile appends to the WAL, and the pages it adds wait for the next round.
type checkpointer struct {
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
	// runs counts the checkpoints that completed, for tests.
	runs atomic.Int64
}

func (s *Store) startCheckpointer() {
	c := &checkpointer{stop: make(chan struct{})}
	s.ckpt = c
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
			}
			// An error (the database busy with a TRUNCATE checkpoint of Checkpoint, say)
			// leaves the pages for the next round.
			if _, err := s.db.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`); err == nil {
				c.runs.Add(1)
			}
		}
	}()
}

// stopCheckpointer ends the checkpointer and waits for it, before the database closes;
// a second Close stops nothing more.
func (s *Store) stopCheckpointer() {
	if s.ckpt != nil {
		s.ckpt.stopOnce.Do(func() { close(s.ckpt.stop) })
		s.ckpt.done.Wait()
	}
}
