package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/restyplane/restyplane/api"
)

// A rollback that takes an object back from what Kubernetes wrote records a hold on it
// (api.Hold), in the rollback's own transaction, so that the reconciler's next sync does
// not write the undone content again. Holds are kept in the holds table and, for the
// reconciler's every sync, in memory; both change under the writer lock. The sync's write
// is refused when a rollback was committed after the head it read (api.Meta.NoRollbackAfter),
// and ends the holds it releases in its own revision (api.Meta.Release).

type holdRow struct {
	Kind     string `db:"kind"`
	Name     string `db:"name"`
	Revision int64  `db:"revision"`
	Rejected string `db:"rejected"`
	Since    int64  `db:"since"`
}

func loadHolds(ctx context.Context, db *sqlx.DB) (map[api.Ref]api.Hold, error) {
	var rows []holdRow
	if err := db.SelectContext(ctx, &rows, `SELECT kind, name, revision, rejected, since FROM holds`); err != nil {
		return nil, fmt.Errorf("load holds: %w", err)
	}
	m := make(map[api.Ref]api.Hold, len(rows))
	for _, r := range rows {
		h := api.Hold{Kind: r.Kind, Name: r.Name, Revision: r.Revision, Rejected: r.Rejected, Since: time.Unix(0, r.Since).UTC()}
		m[h.Ref()] = h
	}
	return m, nil
}

// Holds returns the held objects. The caller must not modify the map.
func (s *HistoryStore) Holds() map[api.Ref]api.Hold { return s.holds.Get() }

// HoldsChanged returns a channel closed at the next change of the holds.
func (s *HistoryStore) HoldsChanged() <-chan struct{} { return s.holds.Changed() }

// ReleaseHolds removes the holds on refs (those that exist), with one audit event, and
// returns how many it removed. It fails as a write does when meta.NoRollbackAfter is set
// and a rollback was committed after it: that rollback may have held the objects anew;
// and when meta.IfMatch names other revisions than those that made the holds.
func (s *HistoryStore) ReleaseHolds(ctx context.Context, meta api.Meta, refs []api.Ref) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.checkNoRollbackAfter(meta); err != nil {
		return 0, err
	}
	if meta.IfMatch.Set {
		// A hold's version is the rollback that made it: a newer one replaced it since.
		for _, r := range refs {
			h, ok := s.holds.Get()[r]
			if !meta.IfMatch.Holds(h.Revision, ok) {
				return 0, api.Errorf(api.EPreconditionFailed, "the hold on %s %q is by revision %d, not %s", r.Kind, r.Name, h.Revision, meta.IfMatch)
			}
		}
	}
	ended := s.heldOf(refs)
	if len(ended) == 0 {
		return 0, nil
	}
	if err := s.endHolds(ctx, meta, ended); err != nil {
		return 0, err
	}
	return len(ended), nil
}

// heldOf returns those of refs that are held, each once. The caller holds wmu.
func (s *core) heldOf(refs []api.Ref) []api.Ref {
	holds := s.holds.Get()
	var out []api.Ref
	for _, r := range refs {
		if _, ok := holds[r]; ok && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// endHolds ends the held refs in a transaction of their own: a release with nothing to
// write. The caller holds wmu.
func (s *core) endHolds(ctx context.Context, meta api.Meta, refs []api.Ref) error {
	tx, end, err := s.w.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	if err := deleteHolds(ctx, tx, meta, refs, 0, time.Now().UTC()); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit hold releases: %w", err)
	}
	s.publishHolds(refs, nil)
	return nil
}

// deleteHolds ends the holds on refs in tx, with one audit event; rev is the revision
// that ends them with its write, or 0.
func deleteHolds(ctx context.Context, tx *sqlx.Tx, meta api.Meta, refs []api.Ref, rev int64, now time.Time) error {
	if len(refs) == 0 {
		return nil
	}
	names := make([]string, len(refs))
	for i, r := range refs {
		if _, err := tx.ExecContext(ctx, `DELETE FROM holds WHERE kind = ? AND name = ?`, r.Kind, r.Name); err != nil {
			return fmt.Errorf("release hold on %s %q: %w", r.Kind, r.Name, err)
		}
		names[i] = r.Kind + "/" + r.Name
	}
	slices.Sort(names)
	target := names[0]
	if len(names) > 1 {
		target = fmt.Sprintf("%d objects", len(names))
	}
	ev := api.AuditEvent{Time: now, Actor: meta.Actor, Action: api.AuditHoldRelease, Revision: rev, Target: target,
		Outcome: "success", Detail: meta.Message + " (" + strings.Join(names, ", ") + ")", Remote: meta.Remote}
	_, err := insertAudit(ctx, tx, ev)
	return err
}

// publishHolds shows readers the holds with those on ended taken out and made added,
// once their transaction committed. The caller holds wmu.
func (s *core) publishHolds(ended []api.Ref, made []api.Hold) {
	if len(ended)+len(made) == 0 {
		return
	}
	next := maps.Clone(s.holds.Get())
	for _, r := range ended {
		delete(next, r)
	}
	for _, h := range made {
		next[h.Ref()] = h
	}
	s.holds.Publish(next)
}

// RolledBackAfter reports whether a rollback was committed after revision rev: a reader
// that read the head at rev and the holds since may have seen a rollback's holds without
// its head, and is to read both again.
func (s *HistoryStore) RolledBackAfter(rev int64) bool { return s.lastRollback.Load() > rev }

// checkNoRollbackAfter fails a write computed from the head at meta.NoRollbackAfter when
// a rollback was committed since. The caller holds wmu.
func (s *core) checkNoRollbackAfter(meta api.Meta) error {
	if last := s.lastRollback.Load(); meta.NoRollbackAfter != 0 && last > meta.NoRollbackAfter {
		return api.Errorf(api.EPreconditionFailed, "rollback %d was committed after revision %d, which the write was computed from",
			last, meta.NoRollbackAfter)
	}
	return nil
}

// holdsOf returns the holds rollback rev makes: one for each object it takes back from
// content Kubernetes wrote, or makes again after Kubernetes deleted it. A backend whose
// rollback moves its endpoints alone is not held (nor a Gateway API rule's backend whose
// split stays, its share answered 500 aside, which the endpoints scale): endpoints follow
// the cluster's Pods.
func holdsOf(head *api.State, changes []pending, rev int64, now time.Time) []api.Hold {
	var out []api.Hold
	for _, p := range changes {
		ref := p.m.Ref()
		_, owner, exists := head.Lookup(ref)
		if exists && owner.Kind != api.SourceKubernetes || !exists && p.m.Source().Kind != api.SourceKubernetes {
			continue
		}
		rejected := ""
		if exists {
			cur, _ := mutationOf(head, ref)
			rejected = api.HoldDigest(cur)
			if !p.m.Delete && api.HoldDigest(p.m) == rejected {
				continue
			}
		}
		out = append(out, api.Hold{Kind: ref.Kind, Name: ref.Name, Revision: rev, Rejected: rejected, Since: now})
	}
	return out
}

// insertHolds records the holds of a rollback in its transaction, over any older ones.
func insertHolds(ctx context.Context, tx *sqlx.Tx, holds []api.Hold) error {
	for _, h := range holds {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO holds (kind, name, revision, rejected, since) VALUES (?, ?, ?, ?, ?)`,
			h.Kind, h.Name, h.Revision, h.Rejected, h.Since.UnixNano()); err != nil {
			return fmt.Errorf("hold %s %q: %w", h.Kind, h.Name, err)
		}
	}
	return nil
}
