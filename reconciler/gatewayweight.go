package reconciler

import (
	"math"
	"sort"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// weightedPart is one backend of a rule, and its backendRef: the Service port and weight.
type weightedPart struct {
	b    *api.Backend
	part api.SplitPart
}

// weightedBackend is one backend that splits requests among the parts as their weights
// say, whatever the number of endpoints of each: an endpoint of a part of weight w with n
// endpoints weighs w/n, scaled so that the heaviest weighs api.MaxWeight (and every one
// at least 1). A part without endpoints gets none of the requests. failing is the
// weight of the backendRefs that do not resolve, whose share the proxy answers 500
// (ErrorWeight, in the same scale); without parts, the proxy answers every request 500.
// It speaks as like does. Its Split records the parts' backendRefs and failing: what the
// rule asks for, which a hold keeps while the endpoints follow the Pods.
func weightedBackend(name string, src api.Source, parts []weightedPart, failing int32, like *api.Backend) *api.Backend {
	shares := map[api.Endpoint]float64{}
	most := float64(failing)
	split := &api.Split{UnresolvedWeight: int(failing)}
	for _, p := range parts {
		split.Parts = append(split.Parts, p.part)
		n := len(p.b.Endpoints)
		for _, e := range p.b.Endpoints {
			e.Weight = 0
			shares[e] += float64(p.part.Weight) / float64(n)
			most = max(most, shares[e])
		}
	}
	b := &api.Backend{Name: name, Endpoints: make([]api.Endpoint, 0, len(shares)), Source: src,
		Protocol: like.Protocol, UpstreamTLS: like.UpstreamTLS, Split: split}
	for e, s := range shares {
		e.Weight = max(1, int(math.Round(s/most*api.MaxWeight)))
		b.Endpoints = append(b.Endpoints, e)
	}
	switch {
	case len(parts) == 0:
		// No weight to share (all 0, or none that resolves): the spec answers 500.
		b.ErrorWeight = api.MaxWeight
	case failing > 0:
		b.ErrorWeight = max(1, int(math.Round(float64(failing)/most*api.MaxWeight)))
	}
	sort.Slice(b.Endpoints, func(i, j int) bool {
		x, y := b.Endpoints[i], b.Endpoints[j]
		if x.Address != y.Address {
			return x.Address < y.Address
		}
		return x.Port < y.Port
	})
	b.Normalize()
	return b
}

// lowerKind spells a route kind for an object name: "httproute".
func lowerKind(kind string) string { return strings.ToLower(kind) }
