package api

import (
	"strings"
	"testing"
)

// TestWhenValidate: conditions name a method of the fixed list, header names nginx passes
// on, query names and values of strict grammars, regexes the location checks would
// accept, each name once and at most MaxMatchValues of each.
func TestWhenValidate(t *testing.T) {
	h := func(n, typ, v string) []ValueMatch { return []ValueMatch{{Name: n, Type: typ, Value: v}} }
	many := make([]ValueMatch, MaxMatchValues+1)
	for i := range many {
		many[i] = ValueMatch{Name: "X-" + string(rune('a'+i)), Value: "v"}
	}
	for _, c := range []struct {
		name  string
		when  RequestMatch
		field string // "" when valid
	}{
		{"method", RequestMatch{Method: "PATCH"}, ""},
		{"header exact", RequestMatch{Headers: h("X-Version", "", "two words")}, ""},
		{"header regex", RequestMatch{Headers: h("x-version", ValueRegex, `v[0-9]+(\.[0-9]+)?`)}, ""},
		{"query exact and regex", RequestMatch{Query: []ValueMatch{{Name: "animal", Value: "whale"}, {Name: "n", Type: ValueRegex, Value: `[0-9]{1,3}`}}}, ""},
		{"empty", RequestMatch{}, "when"},
		{"lowercase method", RequestMatch{Method: "get"}, "when.method"},
		{"unknown method", RequestMatch{Method: "PURGE"}, "when.method"},
		{"header name with space", RequestMatch{Headers: h("X A", "", "v")}, "when.headers[0].name"},
		{"header name nginx ignores", RequestMatch{Headers: h("X_A", "", "v")}, "when.headers[0].name"},
		{"header name with a dot", RequestMatch{Headers: h("X.Trace", "", "v")}, "when.headers[0].name"},
		{"header named twice", RequestMatch{Headers: []ValueMatch{{Name: "X-A", Value: "1"}, {Name: "x-a", Value: "2"}}}, "when.headers[1].name"},
		{"too many headers", RequestMatch{Headers: many}, "when"},
		{"header value with $", RequestMatch{Headers: h("X-A", "", "$host")}, "when.headers[0].value"},
		{"header value with quote", RequestMatch{Headers: h("X-A", "", `a"b`)}, "when.headers[0].value"},
		{"header value with backslash", RequestMatch{Headers: h("X-A", "", `a\b`)}, "when.headers[0].value"},
		{"header value with newline", RequestMatch{Headers: h("X-A", "", "a\nb")}, "when.headers[0].value"},
		{"empty header value", RequestMatch{Headers: h("X-A", "", "")}, "when.headers[0].value"},
		{"unknown type", RequestMatch{Headers: h("X-A", "prefix", "v")}, "when.headers[0].type"},
		{"regex that does not compile", RequestMatch{Headers: h("X-A", ValueRegex, "(a")}, "when.headers[0].value"},
		{"regex nested quantifiers", RequestMatch{Headers: h("X-A", ValueRegex, "(a+)+b")}, "when.headers[0].value"},
		{"regex ambiguous", RequestMatch{Query: h("q", ValueRegex, `\w+\d+x`)}, "when.query[0].value"},
		{"regex alternatives anchored as a whole", RequestMatch{Query: h("q", ValueRegex, `a|b[0-9]+`)}, ""},
		{"regex with a space", RequestMatch{Headers: h("X-A", ValueRegex, "a b")}, "when.headers[0].value"},
		{"regex with a quote", RequestMatch{Headers: h("X-A", ValueRegex, `a"`)}, "when.headers[0].value"},
		{"regex escaping a letter", RequestMatch{Headers: h("X-A", ValueRegex, `\q`)}, "when.headers[0].value"},
		{"query name with =", RequestMatch{Query: h("a=b", "", "v")}, "when.query[0].name"},
		{"query name with &", RequestMatch{Query: h("a&b", "", "v")}, "when.query[0].name"},
		{"query name with $", RequestMatch{Query: h("$a", "", "v")}, "when.query[0].name"},
		{"query named twice", RequestMatch{Query: []ValueMatch{{Name: "a", Value: "1"}, {Name: "a", Value: "2"}}}, "when.query[1].name"},
		{"query names are case-sensitive", RequestMatch{Query: []ValueMatch{{Name: "a", Value: "1"}, {Name: "A", Value: "2"}}}, ""},
		{"query value with $", RequestMatch{Query: h("a", "", "a$b")}, "when.query[0].value"},
	} {
		s := Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []Location{{Path: "/p", Backend: "b", When: &c.when}}}
		s.Normalize()
		err := s.Validate()
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v, want valid", c.name, err)
		case c.field != "" && (err == nil || !strings.Contains(err.Error(), "locations[0]."+c.field+":")):
			t.Errorf("%s: %v, want an error naming locations[0].%s", c.name, err, c.field)
		}
	}
}

// TestWhenSharesAPath: locations of one server may share a path and match when their
// conditions differ; equal conditions in another order or header case claim the path
// twice, and so do two locations without conditions.
func TestWhenSharesAPath(t *testing.T) {
	get := &RequestMatch{Method: "GET"}
	ab := &RequestMatch{Headers: []ValueMatch{{Name: "X-A", Value: "1"}, {Name: "X-B", Value: "2"}}}
	ba := &RequestMatch{Headers: []ValueMatch{{Name: "x-b", Type: ValueExact, Value: "2"}, {Name: "x-a", Value: "1"}}}
	abRegex := &RequestMatch{Headers: []ValueMatch{{Name: "X-A", Type: ValueRegex, Value: "1"}, {Name: "X-B", Value: "2"}}}
	for _, c := range []struct {
		name string
		a, b *RequestMatch
		ok   bool
	}{
		{"one without, one with", nil, get, true},
		{"different conditions", get, ab, true},
		{"exact and regex differ", ab, abRegex, true},
		{"both without", nil, nil, false},
		{"equal conditions", get, &RequestMatch{Method: "GET"}, false},
		{"equal in another order and case", ab, ba, false},
	} {
		s := Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []Location{
			{Path: "/p", Backend: "b", When: c.a}, {Path: "/p/", Backend: "b", When: c.b}}}
		s.Normalize()
		err := s.Validate()
		if (err == nil) != c.ok {
			t.Errorf("%s: Validate = %v, want ok %v", c.name, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "locations[1].path") {
			t.Errorf("%s: %v, want an error naming locations[1].path", c.name, err)
		}
	}
	// Across servers sharing a hostname, as Config.Check sees them.
	st := &State{Backends: map[string]*Backend{"b": {Name: "b"}}, Servers: map[string]*Server{
		"one": {Name: "one", Hostnames: []string{"shop.test"}, Locations: []Location{{Path: "/p", Backend: "b", When: ab}}},
		"two": {Name: "two", Hostnames: []string{"shop.test"}, Locations: []Location{{Path: "/p", Backend: "b", When: get}}},
	}}
	if err := st.CheckAll(); err != nil {
		t.Fatalf("different conditions on one host and path: %v", err)
	}
	st.Servers["two"].Locations[0].When = ba
	if err := st.CheckAll(); err == nil || !strings.Contains(err.Error(), `prefix path "/p" with the same when is already claimed`) {
		t.Fatalf("equal conditions on one host and path: %v, want a conflict", err)
	}
}
