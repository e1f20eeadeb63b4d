package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/restyplane/restyplane/api"
)

// Write stores the mutations as one revision. A write that changes nothing makes no
// revision and says so (the holds of meta.Release end all the same); a dry run stores
// nothing and answers with what it would do.
func (s *HistoryStore) Write(ctx context.Context, meta api.Meta, muts []api.Mutation) (*api.WriteResult, error) {
	if meta.IfMatch.Set && len(muts) != 1 {
		return nil, api.Invalid("", "If-Match applies to single-object writes")
	}
	return s.write(ctx, meta, writeOptions{}, func(*api.State) ([]api.Mutation, error) { return muts, nil })
}

// writeOptions tune the one write path that Write, ReplaceConfig and Rollback share.
type writeOptions struct {
	// ifMatchHead compares meta.IfMatch with the head revision, not an object's version.
	ifMatchHead bool
	// anyOwner lets the write touch objects of every owner: a rollback restores all.
	anyOwner bool
	// restore, when set, marks objects that come from the history itself and names, for
	// each, the revision of the row that holds its body. They were validated when first
	// written, so a rollback does not validate thousands again, and its rows point at
	// those bodies instead of storing them again.
	restore    map[api.Ref]int64
	checkAll   bool
	rollbackOf int64
	action     string
	// holds are what a rollback holds back from the reconciler (holdsOf).
	holds []api.Hold
	// release are the held objects of meta.Release, whose holds the revision ends.
	release []api.Ref
}

// pending is one object a write changes.
type pending struct {
	m      api.Mutation
	change api.Change
	before []byte
	secret []byte
	// bodyOf, when set, is the revision of the row that holds this body already: the new
	// row points there and stores neither body nor secret.
	bodyOf int64
}

