package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/restyplane/restyplane/api"
)

// pruneBatch is how many revisions one prune transaction removes at most: the writer lock
// is held per batch, so writes wait for one batch, never for a whole large prune.
const pruneBatch = 5000

// Prune applies the retention policy: it removes the apply records and audit events older
// than their own retention (also while the history's is off), and the revisions older than
// both of the history's limits, with their object rows, and the apply records and audit
// events as old, in
// transactions of at most pruneBatch revisions under the writer lock. The state at every
// kept revision stays exactly what it was: for each object its newest row at or below the
// cutoff stays (unless it is a delete nothing older needs), and so does every row a kept
// row's body_of names; a revision that still owns such rows stays as a row below the
// floor, which reads answer as pruned. A prune that removes something writes one audit
// event saying how much, also when it fails halfway (each batch is whole on its own).
func (s *RetentionStore) Prune(ctx context.Context, meta api.Meta, now time.Time) (api.PruneResult, error) {
	pol, err := s.Retention(ctx)
	if err != nil {
		return api.PruneResult{}, err
	}
	res := api.PruneResult{Floor: pol.Floor}
	err = s.pruneRecords(ctx, pol.RecordsCutoff(now), &res)
	if err == nil && pol.Enabled() {
		var cut int64
		if cut, err = pruneCutoff(ctx, s.db, pol, now); err == nil {
			for err == nil && max(res.Floor, 1) <= cut {
				err = s.pruneTo(ctx, min(cut, max(res.Floor, 1)+pruneBatch-1), pol.Cutoff(now), &res)
			}
		}
	}
	if res.Revisions+res.Applies+res.AuditEvents == 0 {
		return res, err
	}
	ev := api.AuditEvent{Time: now.UTC(), Actor: meta.Actor, Action: api.AuditPrune, Target: "history",
		Revision: res.Floor, Outcome: "success", Remote: meta.Remote,
		Detail: fmt.Sprintf("pruned %d revisions (%d revision rows, %d object rows, %d applies, %d audit events); oldest kept revision %d",
			res.Revisions, res.RevisionRows, res.ObjectRows, res.Applies, res.AuditEvents, res.Floor)}
	if err != nil {
		ev.Outcome, ev.Detail = "failure", ev.Detail+"; stopped: "+err.Error()
	}
	if _, aerr := s.addAudit(ctx, ev); aerr != nil && err == nil {
		err = aerr
	}
	return res, err
}

// pruneRecords removes the apply records and audit events older than before: their
// retention holds whether the history is pruned or not.
func (s *core) pruneRecords(ctx context.Context, before time.Time, res *api.PruneResult) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin prune: %w", err)
	}
	defer tx.Rollback()
	applies, err := rowsAffected(tx.ExecContext(ctx, `DELETE FROM applies WHERE started_at < ?`, before.UnixNano()))
	if err != nil {
		return fmt.Errorf("prune apply records: %w", err)
	}
	events, err := rowsAffected(tx.ExecContext(ctx, `DELETE FROM audit_events WHERE created_at < ?`, before.UnixNano()))
	if err != nil {
		return fmt.Errorf("prune audit events: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit prune: %w", err)
	}
	res.Applies += applies
	res.AuditEvents += events
	return nil
}

