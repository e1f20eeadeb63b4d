package render

import (
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestRoutePrecedence: each path's candidates come in Gateway API's order (a method, then
// more headers, then more query parameters, then listing order), paths are keyed as
// restyplane.match looks them up, and two candidates that claim the same requests are
// refused.
func TestRoutePrecedence(t *testing.T) {
	v := func(n string) api.ValueMatch { return api.ValueMatch{Name: n, Value: "1"} }
	locs := []api.Location{
		{Path: "/a/", When: nil},
		{Path: "/a", When: &api.RequestMatch{Query: []api.ValueMatch{v("q"), v("r")}}},
		{Path: "/a", When: &api.RequestMatch{Headers: []api.ValueMatch{v("X-A")}}},
		{Path: "/a", When: &api.RequestMatch{Headers: []api.ValueMatch{v("X-B")}}},
		{Path: "/a", When: &api.RequestMatch{Method: "GET"}},
		{Path: "/a", When: &api.RequestMatch{Headers: []api.ValueMatch{v("X-A"), v("X-B")}}},
		{Path: "/a", When: &api.RequestMatch{Method: "GET", Query: []api.ValueMatch{v("q")}}},
		{Path: "/", When: &api.RequestMatch{Method: "PUT"}},
		{Path: "/e", Match: api.MatchExact, When: &api.RequestMatch{Method: "PUT"}},
		{Path: "^/r", Match: api.MatchRegex, When: &api.RequestMatch{Method: "PUT"}},
		{Path: "^/r", Match: api.MatchRegex},
	}
	var rt routeTable
	for i := range locs {
		rt.add(&locs[i], routeName(i))
	}
	if err := rt.order(); err != nil {
		t.Fatal(err)
	}
	names := func(cs []routeCandidate) string {
		var out []string
		for _, c := range cs {
			out = append(out, strings.TrimPrefix(c.Location, "@restyplane_route_"))
		}
		return strings.Join(out, " ")
	}
	for path, want := range map[string]string{"/a": "6 4 5 2 3 1 0", "/": "7"} {
		if got := names(rt.Prefix[path]); got != want {
			t.Errorf("prefix %s candidates = %s, want %s", path, got, want)
		}
	}
	if got := names(rt.Exact["/e"]); got != "8" {
		t.Errorf("exact /e candidates = %s, want 8", got)
	}
	if len(rt.Regex) != 1 || names(rt.Regex[0].Candidates) != "9 10" {
		t.Errorf("regex candidates = %+v, want one regex with 9 10", rt.Regex)
	}
	rt.add(&api.Location{Path: "/a", When: &api.RequestMatch{Headers: []api.ValueMatch{{Name: "x-b", Value: "1"}, {Name: "x-a", Value: "1"}}}}, routeName(11))
	if err := rt.order(); err == nil || !strings.Contains(err.Error(), `prefix "/a": two locations claim the same requests`) {
		t.Errorf("order with two alike = %v, want them refused", err)
	}
}
