package api

import (
	"strings"
	"testing"
)

// claimsState is three servers: one and two share shop.test with different paths, three
// has a hostname of its own.
func claimsState() *State {
	srv := func(name string, hosts []string, paths ...string) *Server {
		s := &Server{Name: name, Hostnames: hosts}
		for _, p := range paths {
			s.Locations = append(s.Locations, Location{Path: p, Backend: "b"})
		}
		return s
	}
	return &State{Backends: map[string]*Backend{"b": {Name: "b"}}, Servers: map[string]*Server{
		"one":   srv("one", []string{"shop.test", "one.test"}, "/a", "/b"),
		"two":   srv("two", []string{"shop.test"}, "/c"),
		"three": srv("three", []string{"three.test"}, "/a"),
	}}
}

func TestCheckClaims(t *testing.T) {
	touch := func(names ...string) []Ref {
		var out []Ref
		for _, n := range names {
			out = append(out, Ref{KindServer, n})
		}
		return out
	}
	cases := []struct {
		name    string
		change  func(s *State)
		touched []Ref
		want    string // "" for no conflict, else a part of the message
	}{
		{"same paths on other hostnames", func(s *State) {}, touch("three"), ""},
		{"a shared hostname with other paths", func(s *State) {}, touch("two"), ""},
		{"a shared hostname and path, named by its owner", func(s *State) {
			s.Servers["two"].Locations = append(s.Servers["two"].Locations, Location{Path: "/b/", Backend: "b"})
		}, touch("two"), `host "shop.test" prefix path "/b" is already claimed by server "one"`},
		{"the owner is named when the writer's name sorts first", func(s *State) {
			s.Servers["one"].Locations = append(s.Servers["one"].Locations, Location{Path: "/c", Backend: "b"})
		}, touch("one"), `host "shop.test" prefix path "/c" is already claimed by server "two"`},
		{"an exact path does not clash with the prefix", func(s *State) {
			s.Servers["two"].Locations = append(s.Servers["two"].Locations, Location{Path: "/a", Match: MatchExact, Backend: "b"})
		}, touch("two"), ""},
		{"a new hostname that another server holds with the same path", func(s *State) {
			s.Servers["three"].Hostnames = append(s.Servers["three"].Hostnames, "one.test")
		}, touch("three"), `host "one.test" prefix path "/a" is already claimed by server "one"`},
		{"two touched servers clash", func(s *State) {
			s.Servers["three"].Hostnames = []string{"shop.test"}
		}, touch("one", "three"), `already claimed by server "one"`},
		{"every server checked", func(s *State) {
			s.Servers["three"].Hostnames = []string{"shop.test"}
		}, nil, `already claimed by server "one"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := claimsState()
			c.change(s)
			var err error
			if c.touched == nil {
				err = s.CheckAll()
			} else {
				err = s.Check(c.touched)
			}
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Check: %v, want no conflict", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Check: %v, want a conflict saying %s", err, c.want)
			case c.want != "" && err.(*Error).Code != EConflict:
				t.Fatalf("Check: code %s, want %s", err.(*Error).Code, EConflict)
			}
		})
	}
}