// pruneTo prunes every revision at or below cut in one transaction and adds what went to
// res.
func (s *core) pruneTo(ctx context.Context, cut int64, before time.Time, res *api.PruneResult) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin prune: %w", err)
	}
	defer tx.Rollback()
	// Another prune (the pruner and an admin's at once) may have gone further meanwhile.
	var floor int64
	if err := tx.GetContext(ctx, &floor, `SELECT floor FROM retention WHERE id = 1`); err != nil {
		return fmt.Errorf("read retention floor: %w", err)
	}
	if cut < floor {
		res.Floor = floor
		return nil
	}
	var b api.PruneResult
	if err := tx.GetContext(ctx, &b.Revisions, `SELECT COUNT(*) FROM revisions WHERE id >= ? AND id <= ?`, floor, cut); err != nil {
		return fmt.Errorf("count prunable revisions: %w", err)
	}
	if b.ObjectRows, err = pruneObjects(ctx, tx, cut); err != nil {
		return err
	}
	var oldest int64 // the time of the oldest kept revision bounds the audit events that go
	if err := tx.GetContext(ctx, &oldest, `SELECT created_at FROM revisions WHERE id = ?`, cut+1); err != nil {
		return fmt.Errorf("time of revision %d: %w", cut+1, err)
	}
	steps := []struct {
		n    *int64
		q    string
		args []any
	}{
		{&b.RevisionRows, `DELETE FROM revisions WHERE id <= ?
			AND NOT EXISTS (SELECT 1 FROM object_versions v WHERE v.revision = revisions.id)`, []any{cut}},
		{&b.Applies, `DELETE FROM applies WHERE revision <= ?`, []any{cut}},
		{&b.AuditEvents, `DELETE FROM audit_events WHERE created_at < ? AND created_at < ?`,
			[]any{oldest, before.UnixNano()}},
	}
	for _, st := range steps {
		if *st.n, err = rowsAffected(tx.ExecContext(ctx, st.q, st.args...)); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE retention SET floor = ? WHERE id = 1`, cut+1); err != nil {
		return fmt.Errorf("set retention floor: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit prune: %w", err)
	}
	res.Revisions += b.Revisions
	res.RevisionRows += b.RevisionRows
	res.ObjectRows += b.ObjectRows
	res.Applies += b.Applies
	res.AuditEvents += b.AuditEvents
	res.Floor = cut + 1
	return nil
}

// pruneCutoff is the newest revision the policy lets go: below both the newest
// KeepRevisions and the first revision written after the cutoff time. Revisions are
// ordered by id, not by clock, so a clock that stepped back never prunes a recent one.
func pruneCutoff(ctx context.Context, tx sqlx.QueryerContext, pol api.Retention, now time.Time) (int64, error) {
	var nth sql.NullInt64
	err := sqlx.GetContext(ctx, tx, &nth, `SELECT id FROM revisions WHERE id >= ? ORDER BY id DESC LIMIT 1 OFFSET ?`,
		pol.Floor, pol.KeepRevisions-1)
	if err == sql.ErrNoRows || (err == nil && !nth.Valid) {
		return 0, nil // fewer revisions than the policy keeps
	} else if err != nil {
		return 0, fmt.Errorf("find the oldest revision to keep: %w", err)
	}
	var recent sql.NullInt64
	if err := sqlx.GetContext(ctx, tx, &recent, `SELECT MIN(id) FROM revisions WHERE id >= ? AND created_at >= ?`,
		pol.Floor, pol.Cutoff(now).UnixNano()); err != nil {
		return 0, fmt.Errorf("find the oldest recent revision: %w", err)
	}
	keep := nth.Int64
	if recent.Valid {
		keep = min(keep, recent.Int64)
	}
	return keep - 1, nil
}

// pruneObjects deletes the object rows at or below cut that no kept state needs, and
// returns how many went.
func pruneObjects(ctx context.Context, tx *sqlx.Tx, cut int64) (int64, error) {
	const create = `CREATE TEMP TABLE IF NOT EXISTS prune_keep (kind TEXT, name TEXT, revision INTEGER,
		PRIMARY KEY (kind, name, revision)) WITHOUT ROWID`
	if _, err := tx.ExecContext(ctx, create); err != nil {
		return 0, fmt.Errorf("prepare prune: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM temp.prune_keep`); err != nil {
		return 0, fmt.Errorf("prepare prune: %w", err)
	}
	marks := []string{
		// The state at the cutoff, and so at every kept revision, reads these rows. The
		// index reads only the rows at or below the cutoff: after earlier batches, few.
		`INSERT INTO temp.prune_keep SELECT kind, name, MAX(revision)
			FROM object_versions INDEXED BY object_versions_by_revision
			WHERE revision <= ?1 GROUP BY kind, name`,
		// Rows holding the bodies that kept rows point at. body_of always names a row that
		// holds its body itself, so one pass finds them all.
		`INSERT OR IGNORE INTO temp.prune_keep SELECT v.kind, v.name, v.body_of FROM object_versions v
			WHERE v.body_of IS NOT NULL AND v.body_of <= ?1 AND (v.revision > ?1 OR EXISTS (SELECT 1
				FROM temp.prune_keep k WHERE k.kind = v.kind AND k.name = v.name AND k.revision = v.revision))`,
		// A newest row that is a delete is needed only while an older row of that object
		// stays: without the delete, that older row would be the state again.
		`DELETE FROM temp.prune_keep WHERE revision <= ?1 AND EXISTS (SELECT 1 FROM object_versions v
				WHERE v.kind = prune_keep.kind AND v.name = prune_keep.name AND v.revision = prune_keep.revision
				AND v.op = 'delete')
			AND NOT EXISTS (SELECT 1 FROM temp.prune_keep o WHERE o.kind = prune_keep.kind
				AND o.name = prune_keep.name AND o.revision < prune_keep.revision)`,
	}
	for _, q := range marks {
		if _, err := tx.ExecContext(ctx, q, cut); err != nil {
			return 0, fmt.Errorf("mark rows to keep: %w", err)
		}
	}
	n, err := rowsAffected(tx.ExecContext(ctx, `DELETE FROM object_versions WHERE revision <= ?
		AND NOT EXISTS (SELECT 1 FROM temp.prune_keep k WHERE k.kind = object_versions.kind
			AND k.name = object_versions.name AND k.revision = object_versions.revision)`, cut))
	if err != nil {
		return 0, fmt.Errorf("delete object rows: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM temp.prune_keep`); err != nil {
		return 0, fmt.Errorf("clear prune marks: %w", err)
	}
	return n, nil
}

func rowsAffected(r sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}
