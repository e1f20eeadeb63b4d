package reconciler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

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
	ReleaseHolds(ctx context.Context, meta api.Meta, refs []api.Ref) error
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
	held = map[api.Ref]api.Hold{}
	for _, ref := range slices.SortedFunc(maps.Keys(holds), compareRefs) {
		want, ok := desired(t, ref)
		if d := api.HoldDigest(want); !ok && holds[ref].Rejected == "" || ok && d == holds[ref].Rejected {
			held[ref] = holds[ref]
		} else {
			release = append(release, ref)
		}
	}
	// A held backend takes the endpoints of what the cluster asks for, or, when nothing
	// names it any more, of its Service.
	endpoints := func(ref api.Ref) {
		cur := head.Backends[ref.Name]
		want, ok := desired(t, ref)
		eps := []api.Endpoint(nil)
		if ok {
			eps = want.Backend.Endpoints
		} else if eps, ok = follow(ref.Name); !ok {
			return
		}
		if cur != nil && !slices.Equal(cur.Endpoints, eps) {
			b := *cur
			b.Version, b.Endpoints = 0, eps
			out = append(out, api.Mutation{Kind: api.KindBackend, Name: ref.Name, Backend: &b})
		}
	}
	for _, m := range muts {
		if held[m.Ref()].Revision == 0 {
			out = append(out, m)
		}
	}
	for _, ref := range slices.SortedFunc(maps.Keys(held), compareRefs) {
		if ref.Kind == api.KindBackend {
			endpoints(ref)
		}
	}
	out = keepReferenced(head, out)
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

// heldReports returns reports with a RolledBack Warning on each Ingress whose server or
// backend is held, copying those it changes: reports belong to the cached translation.
func heldReports(reports map[string]*Report, held map[api.Ref]api.Hold) map[string]*Report {
	if len(held) == 0 {
		return reports
	}
	out := make(map[string]*Report, len(reports))
	for key, rep := range reports {
		out[key] = rep
		if rep.Ingress == nil || !rep.Ours {
			continue
		}
		var names []string
		rev := int64(0)
		for _, ref := range ingressRefs(rep.Ingress) {
			if h, ok := held[ref]; ok {
				names = append(names, ref.Kind+" "+ref.Name)
				rev = max(rev, h.Revision)
			}
		}
		if len(names) == 0 {
			continue
		}
		c := *rep
		c.Problems = slices.Clone(rep.Problems)
		c.warn(ReasonRolledBack, "revision %d, a rollback, took %s back from what this Ingress asks for: they stay as the rollback left them until the Ingress asks for something else (or an editor releases them: DELETE /api/v1/holds/{kind}/{name})",
			rev, strings.Join(names, ", "))
		out[key] = &c
	}
	return out
}

// ingressRefs returns the servers of an Ingress's hosts and the backends it names.
func ingressRefs(ing *networkingv1.Ingress) []api.Ref {
	var refs []api.Ref
	backend := func(b *networkingv1.IngressBackend) {
		if b != nil && b.Service != nil {
			refs = append(refs, api.Ref{Kind: api.KindBackend, Name: backendName(ing.Namespace, b.Service.Name, portKey(b.Service.Port))})
		}
	}
	backend(ing.Spec.DefaultBackend)
	if ing.Spec.DefaultBackend != nil {
		refs = append(refs, api.Ref{Kind: api.KindServer, Name: catchAllName})
	}
	for _, r := range ing.Spec.Rules {
		host := r.Host
		if host == "" {
			host = api.CatchAllHostname
		}
		refs = append(refs, api.Ref{Kind: api.KindServer, Name: serverName(host)})
		if r.HTTP != nil {
			for i := range r.HTTP.Paths {
				backend(&r.HTTP.Paths[i].Backend)
			}
		}
	}
	return refs
}

// holdMessage is the reason the reconciler gives for the holds it releases.
func holdMessage(release []api.Ref) string {
	return fmt.Sprintf("the cluster asks for something else than what the rollback undid (%d objects)", len(release))
}
