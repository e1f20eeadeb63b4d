package reconciler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/restyplane/restyplane/api"
)

// ReasonRolledBack (Warning): a rollback took objects of the Ingress back from what it
// asks for, and they are held there until the Ingress asks for something else.
const ReasonRolledBack = "RolledBack"

// Holds is what the reconciler needs of the objects rollbacks hold back (api.Hold): the
// holds, a release, and a wake-up when one is made or released.
type Holds interface {
	Holds() map[api.Ref]api.Hold
	HoldsChanged() <-chan struct{}
	ReleaseHolds(ctx context.Context, meta api.Meta, refs []api.Ref) (int, error)
	// RolledBackAfter reports whether a rollback was committed after revision rev.
	RolledBackAfter(rev int64) bool
}

// holdBack takes out of muts what the holds keep: a held object is not written with the
// content its rollback undid. A held backend still follows its Service's endpoints, so
// that a rollback never pins Pods that are gone; and what a held server or backend names
// is not deleted under it. A hold whose object the cluster now asks for differently is
// returned in release, and its mutation written.
func holdBack(t *Translation, head *api.State, muts []api.Mutation, holds map[api.Ref]api.Hold, follow func(name string) ([]api.Endpoint, bool)) (out []api.Mutation, release []api.Ref, held map[api.Ref]api.Hold) {
	if len(holds) == 0 {
		return muts, nil, nil
	}
	held, release = sortHolds(t, head, holds, time.Now())
	release = releaseExpiring(t, head, held, release, time.Now())
	for _, m := range muts {
		if _, ok := held[m.Ref()]; !ok {
			out = append(out, m)
		}
	}
	for _, ref := range slices.SortedFunc(maps.Keys(held), compareRefs) {
		if m, ok := followEndpoints(t, head, ref, follow); ok {
			out = append(out, m)
		}
	}
	out = keepReferenced(head, out)
	out = append(out, followKept(t, head, out, held, follow)...)
	out, release = dropOrphans(head, out, held, release)
	// A new object may name one whose creation is held: it is created after all.
	if cand := candidate(head, out); cand.Check(refsOf(out)) != nil {
		for ref := range held {
			if want, ok := desired(t, ref); ok {
				if _, _, exists := head.Lookup(ref); !exists {
					delete(held, ref)
					release = append(release, ref)
					out = append(out, want)
				}
			}
		}
	}
	return out, release, held
}

// heldCertificateMargin is how long before it expires a certificate a rollback restored
// stops being held: the cluster's (the one the rollback undid) is served instead of an
// expired one.
const heldCertificateMargin = 24 * time.Hour

// sortHolds splits holds into those that still hold (the cluster asks for what the
// rollback undid) and those to release (it asks for something else, or the held content
// is a certificate about to expire).
func sortHolds(t *Translation, head *api.State, holds map[api.Ref]api.Hold, now time.Time) (held map[api.Ref]api.Hold, release []api.Ref) {
	held = map[api.Ref]api.Hold{}
	for _, ref := range slices.SortedFunc(maps.Keys(holds), compareRefs) {
		want, ok := desired(t, ref)
		same := !ok && holds[ref].Rejected == "" || ok && api.HoldDigest(want) == holds[ref].Rejected
		if c := head.Certificates[ref.Name]; ref.Kind == api.KindCertificate && c != nil && ok && c.NotAfter.Before(now.Add(heldCertificateMargin)) {
			same = false
		}
		if same {
			held[ref] = holds[ref]
		} else {
			release = append(release, ref)
		}
	}
	return held, release
}

