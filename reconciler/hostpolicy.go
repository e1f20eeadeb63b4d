package reconciler

import (
	"slices"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// hostPolicy is what the Ingresses routing on one host ask of its server (policies, issue
// 11). ingress-nginx sets app-root, from-to-www-redirect and force-ssl-redirect per
// server too: app-root comes from the oldest Ingress on the host that sets it; forced
// HTTPS and the www redirect hold when any Ingress on the host asks for them, the
// stricter reading.
type hostPolicy struct {
	appRoot   string
	appRootBy *networkingv1.Ingress
	forceSSL  bool
	www       *networkingv1.Ingress // the oldest Ingress asking for the www redirect
}

// hostPolicies records what plan p asks of host's server as it claims a route there.
func (m *merge) hostPolicies(hb *hostBuild, p *plan, host string) {
	a := p.ann.http
	hp := &hb.policy
	hp.forceSSL = hp.forceSSL || a.forceSSL
	if a.www && hp.www == nil {
		hp.www = p.ing
	}
	switch {
	case a.appRoot == "":
	case hp.appRootBy == nil:
		hp.appRoot, hp.appRootBy = a.appRoot, p.ing
	case hp.appRoot != a.appRoot && hp.appRootBy != p.ing:
		m.t.Reports[ingressKey(p.ing)].warn(ReasonConflict, "app-root %s for host %s is not applied: older Ingress %s's app-root %s serves it",
			a.appRoot, host, ingressKey(hp.appRootBy), hp.appRoot)
	}
}

// serverPolicies puts the host's policies on its server. The www partner of the host is
// redirected only when nobody else holds it: no Ingress of this sync routes it or serves
// it as a server-alias, no REST server names it, and no other namespace holds its claim;
// otherwise the asking Ingress is told why. (The store refuses a state where a redirected
// partner is some server's hostname, and with it the whole sync.)
func (m *merge) serverPolicies(srv *api.Server, hb *hostBuild, host string) {
	hp := hb.policy
	srv.AppRoot, srv.ForceSSLRedirect = hp.appRoot, hp.forceSSL
	if hp.www == nil {
		return
	}
	if _, ok := api.WWWPartner(host); !ok {
		m.t.Reports[ingressKey(hp.www)].warn(ReasonConflict, "from-to-www-redirect for host %s is not applied: the host has no www partner name", host)
		return
	}
	// The store redirects the partner of every hostname of the server, aliases too.
	for _, h := range srv.Hostnames {
		partner, ok := api.WWWPartner(h)
		if !ok || slices.Contains(srv.Hostnames, partner) {
			continue
		}
		why := ""
		switch c, held := m.owners.held[partner]; {
		case m.owners.rest[partner] != "":
			why = partner + " is held by the REST API (server " + m.owners.rest[partner] + ")"
		case held && c.Namespace != hp.www.Namespace:
			why = partner + " is held by namespace " + c.Namespace
		case m.hosts[partner] != nil:
			why = partner + " is routed by an Ingress of its own"
		case m.aliasOf[partner] != "":
			why = partner + " is a server-alias of host " + m.aliasOf[partner]
		}
		if why != "" {
			m.t.Reports[ingressKey(hp.www)].warn(ReasonConflict, "from-to-www-redirect for host %s is not applied: %s", host, why)
			return
		}
	}
	srv.WWWRedirect = true
}
