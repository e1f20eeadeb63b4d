package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

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

// RecordReports stores several agents' reports in one transaction: each one's apply
// records (under the instance's name, so that /applies and the audit log show the fleet's
// applies) and its row in the instance registry. After a change, every agent reports the
// same revision within moments, and one commit (one WAL sync, one write lock) for all of
// them costs far less than one each contending for the lock.
func (s *FleetStore) RecordReports(ctx context.Context, reps []api.InstanceReport) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	for _, r := range reps {
		if err := s.recordReport(ctx, tx, r.Name, r.Report, r.Seen); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit %d instance reports: %w", len(reps), err)
	}
	for _, r := range reps {
		s.tellSkips(r.Report.Applies...)
	}
	return nil
}

// recordReport stores one report in tx.
func (s *core) recordReport(ctx context.Context, tx *sqlx.Tx, name string, rep *api.Report, seen time.Time) error {
	var last sql.NullInt64
	for i := range rep.Applies {
		rec := &rep.Applies[i]
		rec.Instance = name
		if err := s.prep.insertApply(ctx, tx, rec); err != nil {
			return err
		}
		last = sql.NullInt64{Int64: rec.ID, Valid: true}
	}
	at := seen.UnixNano()
	if _, err := tx.StmtContext(ctx, s.prep.instance).ExecContext(ctx, name, rep.Version, at, at, rep.Applied, rep.Rejected, rep.State, last); err != nil {
		return fmt.Errorf("record report of instance %q: %w", name, err)
	}
	return nil
}

// instanceApplyRow is an instance's row joined with its newest apply, whose columns are
// all NULL when it has none (or the pruner removed it).
type instanceApplyRow struct {
	instanceRow
	ApplyID         sql.NullInt64   `db:"a_id"`
	ApplyRevision   sql.NullInt64   `db:"a_revision"`
	ApplyInstance   sql.NullString  `db:"a_instance"`
	ApplyMode       sql.NullString  `db:"a_mode"`
	ApplyStarted    sql.NullInt64   `db:"a_started_at"`
	ApplyDurationMS sql.NullFloat64 `db:"a_duration_ms"`
	ApplyOutcome    sql.NullString  `db:"a_outcome"`
	ApplyError      sql.NullString  `db:"a_error"`
	ApplySkipped    sql.NullString  `db:"a_skipped"`
}

// Instances lists every instance that ever reported, by name, each with its newest apply.
// Whether it is connected and how far it lags are for the caller to say. One query joins
// the applies: the fleet view and /status ask often, and a query per instance made a list
// of 50 agents cost 51 round trips.
func (s *FleetStore) Instances(ctx context.Context) ([]api.Instance, error) {
	var rows []instanceApplyRow
	const q = `SELECT i.name, i.version, i.first_seen, i.last_seen, i.applied, i.rejected, i.state, i.last_apply_id,
			a.id AS a_id, a.revision AS a_revision, a.instance AS a_instance, a.mode AS a_mode,
			a.started_at AS a_started_at, a.duration_ms AS a_duration_ms, a.outcome AS a_outcome,
			a.error AS a_error, a.skipped AS a_skipped
		FROM instances i LEFT JOIN applies a ON a.id = i.last_apply_id
		ORDER BY i.name`
	if err := s.db.SelectContext(ctx, &rows, q); err != nil {
		return nil, fmt.Errorf("list instances: %w", err)
	}
	out := make([]api.Instance, 0, len(rows))
	for _, r := range rows {
		in := api.Instance{Name: r.Name, Version: r.Version, FirstSeen: time.Unix(0, r.FirstSeen).UTC(),
			LastSeen: time.Unix(0, r.LastSeen).UTC(), Applied: r.Applied, Rejected: r.Rejected, State: r.State}
		if r.ApplyID.Valid {
			rec := applyRow{ID: r.ApplyID.Int64, Revision: r.ApplyRevision.Int64, Instance: r.ApplyInstance.String,
				Mode: r.ApplyMode.String, StartedAt: r.ApplyStarted.Int64, DurationMS: r.ApplyDurationMS.Float64,
				Outcome: r.ApplyOutcome.String, Error: r.ApplyError.String, Skipped: r.ApplySkipped.String}.record()
			in.LastApply = &rec
		}
		out = append(out, in)
	}
	return out, nil
}

// DeleteInstance removes an instance from the registry; ENotFound when it is not there.
// Its apply records stay: they are history, and the pruner takes them in their time.
func (s *FleetStore) DeleteInstance(ctx context.Context, name string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM instances WHERE name = ?`, name)
	if err != nil {
		return fmt.Errorf("delete instance %q: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return api.Errorf(api.ENotFound, "instance %q does not exist", name)
	}
	return nil
}
