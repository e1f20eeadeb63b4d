package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
)

// checkpointEvery is how often the background checkpointer folds the WAL into the
// database file. SQLite's automatic checkpoint is off (wal_autocheckpoint(0) in the DSN):
// it ran inside the commit that crossed 1000 pages, with an fsync of the database file,
// so every hundredth API write or so waited for it before its change could go live.
const checkpointEvery = time.Second

// restartSQL is the write that restarts the WAL (restartWAL): the database header's
// application_id, set to 0x72707931 ("rpy1"), which also names the file as restyplane's
// to tools that read the header.
const restartSQL = `PRAGMA application_id = 1919973681`

// walLimit is the WAL's length past which the checkpointer restarts it even while
// commits keep coming (restartWAL). walFrameBytes is the length of one frame: a page of
// SQLite's default 4096 bytes and its 24-byte header.
const (
	walLimit      = 64 << 20
	walFrameBytes = 4096 + 24
)

// checkpointer runs PRAGMA wal_checkpoint(PASSIVE) every checkpointEvery, when something
// was committed since its last round, on a connection of its own. A passive checkpoint
// never blocks a writer: a commit that comes meanwhile appends to the WAL, and the pages
// it adds wait for the next round.
type checkpointer struct {
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
	conn     *sqlx.Conn
	// limit is walLimit, lower in tests (set while the checkpointer runs).
	limit atomic.Int64
	// seen is the data_version of the last round: SQLite changes it on conn whenever
	// another connection commits.
	seen int64
	// runs counts the rounds that folded the WAL, counted once the round has also
	// restarted it, for tests.
	runs atomic.Int64
	// round is held for each round, so that a test can hold rounds off while it writes
	// and reads the WAL's header.
	round sync.Mutex
}

func (s *core) startCheckpointer(ctx context.Context) error {
	conn, err := s.db.Connx(ctx)
	if err != nil {
		return err
	}
	c := &checkpointer{stop: make(chan struct{}), conn: conn, seen: -1}
	c.limit.Store(walLimit)
	s.ckpt = c
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		defer conn.Close()
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
			}
			c.round.Lock()
			// An error (the database busy with a TRUNCATE checkpoint of Checkpoint, say)
			// leaves the pages for the next round.
			_ = s.checkpoint(context.Background(), c)
			// A WAL that grew (a stream of commits that left no round a whole checkpoint)
			// gets its reserve back here, off the commit path. A failure (a full disk,
			// say) only leaves commits to append as SQLite's own do, and a full disk
			// fails them with its own error; the next round tries again.
			_ = reserveWAL(s.path)
			c.round.Unlock()
		}
	}()
	return nil
}

// checkpoint is one round: fold the WAL, then restart it if the fold was whole, or if
// the WAL is past its limit.
func (s *core) checkpoint(ctx context.Context, c *checkpointer) error {
	var version int64
	if err := c.conn.GetContext(ctx, &version, `PRAGMA data_version`); err != nil {
		return err
	}
	if version == c.seen {
		return nil
	}
	whole, frames, err := c.fold(ctx)
	if err != nil {
		return err
	}
	c.seen = version
	long := int64(frames)*walFrameBytes > c.limit.Load()
	if whole || long {
		if err := s.restartWAL(ctx, c, long); err != nil {
			return err
		}
	}
	c.runs.Add(1)
	return nil
}

// fold runs a passive checkpoint; whole says it folded every frame the WAL had when it
// began, of which there were frames.
func (c *checkpointer) fold(ctx context.Context) (whole bool, frames int, err error) {
	var busy, folded int
	if err := c.conn.QueryRowxContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &folded); err != nil {
		return false, 0, err
	}
	return busy == 0 && frames > 0 && folded == frames, frames, nil
}

// restartWAL makes the checkpointer, not the next revision, restart the WAL. The first
// commit after a whole checkpoint writes the WAL from its start again, and SQLite syncs
// the new header before it goes on, so that frames of the old WAL can never be replayed
// over the database (even with synchronous=NORMAL): that fsync, tens of milliseconds on a
// busy disk, held up every fourth or so change before it could go live. Here it is a
// one-page write of the header's application_id, under the writer lock; the frame it
// leaves in the WAL is not folded until something else is committed, so an idle store
// does not write every second.
//
// With refold the WAL is folded again under the writer lock first: commits that keep
// coming leave no moment when the whole WAL is folded, and it would grow without end.
// That fold holds revisions up for its fsyncs, so only a WAL past its limit gets it.
func (s *core) restartWAL(ctx context.Context, c *checkpointer, refold bool) error {
	var first func(context.Context) error
	if refold {
		first = func(ctx context.Context) error { _, _, err := c.fold(ctx); return err }
	}
	// The fold comes before the transaction begins: the WAL restarts only for a writer
	// whose snapshot began with every frame folded.
	tx, end, err := s.w.beginAfter(ctx, first)
	if err != nil {
		return err
	}
	defer end()
	if _, err := tx.ExecContext(ctx, restartSQL); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// Read under the writer lock, so that no revision can slip in unseen.
	return c.conn.GetContext(ctx, &c.seen, `PRAGMA data_version`)
}

// stopCheckpointer ends the checkpointer and waits for it, before the database closes;
// a second Close stops nothing more.
func (s *core) stopCheckpointer() {
	if s.ckpt != nil {
		s.ckpt.stopOnce.Do(func() { close(s.ckpt.stop) })
		s.ckpt.done.Wait()
	}
}
