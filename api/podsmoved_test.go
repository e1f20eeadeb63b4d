package api

import "testing"

// TestOnlyPodsMoved: a revision that moves only the endpoints of Kubernetes-owned backends
// is a rollout's, a Gateway API rule's backend's included when its split stays; anything
// else in it, a rule's weights, or the REST API's backends, is not.
func TestOnlyPodsMoved(t *testing.T) {
	base := func() *State {
		s := NewState()
		s.Backends["k"] = &Backend{Name: "k", Version: 1, Endpoints: []Endpoint{{Address: "10.0.0.1", Port: 80}}, Source: Source{Kind: SourceKubernetes}}
		s.Backends["r"] = &Backend{Name: "r", Version: 1, Endpoints: []Endpoint{{Address: "10.0.0.9", Port: 80}}, Source: Source{Kind: SourceAPI}}
		s.Servers["s"] = &Server{Name: "s", Version: 1, Source: Source{Kind: SourceKubernetes}}
		s.Backends["w"] = &Backend{Name: "w", Version: 1, Endpoints: []Endpoint{{Address: "10.0.0.1", Port: 80}}, ErrorWeight: 1000,
			Split: &Split{Parts: []SplitPart{{"shop", "web", 80, 90}}, UnresolvedWeight: 90}, Source: Source{Kind: SourceKubernetes, Object: ObjectHTTPRoute}}
		return s
	}
	for _, c := range []struct {
		name string
		edit func(*State)
		want bool
	}{
		{"nothing", func(*State) {}, false},
		{"a Kubernetes backend's endpoints", func(s *State) { moveTo(s, "k", "10.0.0.2") }, true},
		{"a REST backend's endpoints", func(s *State) { moveTo(s, "r", "10.0.0.2") }, false},
		{"endpoints and balancing", func(s *State) { moveTo(s, "k", "10.0.0.2"); s.Backends["k"].LoadBalance = EWMA }, false},
		{"endpoints and a server", func(s *State) { moveTo(s, "k", "10.0.0.2"); s.Servers["s"] = &Server{Name: "s", Version: 2} }, false},
		{"a backend added", func(s *State) {
			s.Backends["n"] = &Backend{Name: "n", Version: 2, Source: Source{Kind: SourceKubernetes}}
		}, false},
		{"a backend deleted", func(s *State) { delete(s.Backends, "r") }, false},
		{"a route's weighted backend's endpoints, written before splits", func(s *State) {
			moveTo(s, "k", "10.0.0.2")
			s.Backends["k"].Source.Object = ObjectHTTPRoute
		}, false},
		{"a route's weighted backend's endpoints and share answered 500, its split the same", func(s *State) {
			moveTo(s, "w", "10.0.0.3")
			s.Backends["w"].ErrorWeight = 500
		}, true},
		{"a route's weighted backend's weights", func(s *State) {
			moveTo(s, "w", "10.0.0.3")
			s.Backends["w"].Split = &Split{Parts: []SplitPart{{"shop", "web", 80, 10}}, UnresolvedWeight: 90}
		}, false},
		{"a route's weighted backend gets a split", func(s *State) {
			s.Backends["k"] = &Backend{Name: "k", Version: 2, Endpoints: []Endpoint{{Address: "10.0.0.1", Port: 80}},
				Split: &Split{Parts: []SplitPart{{"shop", "web", 80, 1}}}, Source: Source{Kind: SourceKubernetes, Object: ObjectHTTPRoute}}
		}, false},
	} {
		head := base()
		c.edit(head)
		if got := OnlyPodsMoved(base(), head); got != c.want {
			t.Errorf("%s: OnlyPodsMoved = %v, want %v", c.name, got, c.want)
		}
	}
}

// moveTo gives backend name of s one endpoint at addr, as a new version.
func moveTo(s *State, name, addr string) {
	b := *s.Backends[name]
	b.Version, b.Endpoints = 2, []Endpoint{{Address: addr, Port: 80}}
	s.Backends[name] = &b
}
