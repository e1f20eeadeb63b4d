package render

import (
	"fmt"
	"sort"
)

// order puts each path's candidates in precedence order and refuses two that claim the
// same requests, which api refuses too.
func (t *routeTable) order() error {
	for path, cs := range t.Exact {
		if err := orderCandidates(cs); err != nil {
			return fmt.Errorf("exact path %q: %w", path, err)
		}
	}
	for _, r := range t.Regex {
		if err := orderCandidates(r.Candidates); err != nil {
			return fmt.Errorf("regex %q: %w", r.Regex, err)
		}
	}
	for path, cs := range t.Prefix {
		if err := orderCandidates(cs); err != nil {
			return fmt.Errorf("prefix %q: %w", path, err)
		}
	}
	return nil
}

// orderCandidates sorts one path's candidates as Gateway API ranks the matches of a path:
// one with a method first, then the most header conditions, then the most query
// conditions, then the order in which the locations are listed (servers by name, then
// their locations in order).
func orderCandidates(cs []routeCandidate) error {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if (a.Method != "") != (b.Method != "") {
			return a.Method != ""
		}
		if len(a.Headers) != len(b.Headers) {
			return len(a.Headers) > len(b.Headers)
		}
		return len(a.Query) > len(b.Query)
	})
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.when] {
			return fmt.Errorf("two locations claim the same requests")
		}
		seen[c.when] = true
	}
	return nil
}
