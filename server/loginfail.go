package server

import (
	"context"
	"sync"
	"time"

	"github.com/restyplane/restyplane/api"
)

// maxFailRemotes bounds the client addresses that get a row of their own in one minute;
// beyond it, failures are counted on one row for every other address, so that a flood
// from many addresses is bounded too.
const maxFailRemotes = 1024

// otherRemotes is the remote of the row that counts the addresses past maxFailRemotes.
const otherRemotes = "other addresses"

// loginFailures aggregates failed authentications: the first from a client address in a
// minute is written at once, as an audit event of its own, and the others from that
// address in that minute add to its count. Every failed login stays an audit event, and
// a flood of them adds at most maxFailRemotes+1 rows a minute.
type loginFailures struct {
	store Audit
	mu    sync.Mutex
	// minute is the minute the rows belong to, in Unix minutes.
	minute int64
	rows   map[string]*failRow
}

// failRow is one client address's row in the current minute and the failures not yet
// added to its count.
type failRow struct {
	id      int64
	pending int
}

func newLoginFailures(st Audit) *loginFailures {
	return &loginFailures{store: st, rows: map[string]*failRow{}}
}

// add records one failed login.
func (l *loginFailures) add(ctx context.Context, ev api.AuditEvent) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m := time.Now().Unix() / 60; m != l.minute {
		if err := l.flushLocked(ctx); err != nil {
			return err
		}
		l.minute, l.rows = m, map[string]*failRow{}
	}
	key := ev.Remote
	if _, ok := l.rows[key]; !ok && len(l.rows) >= maxFailRemotes {
		key = otherRemotes
		ev.Remote = otherRemotes
	}
	if row := l.rows[key]; row != nil {
		row.pending++
		return nil
	}
	id, err := l.store.AddAuditRow(ctx, ev)
	if err != nil {
		return err
	}
	l.rows[key] = &failRow{id: id}
	return nil
}

// flush adds the pending failures to their rows' counts; reading the audit log calls it,
// so that what it shows is complete.
func (l *loginFailures) flush(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flushLocked(ctx)
}

func (l *loginFailures) flushLocked(ctx context.Context) error {
	for _, row := range l.rows {
		if row.pending == 0 {
			continue
		}
		if err := l.store.AddAuditCount(ctx, row.id, row.pending); err != nil {
			return err
		}
		row.pending = 0
	}
	return nil
}
