// Package store is the only package that speaks SQL: the revision history, the state at
// any revision, diffs, audit events, apply records and tokens, in SQLite through sqlx.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/restyplane/restyplane/api"
)

// Store is restyplane's database, split by aggregate: the history of revisions and its
// head (HistoryStore), tokens (TokenStore), the audit log (AuditStore), the fleet's
// instances and apply records (FleetStore), the hostname claims of Kubernetes namespaces
// (ClaimStore) and the retention policy (RetentionStore). They share one SQLite database
// and one writer lock; each consumer takes the aggregates it needs.
type Store struct {
	*core
	*HistoryStore
	*TokenStore
	*AuditStore
	*FleetStore
	*ClaimStore
	*RetentionStore
}

// HistoryStore is the revisions, the state at any of them, and the head, which it keeps in
// memory because every write is checked against it and every read of the desired state is
// served from it; SQLite is the durable copy and the source of every past state.
type HistoryStore struct{ *core }

// TokenStore is the API tokens, stored hashed.
type TokenStore struct{ *core }

// AuditStore is the audit log.
type AuditStore struct{ *core }

// FleetStore is the instances that report, and every instance's apply records.
type FleetStore struct{ *core }

// ClaimStore is the hostnames Kubernetes namespaces hold.
type ClaimStore struct{ *core }

// RetentionStore is the retention policy and the pruning of the history by it.
type RetentionStore struct{ *core }

// core is the database every aggregate works on, and what they share in memory.
type core struct {
	db   *sqlx.DB
	path string

	// wmu serializes writers: a write reads the head, checks against it and commits, and
	// no other write may slip in between. SQLite has one writer anyway.
	wmu sync.Mutex
	// head is the desired state; it changes under wmu.
	head *api.Latest[*api.State]
	// claims are the hostnames Kubernetes namespaces hold (see hostname.go); they change
	// under wmu too.
	claims *api.Latest[map[string]api.HostnameClaim]
	// tokens caches the tokens that authenticated (see tokenCache).
	tokens *tokenCache
	// prep holds the write path's prepared statements.
	prep *prepared
	// ckpt folds the WAL into the database file off the commit path.
	ckpt *checkpointer
	// w is the connection revisions and apply records commit on.
	w *writer
	// historyID names this history (migration 009): it never changes.
	historyID string
	// skips hears of committed apply records that left objects out (WatchSkips).
	skips applyWatch
	// holds are the objects rollbacks hold back from the reconciler (hold.go); they
	// change under wmu.
	holds *api.Latest[map[api.Ref]api.Hold]
	// lastRollback is the newest rollback this process committed, for Meta.NoRollbackAfter
	// and RolledBackAfter; it changes under wmu. It starts at 0: a rollback before Open is
	// at or below the head loaded then, and so at or below any revision a writer can have
	// read.
	lastRollback atomic.Int64
}

