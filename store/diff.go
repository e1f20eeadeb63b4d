package store

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/restyplane/restyplane/api"
)

// Diff returns what differs between the states at revisions from and to, object by object.
// Only objects written between the two are read, so the cost follows the size of the
// change, not of the config. Certificate keys are never read.
func (s *HistoryStore) Diff(ctx context.Context, from, to int64) (api.Diff, error) {
	head, err := s.headRevision(ctx)
	if err != nil {
		return api.Diff{}, err
	}
	for _, r := range []int64{from, to} {
		if r < 0 || r > head {
			return api.Diff{}, api.Errorf(api.ENotFound, "revision %d not found (head is %d)", r, head)
		}
		if err := s.checkKept(ctx, r); err != nil {
			return api.Diff{}, err
		}
	}
	lo, hi := min(from, to), max(from, to)
	before, err := s.versionsAt(ctx, from, lo, hi)
	if err != nil {
		return api.Diff{}, err
	}
	after, err := s.versionsAt(ctx, to, lo, hi)
	if err != nil {
		return api.Diff{}, err
	}
	d := api.Diff{From: from, To: to, Entries: []api.DiffEntry{}}
	keys := make([]api.Ref, 0, len(before)+len(after))
	for k := range before {
		keys = append(keys, k)
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Kind != keys[j].Kind {
			return keys[i].Kind < keys[j].Kind
		}
		return keys[i].Name < keys[j].Name
	})
	for _, k := range keys {
		b, a := before[k], after[k]
		e := api.DiffEntry{Kind: k.Kind, Name: k.Name, Before: b, After: a}
		switch {
		case b == nil && a == nil, bytes.Equal(a, b):
			continue
		case b == nil:
			e.Op = api.OpCreate
		case a == nil:
			e.Op = api.OpDelete
		default:
			e.Op = api.OpUpdate
		}
		d.Entries = append(d.Entries, e)
	}
	return d, nil
}

// versionsAt returns, for each object written in (lo, hi], its body at revision at (nil
// when it did not exist then).
func (s *core) versionsAt(ctx context.Context, at, lo, hi int64) (map[api.Ref][]byte, error) {
	q := resolved(`SELECT kind, name, MAX(revision) AS revision, op, body, body_of
		FROM object_versions
		WHERE revision <= ? AND (kind, name) IN
			(SELECT kind, name FROM object_versions WHERE revision > ? AND revision <= ?)
		GROUP BY kind, name`, false)
	var rows []objectRow
	if err := s.db.SelectContext(ctx, &rows, q, at, lo, hi); err != nil {
		return nil, fmt.Errorf("versions at %d: %w", at, err)
	}
	out := make(map[api.Ref][]byte, len(rows))
	for _, r := range rows {
		if r.Op != api.OpDelete {
			out[api.Ref{Kind: r.Kind, Name: r.Name}] = r.Body
		}
	}
	return out, nil
}

func isZero(v any) bool { return reflect.ValueOf(v).IsZero() }
