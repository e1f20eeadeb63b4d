package reconciler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// Claims is what the reconciler needs to hold hostnames for namespaces across edits and
// restarts: the stored claims, a write of its new claims and releases, and a wake-up when
// an admin grants or releases one.
type Claims interface {
	HostnameClaims(ctx context.Context) ([]api.HostnameClaim, error)
	ClaimHostnames(ctx context.Context, claims, releases []api.HostnameClaim) error
	HostnameClaimsChanged() <-chan struct{}
}

// hostOwners decides, for one sync, which namespace may route each hostname. The rule:
//
//   - A hostname a REST server names belongs to the REST API: no Ingress may route it.
//   - A stored claim or grant holds: only its namespace's Ingresses may route the host,
//     whatever the age of the others.
//   - An unheld hostname goes to the namespace of the oldest Ingress (creationTimestamp,
//     then namespace/name) naming it in this sync, and that is stored as its claim: from
//     then on the claim decides, not the Ingresses' ages, so editing an old Ingress to
//     name the host takes nothing.
//   - A claim (not a grant) is released at the first sync in which no Ingress of restyplane's
//     class in its namespace names the host, served or not; in that same sync the host
//     may go to another namespace by the rule above.
type hostOwners struct {
	held     map[string]api.HostnameClaim
	sorted   []api.HostnameClaim // held, sorted by hostname (see sortedHeld)
	rest     map[string]string   // hostname -> REST server
	claims   []api.HostnameClaim
	releases []api.HostnameClaim
}

// hostClaimant is a cluster object beside the Ingresses that routes hostnames for a
// namespace: a Gateway API route, which claims the hosts it serves through a Gateway for
// that Gateway's namespace (see gatewayclaim.go).
type hostClaimant struct {
	namespace string
	hosts     []string
	created   time.Time
	// key orders claimants of one creation time: "Kind namespace/name".
	key string
}

// ownHosts applies the rule to the Ingresses, sorted oldest first, and to the routes'
// claimants, sorted oldest first (an Ingress goes first at one creation time).
func ownHosts(ings []*networkingv1.Ingress, held map[string]api.HostnameClaim, head *api.State, routes ...hostClaimant) *hostOwners {
	o := &hostOwners{held: map[string]api.HostnameClaim{}, rest: map[string]string{}}
	for _, n := range slices.Sorted(maps.Keys(head.Servers)) {
		if srv := head.Servers[n]; srv.Source.Kind != api.SourceKubernetes {
			for _, h := range srv.Hostnames {
				if _, ok := o.rest[h]; !ok {
					o.rest[h] = n
				}
				// The partner a REST server redirects is its too: routed by an Ingress, it
				// would beat the redirect unnoticed.
				if p, ok := api.WWWPartner(h); ok && srv.WWWRedirect && o.rest[p] == "" {
					o.rest[p] = n
				}
			}
		}
	}
	all := claimantsByAge(ings, routes)
	named := map[string]bool{} // "namespace host"
	for _, c := range all {
		for _, h := range c.hosts {
			named[c.namespace+" "+h] = true
		}
	}
	for _, h := range slices.Sorted(maps.Keys(held)) {
		c := held[h]
		if c.How == api.HostnameClaimed && !named[c.Namespace+" "+h] {
			o.releases = append(o.releases, c)
			continue
		}
		o.held[h] = c
	}
	for _, cl := range all {
		for _, h := range cl.hosts {
			if _, ok := o.held[h]; ok || o.rest[h] != "" {
				continue
			}
			if _, ok := o.overlapping(h, cl.namespace); ok {
				continue // hostRefusal says whose name it overlaps
			}
			c := api.HostnameClaim{Hostname: h, Namespace: cl.namespace, How: api.HostnameClaimed}
			o.held[h] = c
			o.claims = append(o.claims, c)
		}
	}
	return o
}

// refusal says why the Ingress may not route one of its hosts, or "".
func (o *hostOwners) refusal(ing *networkingv1.Ingress) string {
	for _, h := range ingressHosts(ing) {
		if why := o.hostRefusal(ing, h); why != "" {
			return why
		}
	}
	return ""
}

// hostRefusal says why the Ingress may not route host h (a host of its rules or a
// server-alias), or "".
func (o *hostOwners) hostRefusal(ing *networkingv1.Ingress, h string) string {
	return o.namespaceRefusal(ing.Namespace, h, "an Ingress")
}

// namespaceRefusal says why what of namespace ns ("an Ingress", "a route") may not route
// host h, or "".
func (o *hostOwners) namespaceRefusal(ns, h, what string) string {
	if srv := o.rest[h]; srv != "" {
		return fmt.Sprintf("%s is held by the REST API (server %q): REST servers and Kubernetes objects never share a hostname", hostPhrase(h), srv)
	}
	if w, srv := o.restOverlap(h); srv != "" {
		return fmt.Sprintf("host %s overlaps %s of the REST API (server %q): REST servers and Kubernetes objects never share a hostname", h, w, srv)
	}
	if c, ok := o.overlapping(h, ns); ok {
		return overlapRefusal(h, c)
	}
	if c := o.held[h]; c.Namespace != ns {
		since := "in this sync"
		if !c.Since.IsZero() {
			since = "since " + c.Since.Format(time.RFC3339)
		}
		return fmt.Sprintf("%s is held by namespace %s (by %s, %s); %s of another namespace may not route it (an admin may grant it: PUT /api/v1/kubernetes/hostnames/%s)",
			hostPhrase(h), c.Namespace, c.How, since, what, h)
	}
	return ""
}

// hostPhrase names a hostname in a refusal; the catch-all is no host a team wrote, so it
// is named by what asks for it.
func hostPhrase(h string) string {
	if h == api.CatchAllHostname {
		return fmt.Sprintf("the catch-all (hostname %q: rules without a host, or a default backend without rules, served for every Host no server names)", h)
	}
	return "host " + h
}

// claimantsByAge lists the Ingresses (sorted oldest first) and the routes' claimants
// together, oldest first, an Ingress first at one creation time.
func claimantsByAge(ings []*networkingv1.Ingress, routes []hostClaimant) []hostClaimant {
	rs := slices.Clone(routes)
	slices.SortStableFunc(rs, func(a, b hostClaimant) int {
		if c := a.created.Compare(b.created); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	out := make([]hostClaimant, 0, len(ings)+len(rs))
	for _, ing := range ings {
		for len(rs) > 0 && rs[0].created.Before(ing.CreationTimestamp.Time) {
			out, rs = append(out, rs[0]), rs[1:]
		}
		out = append(out, hostClaimant{namespace: ing.Namespace, hosts: claimedHosts(ing)})
	}
	return append(out, rs...)
}

// claimedHosts are the hostnames an Ingress claims for its namespace: its hosts and its
// server-alias names (policies), which are hostnames like any other.
func claimedHosts(ing *networkingv1.Ingress) []string {
	return append(ingressHosts(ing), ingressAliases(ing)...)
}

// ingressHosts lists the hosts an Ingress routes: its rules' hosts (the catch-all for a
// rule without one), or the catch-all for a default backend without rules.
func ingressHosts(ing *networkingv1.Ingress) []string {
	var hosts []string
	seen := map[string]bool{}
	for _, r := range ing.Spec.Rules {
		h := r.Host
		if h == "" {
			h = api.CatchAllHostname
		}
		if !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	if len(ing.Spec.Rules) == 0 && ing.Spec.DefaultBackend != nil {
		hosts = append(hosts, api.CatchAllHostname)
	}
	return hosts
}
