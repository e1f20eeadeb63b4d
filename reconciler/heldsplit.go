package reconciler

import (
	"maps"
	"strconv"

	"github.com/restyplane/restyplane/api"
)

// refPort names the Service port a backendRef resolves to.
type refPort struct {
	namespace, service string
	port               int
}

func portOf(p api.SplitPart) refPort { return refPort{p.Namespace, p.Service, p.Port} }

// recordPort records the endpoints of b, the backend of the Service port of part.
func (rp *routePlan) recordPort(part api.SplitPart, b *api.Backend) {
	if rp.refPorts == nil {
		rp.refPorts = map[refPort][]api.Endpoint{}
	}
	rp.refPorts[portOf(part)] = b.Endpoints
}

// refPorts are the endpoints of the Service ports that the routes' backendRefs
// resolve to.
func (gp *gatewayPlan) refPorts() map[refPort][]api.Endpoint {
	m := map[refPort][]api.Endpoint{}
	if gp == nil {
		return m
	}
	for _, rp := range gp.routes {
		maps.Copy(m, rp.refPorts)
	}
	return m
}

// followSplit is held backend b of a Gateway API rule made again of its parts' endpoints
// as they are now, weighed as its Split says: a hold keeps the route's weights, and never
// Pods that are gone. A part's endpoints are those of its Service port as a route's
// backendRef resolves it now, or, when no route names that port any more, those of the
// port's backend (follow). False when a part has neither: b keeps the endpoints it has.
func followSplit(t *Translation, b *api.Backend, follow func(string) ([]api.Endpoint, bool)) (*api.Backend, bool) {
	parts := make([]weightedPart, 0, len(b.Split.Parts))
	for _, p := range b.Split.Parts {
		eps, ok := t.refPorts[portOf(p)]
		if !ok {
			if eps, ok = follow(backendName(p.Namespace, p.Service, strconv.Itoa(p.Port))); !ok {
				return nil, false
			}
		}
		parts = append(parts, weightedPart{b: &api.Backend{Endpoints: eps}, part: p})
	}
	return weightedBackend(b.Name, b.Source, parts, int32(b.Split.UnresolvedWeight), b), true
}