// write runs the whole write path under the writer lock: build the mutations against the
// head, validate them, check ownership and preconditions, compute what changes, check
// references on the candidate state, and commit one revision.
func (s *core) write(ctx context.Context, meta api.Meta, opt writeOptions, build func(head *api.State) ([]api.Mutation, error)) (*api.WriteResult, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	head := s.head.Get()
	if opt.ifMatchHead && !meta.IfMatch.Holds(head.Revision, true) {
		return nil, api.Errorf(api.EPreconditionFailed, "config is at revision %d, not %s", head.Revision, meta.IfMatch)
	}
	if err := s.checkNoRollbackAfter(meta); err != nil {
		return nil, err
	}
	muts, err := build(head)
	if err != nil {
		return nil, err
	}
	if err := api.CheckHostnameClaims(muts, s.claims.Get()); err != nil {
		return nil, err
	}
	rev := head.Revision + 1
	cand := head.Clone()
	var changes []pending
	touched := make([]api.Ref, 0, len(muts))
	seen := make(map[api.Ref]bool, len(muts))
	for i := range muts {
		p, err := s.prepare(head, meta, opt, &muts[i], rev)
		if err != nil {
			return nil, err
		}
		ref := muts[i].Ref()
		if seen[ref] {
			return nil, api.Invalid("", "%s %q is written twice in one request", ref.Kind, ref.Name)
		}
		seen[ref] = true
		if p == nil {
			continue
		}
		cand.Apply(p.m)
		touched = append(touched, ref)
		changes = append(changes, *p)
	}
	if opt.checkAll {
		err = cand.CheckAll()
	} else {
		err = cand.Check(touched)
	}
	if err != nil {
		return nil, err
	}
	if meta.NoSettings {
		for _, p := range changes {
			if p.change.Kind == api.KindSettings {
				return nil, api.Errorf(api.EForbidden, "this changes the settings, which needs the admin role, as PUT /settings does")
			}
		}
	}
	res := &api.WriteResult{DryRun: meta.DryRun, Noop: len(changes) == 0, Candidate: cand,
		Diff: api.Diff{From: head.Revision, To: rev, Entries: []api.DiffEntry{}}}
	for _, p := range changes {
		res.Diff.Entries = append(res.Diff.Entries, api.DiffEntry{Kind: p.change.Kind, Name: p.change.Name,
			Op: p.change.Op, Before: p.before, After: p.change.Body})
	}
	opt.release = s.heldOf(meta.Release)
	if res.Noop {
		res.Diff.To = head.Revision
		cand.Revision = head.Revision
		if len(opt.release) > 0 && !meta.DryRun {
			if err := s.endHolds(ctx, meta, opt.release); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	if meta.DryRun {
		cand.Revision = rev
		return res, nil
	}
	// The result's revision carries no Changes: its Diff holds the same objects, with their
	// previous versions too, and a rollback over thousands of objects would say it twice.
	r := api.Revision{ID: rev, Parent: head.Revision, Time: time.Now().UTC(), Actor: meta.Actor,
		Source: meta.Source, Message: meta.Message, RollbackOf: opt.rollbackOf, ChangeCount: len(changes),
		AutoRollback: !meta.NoAutoRollback}
	if opt.rollbackOf != 0 {
		opt.holds = holdsOf(head, changes, rev, r.Time)
	}
	if err := s.commit(ctx, r, changes, meta, opt); err != nil {
		return nil, err
	}
	if opt.rollbackOf != 0 {
		s.lastRollback.Store(rev)
	}
	// The holds are shown before the head: a reader that reads the head and then the holds
	// (the reconciler's sync) sees every hold of the revision it read. It may see those of
	// a newer rollback too, with the older head; its write, conditioned on no rollback
	// after that head (Meta.NoRollbackAfter), then fails, and it reads both again, as it
	// does when it has nothing to write (RolledBackAfter).
	s.publishHolds(opt.release, opt.holds)
	cand.Revision = rev
	cand.Written = r.Time
	if meta.NoAutoRollback {
		cand.Kept = rev
	}
	s.setHead(cand)
	res.Revision = &r
	return res, nil
}

// prepare validates one mutation against the head and returns what it changes, or nil
// when the object is already as written. The object it stores is a copy stamped with rev.
func (s *core) prepare(head *api.State, meta api.Meta, opt writeOptions, m *api.Mutation, rev int64) (*pending, error) {
	if opt.restore != nil {
		m.Name = m.ObjectName()
	} else if err := m.Validate(); err != nil {
		return nil, err
	}
	ref := m.Ref()
	version, owner, exists := head.Lookup(ref)
	if meta.MustNotExist && exists {
		return nil, api.Errorf(api.EConflict, "%s %q already exists", ref.Kind, ref.Name)
	}
	if !opt.anyOwner {
		if err := api.CheckOwner(meta, m, owner, exists); err != nil {
			return nil, err
		}
	}
	if m.Delete && !exists {
		return nil, api.Errorf(api.ENotFound, "%s %q not found", ref.Kind, ref.Name)
	}
	// A delete of nothing is a 404 whatever its If-Match says: RFC 9110 section 13.2.1
	// has a server ignore preconditions when the answer without them is not a 2xx.
	if !opt.ifMatchHead && !meta.IfMatch.Holds(version, exists) {
		if !exists {
			return nil, api.Errorf(api.EPreconditionFailed, "%s %q does not exist, so If-Match fails", ref.Kind, ref.Name)
		}
		return nil, api.Errorf(api.EPreconditionFailed, "%s %q is at version %d, not %s", ref.Kind, ref.Name, version, meta.IfMatch)
	}

	var before, curSecret []byte
	if exists {
		cur, _ := mutationOf(head, ref)
		before, curSecret, _ = encode(cur)
	}
	if m.Delete {
		return &pending{m: *m, before: before, change: api.Change{Kind: ref.Kind, Name: ref.Name, Op: api.OpDelete}}, nil
	}
	stamp(m, head, rev)
	body, secret, err := encode(*m)
	if err != nil {
		return nil, fmt.Errorf("encode %s %q: %w", ref.Kind, ref.Name, err)
	}
	op := api.OpCreate
	if exists {
		op = api.OpUpdate
		if same(before, curSecret, body, secret) {
			return nil, nil
		}
	}
	return &pending{m: *m, before: before, secret: secret, bodyOf: opt.restore[ref],
		change: api.Change{Kind: ref.Kind, Name: ref.Name, Op: op, Body: body}}, nil
}

// stamp replaces the mutation's object by a copy carrying rev as its version, so that the
// caller's object is never shared with the head. A certificate written without a key keeps
// the stored one.
func stamp(m *api.Mutation, head *api.State, rev int64) {
	switch m.Kind {
	case api.KindBackend:
		b := *m.Backend
		b.Version = rev
		m.Backend = &b
	case api.KindServer:
		srv := *m.Server
		srv.Version = rev
		m.Server = &srv
	case api.KindCertificate:
		c := *m.Certificate
		c.Version = rev
		if cur := head.Certificates[c.Name]; c.Key == "" && cur != nil {
			c.Key = cur.Key
			c.KeyMatches = cur.KeyMatches && cur.Fingerprint == c.Fingerprint
		}
		m.Certificate = &c
	case api.KindSettings:
		set := *m.Settings
		set.Version = rev
		m.Settings = &set
	case api.KindHtpasswd:
		h := *m.Htpasswd
		h.Version = rev
		if cur := head.Htpasswds[h.Name]; h.Content == "" && cur != nil {
			h.Content, h.Users, h.Fingerprint = cur.Content, cur.Users, cur.Fingerprint
		}
		m.Htpasswd = &h
	case api.KindCACertificate:
		c := *m.CACertificate
		c.Version = rev
		m.CACertificate = &c
	}
}

// commit writes the revision, its object versions and its audit event in one transaction.
func (s *core) commit(ctx context.Context, r api.Revision, changes []pending, meta api.Meta, opt writeOptions) error {
	// Once begun, the commit runs to its end even if the client hangs up: the revision is
	// whole or absent either way, and a context without cancel spares the driver a
	// goroutine per statement that would only watch for it.
	ctx = context.WithoutCancel(ctx)
	tx, end, err := s.w.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	if err := s.prep.insertRevision(ctx, tx, r); err != nil {
		return err
	}
	if len(changes) == 1 {
		err = s.prep.insertVersion(ctx, tx, r.ID, changes[0])
	} else {
		err = insertVersions(ctx, tx, r.ID, changes)
	}
	if err != nil {
		return err
	}
	ev := api.AuditEvent{Time: r.Time, Actor: r.Actor, Action: api.AuditWrite, Revision: r.ID,
		Outcome: "success", Detail: r.Message, Remote: meta.Remote, Target: target(changes)}
	if opt.action != "" {
		ev.Action = opt.action
	}
	if _, err := s.prep.insertAudit(ctx, tx, ev); err != nil {
		return err
	}
	if err := deleteHolds(ctx, tx, meta, opt.release, r.ID, r.Time); err != nil {
		return err
	}
	if err := insertHolds(ctx, tx, opt.holds); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit revision %d: %w", r.ID, err)
	}
	return nil
}

// insertVersions writes the object versions in multi-row INSERTs: a rollback over a
// large config writes thousands of rows, and one statement per row would dominate it.
func insertVersions(ctx context.Context, tx *sqlx.Tx, rev int64, changes []pending) error {
	const batch = 200
	for len(changes) > 0 {
		n := min(batch, len(changes))
		q := `INSERT INTO object_versions (kind, name, revision, op, body, secret, body_of) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, NULLIF(?, 0)),", n), ",")
		args := make([]any, 0, 7*n)
		for _, p := range changes[:n] {
			c := p.change
			body, secret := []byte(c.Body), p.secret
			if p.bodyOf != 0 {
				body, secret = nil, nil
			}
			args = append(args, c.Kind, c.Name, rev, c.Op, body, secret, p.bodyOf)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("insert %d object versions: %w", n, err)
		}
		changes = changes[n:]
	}
	return nil
}

// target names what a revision changed, for the audit trail.
func target(changes []pending) string {
	if len(changes) == 1 {
		return changes[0].change.Kind + "/" + changes[0].change.Name
	}
	return fmt.Sprintf("%d objects", len(changes))
}
