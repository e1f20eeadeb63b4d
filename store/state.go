package store

import (
	"context"
	"fmt"
	"time"

	"github.com/restyplane/restyplane/api"
)

// State returns the desired state at revision rev (0: the newest). Keys of certificates
// are included only with withKeys, which only the applier asks for.
func (s *HistoryStore) State(ctx context.Context, rev int64, withKeys bool) (*api.State, error) {
	st, _, err := s.stateAt(ctx, rev, withKeys)
	return st, err
}

// stateAt is State that also says, for each object, which row holds its body: a rollback
// points at those rows instead of copying them.
func (s *core) stateAt(ctx context.Context, rev int64, withKeys bool) (*api.State, map[api.Ref]int64, error) {
	head, err := s.headRevision(ctx)
	if err != nil {
		return nil, nil, err
	}
	if rev == 0 {
		rev = head
	}
	if rev < 0 || rev > head {
		return nil, nil, api.Errorf(api.ENotFound, "revision %d not found (head is %d)", rev, head)
	}
	if err := s.checkKept(ctx, rev); err != nil {
		return nil, nil, err
	}
	// For each object, its newest version at or below rev. SQLite fills the bare columns
	// of an aggregate query from the row that holds the MAX, and the primary key
	// (kind, name, revision) makes this one index scan.
	q := resolved(`SELECT kind, name, MAX(revision) AS revision, op, body, secret, body_of
		FROM object_versions WHERE revision <= ? GROUP BY kind, name`, withKeys)
	var rows []objectRow
	if err := s.db.SelectContext(ctx, &rows, q, rev); err != nil {
		return nil, nil, fmt.Errorf("state at %d: %w", rev, err)
	}
	st := api.NewState()
	st.Revision = rev
	if rev > 0 {
		var at int64
		if err := s.db.GetContext(ctx, &at, `SELECT created_at FROM revisions WHERE id = ?`, rev); err != nil {
			return nil, nil, fmt.Errorf("time of revision %d: %w", rev, err)
		}
		st.Written = time.Unix(0, at).UTC()
	}
	bodies := make(map[api.Ref]int64, len(rows))
	for _, r := range rows {
		if err := load(st, r); err != nil {
			return nil, nil, err
		}
		bodies[api.Ref{Kind: r.Kind, Name: r.Name}] = r.BodyRev
	}
	return st, bodies, nil
}

func (s *core) headRevision(ctx context.Context) (int64, error) {
	var head int64
	if err := s.db.GetContext(ctx, &head, `SELECT COALESCE(MAX(id), 0) FROM revisions`); err != nil {
		return 0, fmt.Errorf("head revision: %w", err)
	}
	return head, nil
}

// ReplaceConfig replaces every API-owned object and the settings by those in cfg, as one
// revision: the declarative form of many writes. Kubernetes-owned objects stay as they are
// and may not appear in cfg. Zero settings mean the defaults.
func (s *HistoryStore) ReplaceConfig(ctx context.Context, meta api.Meta, cfg api.Config) (*api.WriteResult, error) {
	opt := writeOptions{ifMatchHead: true, checkAll: true}
	return s.write(ctx, meta, opt, func(head *api.State) ([]api.Mutation, error) {
		set := cfg.Settings
		set.Version = 0
		if isZero(set) {
			set = api.DefaultSettings()
		}
		muts := []api.Mutation{{Kind: api.KindSettings, Name: api.SettingsName, Settings: &set}}
		keep := map[api.Ref]bool{}
		add := func(m api.Mutation, src *api.Source, field string) error {
			if src.Kind == api.SourceKubernetes {
				return api.Invalid(field, "a config may hold only API-owned objects; %s %q comes from Kubernetes", m.Kind, m.Name)
			}
			src.Kind = api.SourceAPI
			keep[m.Ref()] = true
			muts = append(muts, m)
			return nil
		}
		for i := range cfg.Certificates {
			c := &cfg.Certificates[i]
			if err := add(api.Mutation{Kind: api.KindCertificate, Name: c.Name, Certificate: c}, &c.Source, fmt.Sprintf("certificates[%d].source", i)); err != nil {
				return nil, err
			}
		}
		for i := range cfg.Htpasswds {
			h := &cfg.Htpasswds[i]
			if err := add(api.Mutation{Kind: api.KindHtpasswd, Name: h.Name, Htpasswd: h}, &h.Source, fmt.Sprintf("htpasswds[%d].source", i)); err != nil {
				return nil, err
			}
		}
		for i := range cfg.CACertificates {
			c := &cfg.CACertificates[i]
			if err := add(api.Mutation{Kind: api.KindCACertificate, Name: c.Name, CACertificate: c}, &c.Source, fmt.Sprintf("caCertificates[%d].source", i)); err != nil {
				return nil, err
			}
		}
		for i := range cfg.Backends {
			b := &cfg.Backends[i]
			if err := add(api.Mutation{Kind: api.KindBackend, Name: b.Name, Backend: b}, &b.Source, fmt.Sprintf("backends[%d].source", i)); err != nil {
				return nil, err
			}
		}
		for i := range cfg.Servers {
			v := &cfg.Servers[i]
			if err := add(api.Mutation{Kind: api.KindServer, Name: v.Name, Server: v}, &v.Source, fmt.Sprintf("servers[%d].source", i)); err != nil {
				return nil, err
			}
		}
		for _, r := range head.Refs() {
			_, owner, _ := head.Lookup(r)
			if r.Kind != api.KindSettings && owner.Kind != api.SourceKubernetes && !keep[r] {
				muts = append(muts, api.Mutation{Kind: r.Kind, Name: r.Name, Delete: true})
			}
		}
		return muts, nil
	})
}

// Rollback writes a new revision whose state equals the state at revision to. History is
// never rewritten; the new revision records which one it restored.
func (s *HistoryStore) Rollback(ctx context.Context, meta api.Meta, to int64) (*api.WriteResult, error) {
	if to < 1 {
		return nil, api.Invalid("revision", "revision must be at least 1")
	}
	target, bodies, err := s.stateAt(ctx, to, true)
	if err != nil {
		return nil, err
	}
	opt := writeOptions{ifMatchHead: true, anyOwner: true, restore: bodies, checkAll: true, rollbackOf: to, action: api.AuditRollback}
	return s.write(ctx, meta, opt, func(head *api.State) ([]api.Mutation, error) {
		var muts []api.Mutation
		seen := map[api.Ref]bool{}
		for _, r := range target.Refs() {
			seen[r] = true
			tv, _, _ := target.Lookup(r)
			if hv, _, ok := head.Lookup(r); ok && hv == tv {
				continue // the very same stored version: nothing to restore
			}
			m, _ := mutationOf(target, r)
			muts = append(muts, m)
		}
		for _, r := range head.Refs() {
			if !seen[r] {
				muts = append(muts, api.Mutation{Kind: r.Kind, Name: r.Name, Delete: true})
			}
		}
		return muts, nil
	})
}
