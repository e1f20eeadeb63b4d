package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"
)

// writer is the one connection that revisions and apply records commit on. SQLite keeps
// a page cache per connection and drops it whenever another connection wrote since: with
// the commits of a stream of writes spread over the pool, each began by reading the
// pages of the tables and indexes it appends to again. On one connection they stay
// cached, and its prepared statements with them. Other, rarer writers use the pool.
type writer struct {
	mu   sync.Mutex // one transaction at a time on conn
	conn *sqlx.Conn
}

func newWriter(ctx context.Context, db *sqlx.DB) (*writer, error) {
	c, err := db.Connx(ctx)
	if err != nil {
		return nil, fmt.Errorf("writer connection: %w", err)
	}
	return &writer{conn: c}, nil
}

// begin starts a transaction on the writer connection; end, which the caller defers,
// rolls it back unless it committed and lets the next transaction begin.
func (w *writer) begin(ctx context.Context) (tx *sqlx.Tx, end func(), err error) {
	return w.beginAfter(ctx, nil)
}

// beginAfter is begin with first, when not nil, run under the writer lock before the
// transaction begins: an immediate transaction reads from its BEGIN, so what it must
// see (a fold of the WAL, say) has to happen before.
func (w *writer) beginAfter(ctx context.Context, first func(context.Context) error) (tx *sqlx.Tx, end func(), err error) {
	w.mu.Lock()
	if first != nil {
		if err := first(ctx); err != nil {
			w.mu.Unlock()
			return nil, nil, err
		}
	}
	tx, err = w.conn.BeginTxx(ctx, nil)
	if err != nil {
		w.mu.Unlock()
		return nil, nil, fmt.Errorf("begin: %w", err)
	}
	return tx, func() { tx.Rollback(); w.mu.Unlock() }, nil
}

func (w *writer) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.conn.Close()
}
