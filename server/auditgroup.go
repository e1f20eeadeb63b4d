package server

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/restyplane/restyplane/api"
)

// maxFailRemotes bounds the groups (an action, an actor and a client address) that get a
// row of their own in one minute; beyond it, events are counted on one row per action for
// every other actor and address, so that a flood from many addresses is bounded too.
const maxFailRemotes = 1024

// otherRemotes is the remote of the rows that count the groups past maxFailRemotes.
const otherRemotes = "other addresses"

// groupedAudit aggregates the refusals a client can repeat at will: failed logins and
// denied requests (403). The first of a group (the same action, actor and client address)
// in a minute is written at once, as an audit event of its own, and the others of that
// group in that minute add to its count. Every refusal stays an audit event, and a flood
// of them adds at most maxFailRemotes+1 rows per action a minute.
type groupedAudit struct {
	store Audit
	log   *slog.Logger
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

func newGroupedAudit(st Audit, log *slog.Logger) *groupedAudit {
	return &groupedAudit{store: st, log: log, rows: map[string]*failRow{}}
}

// audit records ev, a refusal of r, filling the remote address; a failure to audit is
// logged, as for any audit event.
func (l *groupedAudit) audit(r *http.Request, ev api.AuditEvent) {
	ev.Remote = remoteHost(r)
	if err := l.add(context.WithoutCancel(r.Context()), ev); err != nil {
		l.log.Error("audit failed", "requestId", requestID(r.Context()), "action", ev.Action, "err", err)
	}
}

// add records one refusal.
func (l *groupedAudit) add(ctx context.Context, ev api.AuditEvent) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m := time.Now().Unix() / 60; m != l.minute {
		if err := l.flushLocked(ctx); err != nil {
			return err
		}
		l.minute, l.rows = m, map[string]*failRow{}
	}
	key := ev.Action + "\x00" + ev.Actor + "\x00" + ev.Remote
	if _, ok := l.rows[key]; !ok && len(l.rows) >= maxFailRemotes {
		key = ev.Action + "\x00" + otherRemotes
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

// flush adds the pending refusals to their rows' counts; reading the audit log calls it,
// so that what it shows is complete.
func (l *groupedAudit) flush(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flushLocked(ctx)
}

func (l *groupedAudit) flushLocked(ctx context.Context) error {
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