// followEndpoints returns the write that gives held backend ref the endpoints of what the
// cluster asks for or, when nothing names it any more, of its Service (follow), keeping
// the rest as the rollback left it; false when its endpoints are those already. A held
// backend of a Gateway API rule gets its parts' endpoints, weighed as its Split says
// (followSplit).
func followEndpoints(t *Translation, head *api.State, ref api.Ref, follow func(string) ([]api.Endpoint, bool)) (api.Mutation, bool) {
	cur := head.Backends[ref.Name]
	if ref.Kind != api.KindBackend || cur == nil {
		return api.Mutation{}, false
	}
	b := *cur
	b.Version = 0
	switch {
	case cur.Split != nil:
		fresh, ok := followSplit(t, cur, follow)
		if !ok {
			return api.Mutation{}, false
		}
		b.Endpoints, b.ErrorWeight = fresh.Endpoints, fresh.ErrorWeight
	case cur.Source.Object != "":
		// A rule's backend written before backends recorded their split: its weights
		// are in its endpoints alone, which are held with them.
		return api.Mutation{}, false
	default:
		if want, ok := desired(t, ref); ok {
			b.Endpoints = want.Backend.Endpoints
		} else if b.Endpoints, ok = follow(ref.Name); !ok {
			return api.Mutation{}, false
		}
	}
	if slices.Equal(cur.Endpoints, b.Endpoints) && cur.ErrorWeight == b.ErrorWeight {
		return api.Mutation{}, false
	}
	return api.Mutation{Kind: api.KindBackend, Name: ref.Name, Backend: &b}, true
}

// dropOrphans releases and deletes what a rollback made again (a backend, certificate or
// bundle that Kubernetes had deleted) once nothing names it: it was held for what a held
// server named, and that hold has ended. A server made again stays held: it is what the
// rollback brought back. The delete replaces any write of the object already in out (a
// held backend following its Service's endpoints): a request names an object once.
func dropOrphans(head *api.State, out []api.Mutation, held map[api.Ref]api.Hold, release []api.Ref) ([]api.Mutation, []api.Ref) {
	for _, ref := range slices.SortedFunc(maps.Keys(held), compareRefs) {
		if held[ref].Rejected != "" || ref.Kind == api.KindServer {
			continue
		}
		if _, _, exists := head.Lookup(ref); !exists {
			continue
		}
		del := api.Mutation{Kind: ref.Kind, Name: ref.Name, Delete: true}
		others := slices.DeleteFunc(slices.Clone(out), func(m api.Mutation) bool { return m.Ref() == ref })
		if candidate(head, append(others, del)).Check([]api.Ref{ref}) == nil {
			out = append(others, del)
			release = append(release, ref)
			delete(held, ref)
		}
	}
	return out, release
}

// keepReferenced drops the deletes of objects that what stays still names (a held server,
// a held backend's canary), until none is left.
func keepReferenced(head *api.State, muts []api.Mutation) []api.Mutation {
	for {
		cand := candidate(head, muts)
		kept := muts[:0:0]
		for _, m := range muts {
			if m.Delete && cand.Check([]api.Ref{m.Ref()}) != nil {
				continue
			}
			kept = append(kept, m)
		}
		if len(kept) == len(muts) {
			return muts
		}
		muts = kept
	}
}

// candidate is head with muts applied.
func candidate(head *api.State, muts []api.Mutation) *api.State {
	c := head.Clone()
	for _, m := range muts {
		c.Apply(m)
	}
	return c
}

func refsOf(muts []api.Mutation) []api.Ref {
	refs := make([]api.Ref, len(muts))
	for i, m := range muts {
		refs[i] = m.Ref()
	}
	return refs
}

// desired returns the mutation that writes object ref as t has it.
func desired(t *Translation, ref api.Ref) (api.Mutation, bool) {
	m := api.Mutation{Kind: ref.Kind, Name: ref.Name}
	switch ref.Kind {
	case api.KindBackend:
		m.Backend = t.Backends[ref.Name]
		return m, m.Backend != nil
	case api.KindServer:
		m.Server = t.Servers[ref.Name]
		return m, m.Server != nil
	case api.KindCertificate:
		m.Certificate = t.Certificates[ref.Name]
		return m, m.Certificate != nil
	case api.KindHtpasswd:
		m.Htpasswd = t.Htpasswds[ref.Name]
		return m, m.Htpasswd != nil
	case api.KindCACertificate:
		m.CACertificate = t.CACertificates[ref.Name]
		return m, m.CACertificate != nil
	}
	return m, false
}

func compareRefs(a, b api.Ref) int {
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// holdMessage is the reason the reconciler gives for the holds it releases.
func holdMessage(release []api.Ref) string {
	return fmt.Sprintf("the cluster asks for something else than what the rollback undid (%d objects)", len(release))
}
