package reconciler

import (
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// routeHosts are the hostnames a route serves through a listener, by Gateway API's
// intersection rule: a route without hostnames takes the listener's (every host for a
// listener without one: the catch-all); otherwise each route hostname that the listener's
// matches, the more specific of the two. It returns none when nothing intersects
// (NoMatchingListenerHostname).
func routeHosts(listener *gatewayv1.Hostname, route []gatewayv1.Hostname) []string {
	l := hostnameOf(listener)
	if len(route) == 0 {
		if l == "" {
			return []string{api.CatchAllHostname}
		}
		return []string{l}
	}
	var out []string
	seen := map[string]bool{}
	for _, rh := range route {
		h, ok := intersectHost(l, string(rh))
		if ok && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// intersectHost is the hostname that both the listener's l ("" for any) and the route's r
// match, and whether there is one. A wildcard "*.example.com" matches every name below
// example.com, of any depth, as nginx's wildcard does.
func intersectHost(l, r string) (string, bool) {
	switch {
	case l == "":
		return r, true
	case l == r:
		return r, true
	case wildcardMatches(l, r):
		return r, true
	case wildcardMatches(r, l):
		return l, true
	}
	return "", false
}

// wildcardMatches reports whether the wildcard w ("*.example.com") matches h, a name or a
// narrower wildcard ("*.shop.example.com") below it.
func wildcardMatches(w, h string) bool {
	suffix, ok := strings.CutPrefix(w, "*")
	return ok && len(h) > len(suffix) && strings.HasSuffix(h, suffix)
}