// Open opens (creating if needed) the SQLite database at path, migrates it and loads the
// head state.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	// MkdirAll leaves an existing directory as it is: tighten it, and the files, which
	// hold private keys and token hashes, whatever created them.
	if err := os.Chmod(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("tighten data dir: %w", err)
	}
	if err := tighten(path); err != nil {
		return nil, err
	}
	// Settings go in the DSN so that every pooled connection gets them. For historical
	// reasons SQLite does not check foreign keys by default. synchronous=NORMAL is durable
	// across application crashes in WAL mode; a power loss may lose the last transactions
	// but never corrupts the file.
	q := url.Values{}
	q.Set("_busy_timeout", "5000")
	q.Set("_foreign_keys", "1")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	// Every explicit transaction of the store writes, most after reading (is the name
	// taken, what is the head). Begun deferred, one whose snapshot another commit overtook
	// fails at once with "database is locked" when it comes to write, without waiting for
	// the busy timeout; begun immediate, it takes the write lock first and waits its turn.
	q.Set("_txlock", "immediate")
	// The WAL is checkpointed in the background (checkpointer), not by whichever commit
	// crosses SQLite's threshold.
	q.Add("_pragma", "wal_autocheckpoint(0)")
	// unix-excl: the process that opens the history holds it, and keeps SQLite's WAL
	// index in its own memory instead of a shared-memory file. Every transaction took and
	// released that file's locks, each a system call, a fifth of a commit's CPU; and a
	// second process, which would keep a head of its own and write revisions over this
	// one's, is refused instead (inUse).
	q.Set("vfs", "unix-excl")
	db, err := sqlx.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	if err := migrate(ctx, db); err != nil {
		db.Close()
		if inUse(err) {
			return nil, fmt.Errorf("the history %s is in use by another process (one restyplane serve per data directory): %w", path, err)
		}
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	// The WAL exists once the first connection opened the database (a shared-memory file
	// only where an older restyplane, before unix-excl, left one).
	if err := tighten(path); err != nil {
		db.Close()
		return nil, err
	}
	if err := reserveWAL(path); err != nil {
		db.Close()
		return nil, err
	}
	prep, err := prepare(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	w, err := newWriter(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	c := &core{db: db, path: path, tokens: newTokenCache(), prep: prep, w: w}
	if err := db.GetContext(ctx, &c.historyID, `SELECT history FROM history_identity WHERE id = 1`); err != nil {
		db.Close()
		return nil, fmt.Errorf("read the history's id: %w", err)
	}
	s := &Store{core: c, HistoryStore: &HistoryStore{c}, TokenStore: &TokenStore{c}, AuditStore: &AuditStore{c},
		FleetStore: &FleetStore{c}, ClaimStore: &ClaimStore{c}, RetentionStore: &RetentionStore{c}}
	head, err := s.State(ctx, 0, true)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("load head: %w", err)
	}
	// Kept is the newest revision marked not to be rolled back automatically.
	if err := db.GetContext(ctx, &head.Kept, `SELECT COALESCE(MAX(id), 0) FROM revisions WHERE auto_rollback = 0`); err != nil {
		db.Close()
		return nil, fmt.Errorf("load kept revision: %w", err)
	}
	s.head = api.NewLatest(head)
	claims, err := loadClaims(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.claims = api.NewLatest(claims)
	holds, err := loadHolds(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.holds = api.NewLatest(holds)
	if err := s.startCheckpointer(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("checkpointer connection: %w", err)
	}
	return s, nil
}

// inUse says whether err is SQLite's "database is locked", which with the unix-excl VFS
// means that another process holds the history.
func inUse(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}

// Close closes the database.
func (s *Store) Close() error {
	s.stopCheckpointer()
	s.prep.close()
	s.w.close()
	return s.db.Close()
}

// Head returns the current desired state, certificate keys included. The caller must not
// modify it.
func (s *HistoryStore) Head() *api.State { return s.head.Get() }

// HeadChanged returns a channel that is closed at the next new revision. Waiters take a
// fresh channel after each wake-up, so a burst of revisions wakes them once.
func (s *HistoryStore) HeadChanged() <-chan struct{} { return s.head.Changed() }

// HistoryID names this history, for the feed: a database made anew has another one.
func (s *HistoryStore) HistoryID() string { return s.historyID }

// setHead installs a new head and wakes the waiters of HeadChanged.
func (s *core) setHead(h *api.State) { s.head.Publish(h) }

// SizeBytes returns the size of the database, WAL pages checkpointed or not.
func (s *Store) SizeBytes(ctx context.Context) (int64, error) {
	var pages, size int64
	if err := s.db.GetContext(ctx, &pages, `PRAGMA page_count`); err != nil {
		return 0, fmt.Errorf("page count: %w", err)
	}
	if err := s.db.GetContext(ctx, &size, `PRAGMA page_size`); err != nil {
		return 0, fmt.Errorf("page size: %w", err)
	}
	return pages * size, nil
}

// Checkpoint folds the WAL into the database file, so SizeBytes measures what stays.
func (s *Store) Checkpoint(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// tighten makes the database file and its WAL and shared-memory files 0600, where they
// exist; SQLite creates new ones with the mode of the database file.
func tighten(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("tighten %s: %w", p, err)
		}
	}
	return nil
}
