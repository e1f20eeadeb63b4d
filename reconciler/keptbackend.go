package reconciler

import (
	"slices"

	"github.com/restyplane/restyplane/api"
)

// followKept returns the writes that give each backend a hold keeps without holding it the
// endpoints of its Service, as a held backend's follow them (followEndpoints). Such a
// backend is one the cluster no longer asks for, whose delete keepReferenced dropped from
// out because a held server (or a backend kept with it) names it: without this it would
// keep the endpoints it had when the cluster last named it, and the held server would send
// its traffic to Pods that are gone. A backend a REST object uses is kept for that object,
// not for a hold, and is left as it is.
func followKept(t *Translation, head *api.State, out []api.Mutation, held map[api.Ref]api.Hold, follow func(string) ([]api.Endpoint, bool)) []api.Mutation {
	deleted := map[string]bool{}
	for _, m := range out {
		if m.Kind == api.KindBackend && m.Delete {
			deleted[m.Name] = true
		}
	}
	used := usedByREST(head)
	var kept []string
	for name, b := range head.Backends {
		ref := api.Ref{Kind: api.KindBackend, Name: name}
		_, isHeld := held[ref]
		if b.Source.Kind == api.SourceKubernetes && t.Backends[name] == nil && !deleted[name] && !isHeld && !used[ref] {
			kept = append(kept, name)
		}
	}
	slices.Sort(kept)
	var muts []api.Mutation
	for _, name := range kept {
		if m, ok := followEndpoints(t, head, api.Ref{Kind: api.KindBackend, Name: name}, follow); ok {
			muts = append(muts, m)
		}
	}
	return muts
}
