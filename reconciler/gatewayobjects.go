package reconciler

import (
	"maps"
	"slices"

	"github.com/restyplane/restyplane/api"
)

// objectSet is the objects a route or a Gateway makes, recorded as the merge applies
// them: what its status and Events answer for when a rollback holds one back
// (heldGatewayReport).
type objectSet map[api.Ref]bool

// add records the object kind name.
func (s *objectSet) add(kind, name string) {
	if *s == nil {
		*s = objectSet{}
	}
	(*s)[api.Ref{Kind: kind, Name: name}] = true
}

// sorted lists the objects by kind and name; nil for none.
func (s objectSet) sorted() []api.Ref {
	if len(s) == 0 {
		return nil
	}
	return slices.SortedFunc(maps.Keys(s), compareRefs)
}

// madeBy records what an applied location e of route rp makes, for the route, for the
// Gateway it reaches the location through and for the Gateway's listeners it reaches it
// through: the server it is in, and the backends and CA bundles it uses.
func madeBy(e routeEntry, rp *routePlan) {
	add := func(kind, name string) {
		rp.made.add(kind, name)
		e.gw.made.add(kind, name)
		for _, l := range e.listeners {
			l.made.add(kind, name)
		}
	}
	add(api.KindServer, gatewayServerName(e.host, e.address, e.port))
	for _, n := range locationBackends(e.loc) {
		b := rp.backends[n]
		if b == nil {
			continue
		}
		add(api.KindBackend, n)
		if t := b.UpstreamTLS; t != nil && rp.cas[t.CACertificate] != nil {
			add(api.KindCACertificate, t.CACertificate)
		}
	}
}
