package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/restyplane/restyplane/api"
)

// prepared holds the statements of the write path, prepared once: SQLite's compile of an
// INSERT cost as much CPU as running it, on every API write and every apply record.
// database/sql prepares each again, once, on every pooled connection it runs on, and a
// transaction reuses the one of its connection (Tx.StmtContext).
type prepared struct {
	revision, version, audit, apply, instance *sql.Stmt
}

const (
	insertRevisionSQL = `INSERT INTO revisions (id, parent, created_at, actor, source, message, rollback_of, change_count, auto_rollback)
		VALUES (?, ?, ?, ?, ?, ?, NULLIF(?, 0), ?, ?)`
	insertVersionSQL = `INSERT INTO object_versions (kind, name, revision, op, body, secret, body_of) VALUES (?, ?, ?, ?, ?, ?, NULLIF(?, 0))`
	insertAuditSQL   = `INSERT INTO audit_events (created_at, actor, action, target, revision, outcome, detail, remote, count)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	insertApplySQL = `INSERT INTO applies (revision, instance, mode, started_at, duration_ms, outcome, error, skipped)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	// upsertInstanceSQL runs once per agent per change: each agent reports every apply.
	upsertInstanceSQL = `INSERT INTO instances (name, version, first_seen, last_seen, applied, rejected, state, last_apply_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET version = excluded.version, last_seen = excluded.last_seen,
			applied = excluded.applied, rejected = excluded.rejected, state = excluded.state,
			last_apply_id = COALESCE(excluded.last_apply_id, instances.last_apply_id)`
)

func prepare(ctx context.Context, db *sqlx.DB) (*prepared, error) {
	p := &prepared{}
	for _, s := range []struct {
		stmt **sql.Stmt
		q    string
	}{{&p.revision, insertRevisionSQL}, {&p.version, insertVersionSQL}, {&p.audit, insertAuditSQL}, {&p.apply, insertApplySQL}, {&p.instance, upsertInstanceSQL}} {
		st, err := db.PrepareContext(ctx, s.q)
		if err != nil {
			p.close()
			return nil, fmt.Errorf("prepare %.40s: %w", s.q, err)
		}
		*s.stmt = st
	}
	return p, nil
}

func (p *prepared) close() {
	for _, st := range []*sql.Stmt{p.revision, p.version, p.audit, p.apply, p.instance} {
		if st != nil {
			st.Close()
		}
	}
}

// insertRevision writes the revision row in tx.
func (p *prepared) insertRevision(ctx context.Context, tx *sqlx.Tx, r api.Revision) error {
	_, err := tx.StmtContext(ctx, p.revision).ExecContext(ctx, r.ID, r.Parent, r.Time.UnixNano(), r.Actor, r.Source, r.Message, r.RollbackOf, r.ChangeCount, r.AutoRollback)
	if err != nil {
		return fmt.Errorf("insert revision %d: %w", r.ID, err)
	}
	return nil
}

// insertVersion writes one object version in tx: the single change of an API write.
func (p *prepared) insertVersion(ctx context.Context, tx *sqlx.Tx, rev int64, c pending) error {
	body, secret := []byte(c.change.Body), c.secret
	if c.bodyOf != 0 {
		body, secret = nil, nil
	}
	if _, err := tx.StmtContext(ctx, p.version).ExecContext(ctx, c.change.Kind, c.change.Name, rev, c.change.Op, body, secret, c.bodyOf); err != nil {
		return fmt.Errorf("insert object version %s/%s: %w", c.change.Kind, c.change.Name, err)
	}
	return nil
}

// insertAudit is the package's insertAudit through the prepared statement.
func (p *prepared) insertAudit(ctx context.Context, tx *sqlx.Tx, ev api.AuditEvent) (int64, error) {
	return execAudit(ctx, tx.StmtContext(ctx, p.audit), ev)
}
