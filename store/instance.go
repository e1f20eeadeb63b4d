package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/restyplane/restyplane/api"
)

type instanceRow struct {
	Name      string        `db:"name"`
	Version   string        `db:"version"`
	FirstSeen int64         `db:"first_seen"`
	LastSeen  int64         `db:"last_seen"`
	Applied   int64         `db:"applied"`
	Rejected  int64         `db:"rejected"`
	State     string        `db:"state"`
	LastApply sql.NullInt64 `db:"last_apply_id"`
}

// RecordReport stores what an agent reported, as one transaction: its apply records (under
// the instance's name, so that /applies and the audit log show the fleet's applies) and
// its row in the instance registry.
func (s *Store) RecordReport(ctx context.Context, name string, rep *api.Report, seen time.Time) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	var last sql.NullInt64
	for i := range rep.Applies {
		rec := &rep.Applies[i]
		rec.Instance = name
		if err := insertApply(ctx, tx, rec); err != nil {
			return err
		}
		last = sql.NullInt64{Int64: rec.ID, Valid: true}
	}
	const q = `INSERT INTO instances (name, version, first_seen, last_seen, applied, rejected, state, last_apply_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET version = excluded.version, last_seen = excluded.last_seen,
			applied = excluded.applied, rejected = excluded.rejected, state = excluded.state,
			last_apply_id = COALESCE(excluded.last_apply_id, instances.last_apply_id)`
	at := seen.UnixNano()
	if _, err := tx.ExecContext(ctx, q, name, rep.Version, at, at, rep.Applied, rep.Rejected, rep.State, last); err != nil {
		return fmt.Errorf("record report of instance %q: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit report of instance %q: %w", name, err)
	}
	return nil
}

// Instances lists every instance that ever reported, by name, each with its newest apply.
// Whether it is connected and how far it lags are for the caller to say.
func (s *Store) Instances(ctx context.Context) ([]api.Instance, error) {
	var rows []instanceRow
	const q = `SELECT name, version, first_seen, last_seen, applied, rejected, state, last_apply_id
		FROM instances ORDER BY name`
	if err := s.db.SelectContext(ctx, &rows, q); err != nil {
		return nil, fmt.Errorf("list instances: %w", err)
	}
	out := make([]api.Instance, 0, len(rows))
	for _, r := range rows {
		in := api.Instance{Name: r.Name, Version: r.Version, FirstSeen: time.Unix(0, r.FirstSeen).UTC(),
			LastSeen: time.Unix(0, r.LastSeen).UTC(), Applied: r.Applied, Rejected: r.Rejected, State: r.State}
		if r.LastApply.Valid {
			var a applyRow
			err := s.db.GetContext(ctx, &a, `SELECT `+applyColumns+` FROM applies WHERE id = ?`, r.LastApply.Int64)
			if err != nil && err != sql.ErrNoRows {
				return nil, fmt.Errorf("last apply of instance %q: %w", r.Name, err)
			}
			if err == nil {
				rec := a.record()
				in.LastApply = &rec
			}
		}
		out = append(out, in)
	}
	return out, nil
}
