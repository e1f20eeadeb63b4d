package api

import "fmt"

// Bounds of a split, as Gateway API bounds a rule's backendRefs.
const (
	MaxSplitParts  = 16
	MaxSplitWeight = 1000000
)

// Split is what the backend of a Gateway API rule of several backendRefs divides its
// requests among, as the rule says: the Service ports it balances, each with its
// backendRef's weight, and the weight of the backendRefs that do not resolve, whose
// share the proxy answers 500. The backend's endpoints and errorWeight are made of it and
// of those ports' ready endpoints: a change of the split is the route's, a change of the
// endpoints alone is its Services' Pods moving. The reconciler sets it; a backend of the
// REST API has none.
type Split struct {
	// Parts are the backendRefs that resolve and weigh more than 0, in the rule's order.
	Parts []SplitPart `json:"parts,omitempty"`
	// UnresolvedWeight is the sum of the weights of the backendRefs that do not resolve.
	UnresolvedWeight int `json:"unresolvedWeight,omitempty" minimum:"0" maximum:"16000000" example:"10"`
}

// SplitPart is one backendRef of a split: a Service port and its weight.
type SplitPart struct {
	Namespace string `json:"namespace" example:"shop"`
	Service   string `json:"service" example:"web"`
	Port      int    `json:"port" minimum:"1" maximum:"65535" example:"80"`
	// Weight is the backendRef's weight.
	Weight int `json:"weight" minimum:"1" maximum:"1000000" example:"90"`
}

// validate checks the split of a backend owned by src: only a route's rule has one.
func (s *Split) validate(src Source) error {
	if s == nil {
		return nil
	}
	if src.Kind != SourceKubernetes || src.Object != ObjectHTTPRoute && src.Object != ObjectGRPCRoute {
		return Invalid("", "belongs to the backend of a Gateway API route's rule (source kubernetes, object HTTPRoute or GRPCRoute) only")
	}
	if len(s.Parts) > MaxSplitParts {
		return Invalid("parts", "at most %d parts", MaxSplitParts)
	}
	for i, p := range s.Parts {
		if err := p.validate(); err != nil {
			return prefixed(fmt.Sprintf("parts[%d]", i), err)
		}
	}
	if s.UnresolvedWeight < 0 || s.UnresolvedWeight > MaxSplitParts*MaxSplitWeight {
		return Invalid("unresolvedWeight", "must be 0-%d", MaxSplitParts*MaxSplitWeight)
	}
	return nil
}

func (p SplitPart) validate() error {
	if err := ValidNamespace("namespace", p.Namespace); err != nil {
		return err
	}
	// A Service's name is an RFC 1035 label: the namespace's grammar, RFC 1123's, admits it.
	if !namespaceRe.MatchString(p.Service) {
		return Invalid("service", "must be a Kubernetes Service name: 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit")
	}
	if err := ValidPort("port", p.Port); err != nil {
		return err
	}
	if p.Weight < 1 || p.Weight > MaxSplitWeight {
		return Invalid("weight", "must be 1-%d", MaxSplitWeight)
	}
	return nil
}
