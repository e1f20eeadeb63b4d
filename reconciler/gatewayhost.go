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

// isolatedFrom reports whether requests for host h reach another listener of l's Gateway
// on l's port rather than l, by listener isolation (GatewayHTTPListenerIsolation): one
// whose hostname is more specific than l's and matches h. A route attached to l then
// does not serve h: "*.example.com" through a listener without a hostname is left to the
// Gateway's "*.example.com" listener, whose routes alone answer its hosts.
func (l *listenerState) isolatedFrom(h string) bool {
	mine := hostnameOf(l.spec.Hostname)
	for _, o := range l.gw.listeners {
		theirs := hostnameOf(o.spec.Hostname)
		if o == l || o.spec.Port != l.spec.Port || theirs == "" || !o.valid() {
			continue
		}
		matches := theirs == h || wildcardMatches(theirs, h)
		narrower := mine == "" || wildcardMatches(mine, theirs)
		if matches && narrower {
			return true
		}
	}
	return false
}
