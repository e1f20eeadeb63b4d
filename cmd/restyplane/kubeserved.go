//go:build !nokube

package main

import (
	"context"
	"slices"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// servedSkips is what instance leaves out of revision applied, the revision it serves:
// what the newest successful apply of it says. That is its last apply, unless an apply
// of a later revision failed since (or a retry failed): then the store has it.
func (s applyingStore) servedSkips(ctx context.Context, instance string, applied int64, last *api.ApplyRecord) ([]api.SkippedObject, error) {
	if applied <= 0 {
		return nil, nil
	}
	if last != nil && last.Revision == applied && last.Outcome == api.OutcomeSuccess {
		return last.Skipped, nil
	}
	rec, err := s.LastSuccessOf(ctx, instance, applied)
	if api.ErrorCode(err) == api.ENotFound {
		return nil, nil // pruned: nothing to say
	} else if err != nil {
		return nil, err
	}
	return rec.Skipped, nil
}

// leftOut gathers what the instances that serve a revision left out of it: by object,
// each reason with the instances that gave it, in the order they were added.
type leftOut map[api.Ref][]leftOutBy

// leftOutBy is one reason an object was left out, and the instances that gave it.
type leftOutBy struct {
	why       string
	instances []string
}

// add records what instance left out.
func (l leftOut) add(instance string, skipped []api.SkippedObject) {
	for _, o := range skipped {
		ref, why := api.Ref{Kind: o.Kind, Name: o.Name}, o.Reason
		if o.Kind == api.KindServer && strings.Contains(o.Name, "/") {
			// A location policy the policies dict had no room for, "<server>/<i>": its
			// server is served without it.
			ref.Name, _, _ = strings.Cut(o.Name, "/")
			why = "location policy " + o.Name + ": " + o.Reason
		}
		i := slices.IndexFunc(l[ref], func(b leftOutBy) bool { return b.why == why })
		if i < 0 {
			l[ref] = append(l[ref], leftOutBy{why: why})
			i = len(l[ref]) - 1
		}
		if !slices.Contains(l[ref][i].instances, instance) {
			l[ref][i].instances = append(l[ref][i].instances, instance)
		}
	}
}

// told spells each object's reasons for reconciler.Serving: "edge-1, edge-2: nginx's
// reason; edge-3: another"; nil for none.
func (l leftOut) told() map[api.Ref]string {
	if len(l) == 0 {
		return nil
	}
	out := make(map[api.Ref]string, len(l))
	for ref, bys := range l {
		parts := make([]string, len(bys))
		for i, b := range bys {
			parts[i] = strings.Join(b.instances, ", ") + ": " + b.why
		}
		out[ref] = strings.Join(parts, "; ")
	}
	return out
}
