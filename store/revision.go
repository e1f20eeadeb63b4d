package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/restyplane/restyplane/api"
)

type revisionRow struct {
	ID          int64         `db:"id"`
	Parent      int64         `db:"parent"`
	CreatedAt   int64         `db:"created_at"`
	Actor       string        `db:"actor"`
	Source      string        `db:"source"`
	Message     string        `db:"message"`
	RollbackOf  sql.NullInt64 `db:"rollback_of"`
	ChangeCount int           `db:"change_count"`
	// AutoRollback is 0 for a revision its writer marked not to be rolled back (migration 005).
	AutoRollback bool `db:"auto_rollback"`
}

func (r revisionRow) revision() api.Revision {
	return api.Revision{ID: r.ID, Parent: r.Parent, Time: time.Unix(0, r.CreatedAt).UTC(), Actor: r.Actor,
		Source: r.Source, Message: r.Message, RollbackOf: r.RollbackOf.Int64, ChangeCount: r.ChangeCount, AutoRollback: r.AutoRollback}
}

const revisionColumns = `id, parent, created_at, actor, source, message, rollback_of, change_count, auto_rollback`

// Revisions lists revisions newest first, below before (0: from the head), at most limit.
func (s *HistoryStore) Revisions(ctx context.Context, before int64, limit int) ([]api.Revision, error) {
	if before <= 0 {
		before = 1 << 62
	}
	q := `SELECT ` + revisionColumns + ` FROM revisions
		WHERE id < ? AND id >= (SELECT floor FROM retention WHERE id = 1) ORDER BY id DESC LIMIT ?`
	var rows []revisionRow
	if err := s.db.SelectContext(ctx, &rows, q, before, clampLimit(limit)); err != nil {
		return nil, fmt.Errorf("list revisions: %w", err)
	}
	out := make([]api.Revision, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.revision())
	}
	return out, nil
}

// Revision returns one revision with its changes. Certificate bodies never hold keys:
// keys live in their own column, which this query does not read.
func (s *HistoryStore) Revision(ctx context.Context, id int64) (*api.Revision, error) {
	if err := s.checkKept(ctx, id); err != nil {
		return nil, err
	}
	var row revisionRow
	err := s.db.GetContext(ctx, &row, `SELECT `+revisionColumns+` FROM revisions WHERE id = ?`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, api.Errorf(api.ENotFound, "revision %d not found", id)
	} else if err != nil {
		return nil, fmt.Errorf("get revision %d: %w", id, err)
	}
	var changes []objectRow
	q := resolved(`SELECT kind, name, revision, op, body, body_of
		FROM object_versions WHERE revision = ?`, false) + ` ORDER BY v.kind, v.name`
	if err := s.db.SelectContext(ctx, &changes, q, id); err != nil {
		return nil, fmt.Errorf("changes of revision %d: %w", id, err)
	}
	r := row.revision()
	r.Changes = make([]api.Change, 0, len(changes))
	for _, c := range changes {
		r.Changes = append(r.Changes, api.Change{Kind: c.Kind, Name: c.Name, Op: c.Op, Body: c.Body})
	}
	return &r, nil
}

// RevisionCount returns the number of revisions stored and not pruned.
func (s *HistoryStore) RevisionCount(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.GetContext(ctx, &n, `SELECT COUNT(*) FROM revisions
		WHERE id >= (SELECT floor FROM retention WHERE id = 1)`); err != nil {
		return 0, fmt.Errorf("count revisions: %w", err)
	}
	return n, nil
}

func clampLimit(limit int) int {
	switch {
	case limit <= 0:
		return 100
	case limit > 1000:
		return 1000
	}
	return limit
}
