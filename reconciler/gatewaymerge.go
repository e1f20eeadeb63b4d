package reconciler

import (
	"fmt"

	"github.com/restyplane/restyplane/api"
)

// claimGatewayRoutes brings the routes' locations into the servers, oldest route first,
// after the Ingresses' paths and before their default backends. The rules, each told to
// the route that loses:
//
//   - A route whose hosts another namespace holds (its claims go under its Gateway's
//     namespace: a Gateway's owner chooses which namespaces' routes share its hosts) is
//     not applied at all, as an Ingress would not be; nor one that names a backend or
//     certificate a REST object has.
//   - A location (host, path, match and conditions) an Ingress, an older route or a
//     REST server holds is not applied; the route's others are. Locations of one path
//     that differ in their conditions share it, in the order they are claimed: the
//     spec's order of routes (oldest first) and of rules and matches.
//   - A host whose server verifies client certificates or passes TLS through, as an
//     Ingress asked, takes no route location: a route asks for neither.
//   - A route counts as an Ingress in its namespace's budgets (Budgets), with its
//     locations and the certificates of its HTTPS listeners; the newest over one is
//     not applied.
func (m *merge) claimGatewayRoutes(gp *gatewayPlan, spend *spending) {
	if gp == nil {
		return
	}
	all, overTLS := map[*routePlan][]routeEntry{}, map[string]bool{}
	for _, rp := range gp.routes {
		if rp.accepted() {
			all[rp] = rp.entries()
			for _, e := range all[rp] {
				if e.tls != nil {
					overTLS[e.server] = true
				}
			}
		}
	}
	for _, rp := range gp.routes {
		if !rp.accepted() {
			continue
		}
		if why := m.routeRefusal(rp); why != "" {
			rp.refusal = why
			continue
		}
		entries := withSchemes(all[rp], overTLS)
		if why := spend.take(rp.meta.Namespace, len(entries), routeCertificates(entries)); why != "" {
			rp.warn(ReasonLimitExceeded, "not applied: %s", why)
			rp.refusal = why
			continue
		}
		over := map[string]bool{}
		perServer := map[string]int{}
		for _, e := range entries {
			perServer[e.server]++
		}
		for srv, n := range perServer {
			if hb := m.hosts[srv]; hb != nil && len(hb.claims)+n > api.MaxLocations {
				over[srv] = true
				rp.warn(ReasonLimitExceeded, "host %s is not applied: its %d locations would take the host's server to %d, over the %d it holds", srv, n, len(hb.claims)+n, api.MaxLocations)
			}
		}
		for _, e := range entries {
			if !over[e.server] {
				m.claimEntry(rp, e)
			}
		}
	}
}

// claimEntry takes one location of a route on one server, unless something holds it.
func (m *merge) claimEntry(rp *routePlan, e routeEntry) {
	what := fmt.Sprintf("host %s %s path %s%s", e.host, e.loc.Match, e.loc.Path, portPhrase(e.port))
	// The Ingresses' claims, a location without conditions, have the same key.
	k := claimKey(e.server, e.loc)
	if w := whenKey(e.loc); w != "" {
		k += " " + w
	}
	if e.port == 0 && e.address == "" {
		if srv, ok := m.res.claims[claimKey(e.host, e.loc)]; ok {
			rp.warn(ReasonConflict, "%s is not applied: REST server %q holds it, and the REST object wins", what, srv)
			return
		}
	}
	if n := gatewayServerName(e.host, e.address, e.port); m.res.names[api.Ref{Kind: api.KindServer, Name: n}] {
		rp.warn(ReasonConflict, "%s is not applied: server %q is owned by the REST API, and the REST object wins", what, n)
		return
	}
	hb := m.hosts[e.server]
	if hb != nil && (hb.clientTLS != nil || hb.passthrough != nil) {
		rp.warn(ReasonConflict, "%s is not applied: %s verifies client certificates on the host or passes its TLS through, which a route does not ask", what, hostOwner(hb))
		return
	}
	if c, ok := m.claims[k]; ok {
		if c.route != rp {
			rp.warn(ReasonConflict, "%s is not applied: %s routes it with the same conditions, and the oldest wins", what, claimOwner(c))
			return
		}
		if e.tls != nil && hb.gwTLS == nil {
			hb.gwTLS, hb.gwTLSBy = e.tls, rp // its location through an HTTP listener, now through an HTTPS one too
		}
		madeBy(e, rp) // the same location through another listener, maybe another Gateway's
		return
	}
	c := &claim{route: rp, loc: e.loc}
	m.claims[k] = c
	if hb == nil {
		hb = &hostBuild{route: rp, host: e.host, port: e.port, address: e.address}
		m.hosts[e.server] = hb
	}
	if e.tls != nil && hb.gwTLS == nil {
		hb.gwTLS, hb.gwTLSBy = e.tls, rp
	}
	hb.claims = append(hb.claims, c)
	for _, n := range locationBackends(e.loc) {
		if b := rp.backends[n]; b != nil {
			if _, ok := m.t.Backends[n]; !ok {
				m.t.Backends[n] = b
			}
			if t := b.UpstreamTLS; t != nil && rp.cas[t.CACertificate] != nil {
				m.t.CACertificates[t.CACertificate] = rp.cas[t.CACertificate]
			}
		}
	}
	madeBy(e, rp)
	rp.applied = true
}

