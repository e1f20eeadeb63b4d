package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/restyplane/restyplane/api"
)

type auditRow struct {
	ID        int64  `db:"id"`
	CreatedAt int64  `db:"created_at"`
	Actor     string `db:"actor"`
	Action    string `db:"action"`
	Target    string `db:"target"`
	Revision  int64  `db:"revision"`
	Outcome   string `db:"outcome"`
	Detail    string `db:"detail"`
	Remote    string `db:"remote"`
	Count     int    `db:"count"`
}

// AddAudit records an event. Writes and rollbacks are recorded by the store itself, in the
// transaction that makes the revision; this is for everything else (failed logins, denied
// requests, apply outcomes).
func (s *AuditStore) AddAudit(ctx context.Context, ev api.AuditEvent) error {
	_, err := s.AddAuditRow(ctx, ev)
	return err
}

// AddAuditRow records an event and returns its id, for AddAuditCount.
func (s *AuditStore) AddAuditRow(ctx context.Context, ev api.AuditEvent) (int64, error) {
	return s.addAudit(ctx, ev)
}

// addAudit records an event in a transaction of its own, for every aggregate.
func (s *core) addAudit(ctx context.Context, ev api.AuditEvent) (int64, error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	id, err := insertAudit(ctx, tx, ev)
	if err != nil {
		return 0, err
	}
	return id, tx.Commit()
}

// AddAuditCount adds n to the count of event id: one row stands for a burst of the same
// event (failed logins from one address within a minute).
func (s *AuditStore) AddAuditCount(ctx context.Context, id int64, n int) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE audit_events SET count = count + ? WHERE id = ?`, n, id); err != nil {
		return fmt.Errorf("count audit event %d: %w", id, err)
	}
	return nil
}

func insertAudit(ctx context.Context, tx *sqlx.Tx, ev api.AuditEvent) (int64, error) {
	st, err := tx.PrepareContext(ctx, insertAuditSQL)
	if err != nil {
		return 0, fmt.Errorf("insert audit event: %w", err)
	}
	defer st.Close()
	return execAudit(ctx, st, ev)
}

// execAudit runs insertAuditSQL for ev on st.
func execAudit(ctx context.Context, st *sql.Stmt, ev api.AuditEvent) (int64, error) {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	res, err := st.ExecContext(ctx, ev.Time.UnixNano(), ev.Actor, ev.Action, ev.Target, ev.Revision,
		ev.Outcome, api.Truncate(ev.Detail, 4096, ""), ev.Remote, max(ev.Count, 1))
	if err != nil {
		return 0, fmt.Errorf("insert audit event: %w", err)
	}
	return res.LastInsertId()
}

// AuditEvents lists events newest first, filtered by f.
func (s *AuditStore) AuditEvents(ctx context.Context, f api.AuditFilter) ([]api.AuditEvent, error) {
	var where []string
	var args []any
	add := func(cond string, arg any) { where = append(where, cond); args = append(args, arg) }
	if f.Actor != "" {
		add("actor = ?", f.Actor)
	}
	if f.Action != "" {
		add("action = ?", f.Action)
	}
	if !f.Since.IsZero() {
		add("created_at >= ?", f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		add("created_at < ?", f.Until.UnixNano())
	}
	if f.Before > 0 {
		add("id < ?", f.Before)
	}
	q := `SELECT id, created_at, actor, action, target, revision, outcome, detail, remote, count FROM audit_events`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY id DESC LIMIT ?"
	args = append(args, clampLimit(f.Limit))
	var rows []auditRow
	if err := s.db.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, fmt.Errorf("list audit events: %w", err)
	}
	out := make([]api.AuditEvent, 0, len(rows))
	for _, r := range rows {
		out = append(out, api.AuditEvent{ID: r.ID, Time: time.Unix(0, r.CreatedAt).UTC(), Actor: r.Actor,
			Action: r.Action, Target: r.Target, Revision: r.Revision, Outcome: r.Outcome, Detail: r.Detail, Remote: r.Remote, Count: r.Count})
	}
	return out, nil
}
