package api

import (
	"errors"
	"testing"
)

// TestSplitValidation: a split belongs to a kubernetes route rule's backend alone (the
// REST API's backends are refused one), and its parts are bounded as Gateway API bounds a
// rule's backendRefs; a bad value names its field.
func TestSplitValidation(t *testing.T) {
	route := Source{Kind: SourceKubernetes, Object: ObjectHTTPRoute, Namespace: "shop", Name: "web"}
	parts := func(n int) []SplitPart {
		out := make([]SplitPart, n)
		for i := range out {
			out[i] = SplitPart{Namespace: "shop", Service: "web", Port: 80 + i, Weight: 1}
		}
		return out
	}
	for _, c := range []struct {
		name  string
		src   Source
		split *Split
		field string // "" when valid
	}{
		{"none", Source{}, nil, ""},
		{"a route's", route, &Split{Parts: []SplitPart{{"shop", "web", 80, 90}, {"shop", "canary", 80, 10}}, UnresolvedWeight: 5}, ""},
		{"a gRPC route's", Source{Kind: SourceKubernetes, Object: ObjectGRPCRoute}, &Split{Parts: parts(MaxSplitParts)}, ""},
		{"every request answered 500", route, &Split{}, ""},
		{"the REST API's", Source{Kind: SourceAPI}, &Split{Parts: parts(1)}, "split"},
		{"an Ingress's", Source{Kind: SourceKubernetes, Namespace: "shop", Name: "web"}, &Split{Parts: parts(1)}, "split"},
		{"too many parts", route, &Split{Parts: parts(MaxSplitParts + 1)}, "split.parts"},
		{"a bad namespace", route, &Split{Parts: []SplitPart{{"Shop", "web", 80, 1}}}, "split.parts[0].namespace"},
		{"a bad Service name", route, &Split{Parts: []SplitPart{{"shop", "web!", 80, 1}}}, "split.parts[0].service"},
		{"no port", route, &Split{Parts: []SplitPart{{"shop", "web", 0, 1}}}, "split.parts[0].port"},
		{"weight 0", route, &Split{Parts: []SplitPart{{"shop", "web", 80, 0}}}, "split.parts[0].weight"},
		{"weight past Gateway API's", route, &Split{Parts: []SplitPart{{"shop", "web", 80, MaxSplitWeight + 1}}}, "split.parts[0].weight"},
		{"negative unresolved weight", route, &Split{UnresolvedWeight: -1}, "split.unresolvedWeight"},
	} {
		b := &Backend{Name: "r", Split: c.split, Source: c.src}
		b.Normalize()
		err := b.Validate()
		var e *Error
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v, want valid", c.name, err)
		case c.field != "" && (!errors.As(err, &e) || e.Field != c.field):
			t.Errorf("%s: %v, want an error naming %s", c.name, err, c.field)
		}
	}
}
