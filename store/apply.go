package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/restyplane/restyplane/api"
)

type applyRow struct {
	ID         int64   `db:"id"`
	Revision   int64   `db:"revision"`
	Instance   string  `db:"instance"`
	Mode       string  `db:"mode"`
	StartedAt  int64   `db:"started_at"`
	DurationMS float64 `db:"duration_ms"`
	Outcome    string  `db:"outcome"`
	Error      string  `db:"error"`
	// Skipped is the JSON list of objects the apply left out, or empty (migration 005).
	Skipped string `db:"skipped"`
}

func (r applyRow) record() api.ApplyRecord {
	rec := api.ApplyRecord{ID: r.ID, Revision: r.Revision, Instance: r.Instance, Mode: r.Mode,
		Started: time.Unix(0, r.StartedAt).UTC(), DurationMS: r.DurationMS, Outcome: r.Outcome, Error: r.Error}
	if r.Skipped != "" {
		// Written by RecordApply from the same type; a row that does not decode loses
		// only its list.
		_ = json.Unmarshal([]byte(r.Skipped), &rec.Skipped)
	}
	return rec
}

const applyColumns = `id, revision, instance, mode, started_at, duration_ms, outcome, error, skipped`

// RecordApply stores one apply attempt and its audit event, and sets rec.ID.
func (s *FleetStore) RecordApply(ctx context.Context, rec *api.ApplyRecord) error {
	// The record of what went live is written whole even if its caller stops waiting; a
	// context without cancel also spares the driver a goroutine per statement that would
	// only watch for that.
	ctx = context.WithoutCancel(ctx)
	tx, end, err := s.w.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	if err := s.prep.insertApply(ctx, tx, rec); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit apply: %w", err)
	}
	s.tellSkips(*rec)
	return nil
}

// insertApply stores one apply attempt and its audit event in tx, and sets rec.ID.
func (p *prepared) insertApply(ctx context.Context, tx *sqlx.Tx, rec *api.ApplyRecord) error {
	skipped := ""
	if len(rec.Skipped) > 0 {
		b, err := json.Marshal(rec.Skipped)
		if err != nil {
			return fmt.Errorf("encode skipped objects: %w", err)
		}
		skipped = string(b)
	}
	res, err := tx.StmtContext(ctx, p.apply).ExecContext(ctx, rec.Revision, rec.Instance, rec.Mode, rec.Started.UnixNano(),
		rec.DurationMS, rec.Outcome, api.Truncate(rec.Error, 8192, ""), skipped)
	if err != nil {
		return fmt.Errorf("insert apply of revision %d: %w", rec.Revision, err)
	}
	outcome := "success"
	if rec.Outcome != api.OutcomeSuccess {
		outcome = "failure"
	}
	ev := api.AuditEvent{Actor: api.ActorApplier, Action: api.AuditApply, Target: "instance/" + rec.Instance,
		Revision: rec.Revision, Outcome: outcome, Detail: rec.Mode + " " + rec.Outcome + errSuffix(rec.Error)}
	if _, err := p.insertAudit(ctx, tx, ev); err != nil {
		return err
	}
	rec.ID, _ = res.LastInsertId()
	return nil
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return ": " + e
}

// Applies lists apply records newest first, below before (0: from the newest).
func (s *FleetStore) Applies(ctx context.Context, before int64, limit int) ([]api.ApplyRecord, error) {
	if before <= 0 {
		before = 1 << 62
	}
	var rows []applyRow
	q := `SELECT ` + applyColumns + ` FROM applies WHERE id < ? ORDER BY id DESC LIMIT ?`
	if err := s.db.SelectContext(ctx, &rows, q, before, clampLimit(limit)); err != nil {
		return nil, fmt.Errorf("list applies: %w", err)
	}
	out := make([]api.ApplyRecord, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.record())
	}
	return out, nil
}

// LastApply returns the newest apply record with the given outcome ("" for any).
func (s *FleetStore) LastApply(ctx context.Context, outcome string) (*api.ApplyRecord, error) {
	var r applyRow
	q := `SELECT ` + applyColumns + ` FROM applies WHERE (? = '' OR outcome = ?) ORDER BY id DESC LIMIT 1`
	err := s.db.GetContext(ctx, &r, q, outcome, outcome)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, api.Errorf(api.ENotFound, "no apply recorded")
	} else if err != nil {
		return nil, fmt.Errorf("last apply: %w", err)
	}
	rec := r.record()
	return &rec, nil
}

// LastSuccessOf returns the newest apply of revision on instance that succeeded: while the
// instance serves that revision, what it says was left out is what the instance serves it
// without (a retry is recorded whenever what it leaves out changes). ENotFound when none
// is recorded, or the pruner took it.
func (s *FleetStore) LastSuccessOf(ctx context.Context, instance string, revision int64) (*api.ApplyRecord, error) {
	var r applyRow
	const q = `SELECT ` + applyColumns + ` FROM applies WHERE revision = ? AND instance = ? AND outcome = ? ORDER BY id DESC LIMIT 1`
	err := s.db.GetContext(ctx, &r, q, revision, instance, api.OutcomeSuccess)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, api.Errorf(api.ENotFound, "no successful apply of revision %d on instance %q", revision, instance)
	} else if err != nil {
		return nil, fmt.Errorf("last successful apply of revision %d on %q: %w", revision, instance, err)
	}
	rec := r.record()
	return &rec, nil
}
