package reconciler

import (
	"fmt"
	"maps"
	"slices"

	"github.com/restyplane/restyplane/api"
)

// routeRefusal says why a route may not be applied at all, or "".
func (m *merge) routeRefusal(rp *routePlan) string {
	for _, c := range rp.claimants() {
		for _, h := range c.hosts {
			if why := m.owners.namespaceRefusal(c.namespace, h, "a route through a Gateway of another namespace"); why != "" {
				rp.warn(ReasonHostClaimed, "not applied: %s", why)
				return why
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(rp.backends)) {
		if m.res.names[api.Ref{Kind: api.KindBackend, Name: n}] {
			why := fmt.Sprintf("backend %s is owned by the REST API, and the REST object wins", n)
			rp.warn(ReasonConflict, "not applied: %s", why)
			return why
		}
	}
	for _, e := range rp.entries() {
		if e.tls != nil && m.res.names[api.Ref{Kind: api.KindCertificate, Name: e.tls.cert}] {
			why := fmt.Sprintf("certificate %s is owned by the REST API, and the REST object wins", e.tls.cert)
			rp.warn(ReasonConflict, "not applied: %s", why)
			return why
		}
	}
	return ""
}

// hostOwner names the Ingress or route a host's server comes from.
func hostOwner(hb *hostBuild) string {
	if hb.source != nil {
		return "Ingress " + ingressKey(hb.source)
	}
	if hb.route != nil {
		return hb.route.key()
	}
	return "(the default backend)"
}

// claimOwner names who holds a claim: "Ingress ns/name" or "HTTPRoute ns/name".
func claimOwner(c *claim) string {
	if c.route != nil {
		return c.route.key()
	}
	return "Ingress " + ingressKey(c.ing)
}

func portPhrase(port int) string {
	if port == 0 {
		return ""
	}
	return fmt.Sprintf(" on port %d", port)
}

// routeCertificates sizes the certificates of the HTTPS listeners a route's entries go
// through, as spending counts them.
func routeCertificates(entries []routeEntry) map[string]int64 {
	out := map[string]int64{}
	for _, e := range entries {
		if e.tls != nil && e.tls.certObj != nil {
			out["certificate/"+e.tls.cert] = int64(len(e.tls.certObj.Cert) + len(e.tls.certObj.Key))
		}
	}
	return out
}
