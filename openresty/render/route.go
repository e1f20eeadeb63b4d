package render

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// Conditional locations. nginx picks a location by its path alone, and the Gateway API's
// precedence goes on to the method, headers and query parameters (and a listener's
// scheme, where one server holds a host for two listeners), falling through to the
// next candidate, a shorter prefix included, when a candidate's conditions do not hold. So
// a server block with any location that has When renders all its locations as named
// locations, and one "location /" whose rewrite phase runs restyplane.match: it looks the
// request's path up in the block's route table and ngx.exec()s the first candidate whose
// conditions hold, or answers 404. The tables are compiled here, once per config, and
// decoded once per reload; per request the Lua does table lookups, and runs a regex only
// where a location or condition is one.

// routeTable is a block's locations by path, each path's candidates in precedence order.
// The paths are tried as nginx tries locations: the exact path, then the regexes in
// order, then the prefixes from the longest down ("/" last). Prefix keys have no
// trailing "/" but the root's.
type routeTable struct {
	Exact  map[string][]routeCandidate `json:"exact,omitempty"`
	Regex  []regexRoute                `json:"regex,omitempty"`
	Prefix map[string][]routeCandidate `json:"prefix,omitempty"`
}

// regexRoute is the candidates of one location regex.
type regexRoute struct {
	Regex      string           `json:"regex"`
	Candidates []routeCandidate `json:"candidates"`
}

// routeCandidate is a named location and the conditions a request must meet for it.
type routeCandidate struct {
	Location string      `json:"location"`
	Method   string      `json:"method,omitempty"`
	Headers  []valueCond `json:"headers,omitempty"`
	Query    []valueCond `json:"query,omitempty"`
	Scheme   string      `json:"scheme,omitempty"`
	when     string      // the conditions' canonical key, to find two alike
}

// valueCond is one header or query condition: Name is the nginx variable of a header
// (http_x_version) and the name of a query parameter; Regex is anchored to the whole
// value.
type valueCond struct {
	Name  string `json:"name"`
	Exact string `json:"exact,omitempty"`
	Regex string `json:"regex,omitempty"`
}

// hasWhen reports whether a block's locations need routing by conditions.
func hasWhen(servers []*api.Server) bool {
	for _, s := range servers {
		for i := range s.Locations {
			if s.Locations[i].When != nil {
				return true
			}
		}
	}
	return false
}

// routeName names the n-th named location of a block. User paths start with "/".
func routeName(n int) string { return fmt.Sprintf("@restyplane_route_%d", n) }

// namedLocation is base, a location's view, as the named location name: a prefix
// rewrite, which a regex-rendered prefix does with the location's regex and the root
// with proxy_pass's URI part, is written as the rewrite directives of a prefix.
func namedLocation(base locationView, l *api.Location, name string) locationView {
	switch {
	case l.Rewrite == "":
	case l.Match == api.MatchRegex:
		base.Rewrite = &rewriteView{Regex: l.Path, To: l.Rewrite}
	default:
		quoted := regexp.QuoteMeta(strings.TrimRight(l.Path, "/"))
		base.Rewrite = &rewriteView{RestRe: "(?s)^" + quoted + "/(.*)", RestTo: withSlash(l.Rewrite), Exact: l.Rewrite}
	}
	return with(base, "", name)
}

// add lists location l, rendered as the named location name, among its path's candidates.
func (t *routeTable) add(l *api.Location, name string) {
	c := routeCandidate{Location: name}
	if w := l.When; w != nil {
		c.Method, c.Scheme, c.when = w.Method, w.Scheme, w.Key()
		for _, h := range w.Headers {
			c.Headers = append(c.Headers, newValueCond("http_"+strings.ToLower(strings.ReplaceAll(h.Name, "-", "_")), h))
		}
		for _, q := range w.Query {
			c.Query = append(c.Query, newValueCond(q.Name, q))
		}
	}
	switch path := l.Path; l.Match {
	case api.MatchExact:
		t.Exact = appendCandidate(t.Exact, path, c)
	case api.MatchRegex:
		for i := range t.Regex {
			if t.Regex[i].Regex == path {
				t.Regex[i].Candidates = append(t.Regex[i].Candidates, c)
				return
			}
		}
		t.Regex = append(t.Regex, regexRoute{Regex: path, Candidates: []routeCandidate{c}})
	default:
		if path = strings.TrimRight(path, "/"); path == "" {
			path = "/"
		}
		t.Prefix = appendCandidate(t.Prefix, path, c)
	}
}

func newValueCond(name string, v api.ValueMatch) valueCond {
	if v.Type == api.ValueRegex {
		return valueCond{Name: name, Regex: api.AnchoredRegex(v.Value)}
	}
	return valueCond{Name: name, Exact: v.Value}
}

func appendCandidate(m map[string][]routeCandidate, path string, c routeCandidate) map[string][]routeCandidate {
	if m == nil {
		m = map[string][]routeCandidate{}
	}
	m[path] = append(m[path], c)
	return m
}
