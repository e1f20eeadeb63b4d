package store

import (
	"context"
	"fmt"
	"time"

	"github.com/restyplane/restyplane/api"
)

// Retention returns the history's retention policy and how far it has pruned.
func (s *RetentionStore) Retention(ctx context.Context) (api.Retention, error) {
	var r api.Retention
	const q = `SELECT keep_revisions, keep_days, keep_records_days, floor FROM retention WHERE id = 1`
	if err := s.db.QueryRowContext(ctx, q).Scan(&r.KeepRevisions, &r.KeepDays, &r.KeepRecordsDays, &r.Floor); err != nil {
		return api.Retention{}, fmt.Errorf("read retention: %w", err)
	}
	return r, nil
}

// SetRetention stores a new retention policy and audits who set it. It prunes nothing by
// itself: the pruner or an explicit prune does, so that setting a policy is never a
// surprise deletion inside a request.
func (s *RetentionStore) SetRetention(ctx context.Context, meta api.Meta, r api.Retention) (api.Retention, error) {
	if err := r.Validate(); err != nil {
		return api.Retention{}, err
	}
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return api.Retention{}, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if r.KeepRecordsDays == 0 {
		r.KeepRecordsDays = api.DefaultKeepRecordsDays
	}
	const q = `UPDATE retention SET keep_revisions = ?, keep_days = ?, keep_records_days = ? WHERE id = 1`
	if _, err := tx.ExecContext(ctx, q, r.KeepRevisions, r.KeepDays, r.KeepRecordsDays); err != nil {
		return api.Retention{}, fmt.Errorf("set retention: %w", err)
	}
	detail := "history off"
	if r.Enabled() {
		detail = fmt.Sprintf("keep at least %d revisions and every revision of the last %d days", r.KeepRevisions, r.KeepDays)
	}
	detail += fmt.Sprintf("; apply records and audit events %d days", r.KeepRecordsDays)
	ev := api.AuditEvent{Time: time.Now().UTC(), Actor: meta.Actor, Action: api.AuditRetention, Target: "retention",
		Outcome: "success", Detail: detail, Remote: meta.Remote}
	if _, err := insertAudit(ctx, tx, ev); err != nil {
		return api.Retention{}, err
	}
	if err := tx.Commit(); err != nil {
		return api.Retention{}, fmt.Errorf("commit retention: %w", err)
	}
	return s.Retention(ctx)
}

// checkKept answers EGone for a revision the retention policy pruned. Revision 0, the
// empty state before the first write, counts as pruned once anything was: a diff from it
// would need the pruned rows.
func (s *core) checkKept(ctx context.Context, rev int64) error {
	var floor int64
	if err := s.db.GetContext(ctx, &floor, `SELECT floor FROM retention WHERE id = 1`); err != nil {
		return fmt.Errorf("read retention floor: %w", err)
	}
	if rev < floor {
		return api.Errorf(api.EGone, "revision %d was pruned by the retention policy; the oldest kept revision is %d", rev, floor)
	}
	return nil
}