// gatewayCatchAll gives the catch-all the certificate of the oldest Gateway's HTTPS
// listener without a hostname on the proxy's HTTPS port: such a listener answers every
// name, those no route serves too (with a 404), so a client asking for one must meet its
// certificate, not the proxy's self-signed one. Without a route on the catch-all, the
// Gateway owns its server, which has no location.
func (m *merge) gatewayCatchAll(gp *gatewayPlan) {
	if gp == nil {
		return
	}
	for _, g := range gp.gatewayList {
		for _, l := range g.listeners {
			if !l.https || l.port != 0 || l.spec.Hostname != nil || !l.serves() {
				continue
			}
			key := serverKey(api.CatchAllHostname, g.address.listen, 0)
			hb := m.hosts[key]
			if hb == nil {
				src := api.Source{Kind: api.SourceKubernetes, Object: api.ObjectGateway,
					Namespace: g.obj.Namespace, Name: g.obj.Name, UID: string(g.obj.UID)}
				hb = &hostBuild{defaultSource: &src}
				if g.address.listen != "" {
					hb.host, hb.address = api.CatchAllHostname, g.address.listen
				}
				m.hosts[key] = hb
			}
			if hb.gwTLS == nil {
				hb.gwTLS = l
			}
			if gp.snap.Pool == nil {
				return // one catch-all for every Gateway: the oldest's
			}
			break
		}
	}
}

// gatewayTLS gives each host an HTTPS listener serves the listener's certificate, unless
// an Ingress's TLS entry gave it one (the Ingress's stays).
func (m *merge) gatewayTLS() {
	for key, hb := range m.hosts {
		if hb.gwTLS == nil || hb.tls != nil || hb.passthrough != nil {
			continue
		}
		if key == api.CatchAllHostname && hb.gwTLS.port != 0 {
			// The model serves the catch-all on ports of its own only with both its own:
			// its plain-HTTP server stays on the proxy's port, without TLS.
			hb.gwTLSBy.warn(ReasonConflict, "HTTPS of the catch-all on listener %s's port %d is not served: the catch-all of the proxy's own plain-HTTP port cannot take an HTTPS port of its own; give the listener a hostname or the proxy's HTTPS port",
				hb.gwTLS.spec.Name, hb.gwTLS.port)
			continue
		}
		hb.tls = &api.ServerTLS{Certificate: hb.gwTLS.cert}
		m.t.Certificates[hb.gwTLS.cert] = hb.gwTLS.certObj
		hb.gwTLS.gw.made.add(api.KindServer, hb.name(key))
		hb.gwTLS.gw.made.add(api.KindCertificate, hb.gwTLS.cert)
	}
}

// serverPorts sets the ports of a server of a listener's port of its own, or of a host
// whose certificate an HTTPS listener on a port of its own presents.
func (m *merge) serverPorts(srv *api.Server, hb *hostBuild) error {
	tlsPort := 0
	if hb.gwTLS != nil && srv.TLS != nil && srv.TLS.Certificate == hb.gwTLS.cert {
		tlsPort = hb.gwTLS.port
	}
	if err := setServerAddress(srv, hb.address); err != nil {
		return err
	}
	return setServerPorts(srv, hb.port, tlsPort)
}
