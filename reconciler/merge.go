package reconciler

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// merge brings the Ingresses' plans together, oldest first, under the rules of Translate.
type merge struct {
	t      *Translation
	head   *api.State
	res    reserved
	claims map[string]*claim // by claim key
	hosts  map[string]*hostBuild
	// balancedBy and canaryBy record which Ingress set a backend's balancing and canary.
	balancedBy map[string]*networkingv1.Ingress
	canaryBy   map[string]*networkingv1.Ingress
	// owners says who holds each hostname, for the www redirects.
	owners *hostOwners
	// aliasOf is the host each applied server-alias serves with (addAliases).
	aliasOf map[string]string
}

// claim is a host+path taken by one Ingress, or by one route (ing is nil then).
type claim struct {
	ing      *networkingv1.Ingress
	route    *routePlan
	loc      api.Location
	fallback bool
}

// hostBuild collects the server of one host.
type hostBuild struct {
	source *networkingv1.Ingress // the oldest Ingress routing on the host
	// route is the oldest route on a host no Ingress routes on; host and port are the
	// server's when it is a listener's own port's (gatewaymerge.go).
	route *routePlan
	host  string
	port  int
	// address is the Gateway's own address the server listens on, "" for the proxy's.
	address string
	// gwTLS is the HTTPS listener whose certificate the host presents when no Ingress
	// gives it one, and gwTLSBy the route that reached the host through it.
	gwTLS   *listenerState
	gwTLSBy *routePlan
	// defaultSource is the controller-wide default backend's Service, the source of a
	// server no Ingress routes on (source is nil then), or the Gateway of a catch-all
	// that only presents an HTTPS listener's certificate (gatewayCatchAll).
	defaultSource *api.Source
	claims        []*claim
	tls           *api.ServerTLS
	// clientTLS is the oldest Ingress's client verification; the others agree.
	clientTLS *api.ClientTLS
	// passthrough is where the oldest Ingress passes the host's TLS; the others agree.
	passthrough *api.Passthrough
	// policy is the host's server redirects, see hostPolicies.
	policy hostPolicy
	// aliases are server-alias hostnames served with the host.
	aliases []string
}

// takenName returns a backend or certificate name of the plan that a REST object has.
func (m *merge) takenName(p *plan) string {
	for n := range p.backends {
		if m.res.names[api.Ref{Kind: api.KindBackend, Name: n}] {
			return "backend " + n
		}
	}
	for n := range p.certs {
		if m.res.names[api.Ref{Kind: api.KindCertificate, Name: n}] {
			return "certificate " + n
		}
	}
	for n := range p.htpasswds { // policies
		if m.res.names[api.Ref{Kind: api.KindHtpasswd, Name: n}] {
			return "htpasswd " + n
		}
	}
	for n := range p.clientCerts {
		if m.res.names[api.Ref{Kind: api.KindCertificate, Name: n}] {
			return "certificate " + n
		}
	}
	for n := range p.caCertificates {
		if m.res.names[api.Ref{Kind: api.KindCACertificate, Name: n}] {
			return "caCertificate " + n
		}
	}
	return ""
}

// claimRoutes takes the routes that nobody older holds. Fallbacks give way silently to any
// path: serving what no path claims is what a default backend is for.
func (m *merge) claimRoutes(p *plan, routes []route, fallback bool) {
	rep := m.t.Reports[ingressKey(p.ing)]
	if p.hold {
		rep = &Report{Ingress: p.ing} // a held path another Ingress has is no news: the Ingress is refused
	}
	perHost := map[string]int{}
	for _, r := range routes {
		perHost[r.host]++
	}
	over := map[string]bool{}
	for h, n := range perHost {
		if hb := m.hosts[h]; hb != nil && !fallback && len(hb.claims)+n > api.MaxLocations {
			over[h] = true
			rep.warn(ReasonLimitExceeded, "host %s is not applied: its %d paths would take the host's server to %d locations, over the %d it holds; the older Ingresses keep theirs", h, n, len(hb.claims)+n, api.MaxLocations)
		}
	}
	for _, r := range routes {
		if over[r.host] {
			continue
		}
		k := claimKey(r.host, r.loc)
		what := fmt.Sprintf("host %s %s path %s", r.host, r.loc.Match, r.loc.Path)
		if srv, ok := m.res.claims[k]; ok {
			if !fallback {
				rep.warn(ReasonConflict, "%s is not applied: REST server %q holds it, and the REST object wins", what, srv)
			}
			continue
		}
		if n := serverName(r.host); m.res.names[api.Ref{Kind: api.KindServer, Name: n}] {
			rep.warn(ReasonConflict, "%s is not applied: server %q is owned by the REST API, and the REST object wins", what, n)
			continue
		}
		if why := clientTLSConflict(m.hosts[r.host], p); why != "" {
			rep.warn(ReasonConflict, "%s is not applied: %s", what, why)
			continue
		}
		if why := passthroughConflict(m.hosts[r.host], p, r.host); why != "" {
			rep.warn(ReasonConflict, "%s is not applied: %s", what, why)
			continue
		}
		if c, ok := m.claims[k]; ok {
			switch {
			case fallback && c.fallback && c.ing != p.ing && c.loc.Backend != r.loc.Backend:
				rep.warn(ReasonConflict, "default backend for host %s is not applied: older Ingress %s's default backend serves it", r.host, ingressKey(c.ing))
			case fallback:
			case c.ing == p.ing:
				rep.warn(ReasonConflict, "%s is listed twice; the first one is applied", what)
			default:
				rep.warn(ReasonConflict, "%s is not applied: older Ingress %s routes it, and the oldest Ingress wins", what, ingressKey(c.ing))
			}
			continue
		}
		c := &claim{ing: p.ing, loc: r.loc, fallback: fallback}
		m.claims[k] = c
		hb := m.hosts[r.host]
		if hb == nil {
			hb = &hostBuild{source: p.ing, clientTLS: p.clientTLS, passthrough: p.passthrough[r.host]}
			m.hosts[r.host] = hb
		}
		hb.claims = append(hb.claims, c)
		if p.hold {
			continue // a refused Ingress's path, held: it brings no policy and no backend
		}
		m.hostPolicies(hb, p, r.host) // policies
		m.addBackend(p, r.loc.Backend)
		if r.loc.Errors != nil { // policies
			m.addBackend(p, r.loc.Errors.Backend)
		}
		rep.Applied = true
	}
}

// addBackend puts a plan's backend into the translation, unless an older Ingress already
// did; then the older one's balancing stays and a difference is reported.
func (m *merge) addBackend(p *plan, name string) {
	if name == "" {
		return // a location that answers itself (a translated snippet's)
	}
	be := p.backends[name]
	cur, ok := m.t.Backends[name]
	if !ok {
		m.t.Backends[name] = be
		if p.ann.canary == nil {
			m.balancedBy[name] = p.ing
		}
		return
	}
	by := m.balancedBy[name]
	if p.ann.canary == nil && by != nil && by != p.ing && !sameBalancing(cur, be) {
		m.t.Reports[ingressKey(p.ing)].warn(ReasonConflict,
			"backend %s is balanced as older Ingress %s's annotations say (%s); this Ingress asks for %s",
			name, ingressKey(by), balancing(cur), balancing(be))
	}
}

func sameBalancing(a, b *api.Backend) bool { return balancing(a) == balancing(b) }

// balancing spells a backend's balancing annotations for comparison and messages.
func balancing(b *api.Backend) string {
	s := b.LoadBalance
	if b.HashBy != "" {
		s += " by " + b.HashBy
	}
	if b.Affinity != nil {
		s += ", " + affinityText(b.Affinity)
	}
	if b.Protocol != "" { // policies
		s += ", protocol " + b.Protocol
		if t := b.UpstreamTLS; t != nil {
			s += fmt.Sprintf(" (verify %t, ca %q, name %q, sni %t, client certificate %q)", t.Verify, t.CACertificate, t.ServerName, t.SNI, t.ClientCertificate)
		}
	}
	return s
}

// attachCanary makes the canary Ingress's backend the canary of the backend that routes
// each of its host+paths.
func (m *merge) attachCanary(p *plan) {
	rep := m.t.Reports[ingressKey(p.ing)]
	for _, r := range p.routes {
		what := fmt.Sprintf("host %s %s path %s", r.host, r.loc.Match, r.loc.Path)
		c := m.claims[claimKey(r.host, r.loc)]
		if c != nil && c.route != nil {
			rep.warn(ReasonConflict, "canary for %s is not applied: %s routes it, and a canary splits an Ingress's backend", what, c.route.key())
			continue
		}
		if c == nil {
			rep.warn(ReasonConflict, "canary for %s is not applied: no Ingress routes it, and a canary needs a main Ingress with the same host and path", what)
			continue
		}
		main := m.t.Backends[c.loc.Backend]
		if main.Name == r.loc.Backend {
			rep.warn(ReasonConflict, "canary for %s is not applied: it routes to the same Service port as its main Ingress %s", what, ingressKey(c.ing))
			continue
		}
		want := *p.ann.canary
		want.Backend = r.loc.Backend
		if want.Weight == 0 && want.Header == "" && want.Cookie == "" {
			// A canary with weight 0 and no header or cookie sends nothing, as in ingress-nginx.
			rep.Applied = true
			continue
		}
		if by := m.canaryBy[main.Name]; by != nil {
			if by != p.ing && *main.Canary != want {
				rep.warn(ReasonConflict, "canary for %s is not applied: older canary Ingress %s already splits backend %s", what, ingressKey(by), main.Name)
			}
			continue
		}
		// The backend may belong to a cached plan, which is shared: change a copy.
		split := *main
		split.Canary = &want
		m.t.Backends[main.Name] = &split
		m.canaryBy[main.Name] = p.ing
		m.addBackend(p, want.Backend)
		// The canary speaks to its endpoints as the main backend does.
		if cb := m.t.Backends[want.Backend]; cb != nil && !api.SameUpstream(cb, main) {
			same := *cb
			same.Protocol, same.UpstreamTLS = main.Protocol, main.UpstreamTLS
			m.t.Backends[want.Backend] = &same
		}
		rep.Applied = true
	}
}

// chooseTLS gives each host the certificate of the oldest Ingress with a TLS entry for it.
func (m *merge) chooseTLS(mains []*plan) {
	byHost := map[string][]*plan{}
	for _, p := range mains {
		for h := range p.tls {
			if m.hosts[h] != nil {
				byHost[h] = append(byHost[h], p)
			}
		}
	}
	for _, host := range slices.Sorted(maps.Keys(byHost)) {
		hb, ps := m.hosts[host], byHost[host]
		if hb.passthrough != nil {
			continue // the backend terminates TLS (ssl-passthrough)
		}
		by := ps[0]
		cert := by.tls[host]
		hb.tls = &api.ServerTLS{Certificate: cert, Redirect: by.ann.sslRedirect}
		if cert == defaultCert {
			hb.tls.DefaultCertificate = true
		} else {
			m.t.Certificates[cert] = by.certs[cert]
		}
		for _, p := range ps[1:] {
			if p.tls[host] != cert || p.ann.sslRedirect != hb.tls.Redirect {
				m.t.Reports[ingressKey(p.ing)].warn(ReasonConflict,
					"TLS for host %s is not applied: older Ingress %s's TLS entry (certificate %s, ssl-redirect %t) serves it",
					host, ingressKey(by.ing), cert, hb.tls.Redirect)
			}
		}
	}
}

// buildServers makes one server per host, its locations sorted so that the same cluster
// always writes the same bytes.
func (m *merge) buildServers() {
	for _, key := range slices.Sorted(maps.Keys(m.hosts)) {
		hb := m.hosts[key]
		host, name := key, hb.name(key)
		if hb.host != "" {
			host = hb.host
		}
		src := api.Source{}
		switch {
		case hb.source != nil:
			src = sourceOf(hb.source)
		case hb.route != nil:
			src = hb.route.source()
		default:
			src = *hb.defaultSource
		}
		srv := &api.Server{Name: name, Hostnames: append([]string{host}, hb.aliases...), TLS: hb.tls,
			Locations: make([]api.Location, 0, len(hb.claims)), Source: src}
		if hb.clientTLS != nil {
			c := *hb.clientTLS // the plan's is shared with the cache
			srv.ClientTLS = &c
		}
		if hb.passthrough != nil {
			pt := *hb.passthrough
			srv.Passthrough = &pt
		}
		m.serverPolicies(srv, hb, host) // policies
		routed := false
		for _, c := range hb.claims {
			srv.Locations = append(srv.Locations, c.loc)
			routed = routed || c.route != nil
		}
		// Stable: locations of one path and match keep the order they were claimed in,
		// the routes' precedence among conditions that tie (gatewaymerge.go).
		sort.SliceStable(srv.Locations, func(i, j int) bool {
			a, b := srv.Locations[i], srv.Locations[j]
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			return a.Match < b.Match
		})
		// ingress-nginx's regex ordering is the Ingresses'; routes' regexes keep their own.
		if hasRegex(srv.Locations) && !routed {
			srv.Locations = regexHost(srv.Locations)
		}
		if err := m.serverPorts(srv, hb); err != nil {
			m.serverRefused(hb, host, err)
			continue
		}
		srv.Normalize()
		// A server the store already holds as it is was valid when it was written.
		if cur := m.head.Servers[srv.Name]; cur != nil && cur.Source.Kind == api.SourceKubernetes && sameServer(cur, srv) {
			m.t.Servers[srv.Name] = srv
			continue
		}
		if err := srv.Validate(); err != nil {
			m.serverRefused(hb, host, err)
			continue
		}
		m.t.Servers[srv.Name] = srv
	}
}

// name is the name of the server of the host keyed key.
func (hb *hostBuild) name(key string) string {
	if hb.host != "" {
		return gatewayServerName(hb.host, hb.address, hb.port)
	}
	return serverName(key)
}

// serverRefused tells the owner of a server that does not validate why it is left out.
func (m *merge) serverRefused(hb *hostBuild, host string, err error) {
	switch {
	case hb.source != nil:
		m.t.Reports[ingressKey(hb.source)].warn(ReasonConflict, "server for host %s is not applied: %v", host, err)
	case hb.route != nil:
		hb.route.warn(ReasonConflict, "server for host %s is not applied: %v", host, err)
	default:
		m.t.DefaultBackendProblem = fmt.Sprintf("server for host %s is not applied: %v", host, err)
	}
}

func sourceOf(ing *networkingv1.Ingress) api.Source {
	return api.Source{Kind: api.SourceKubernetes, Namespace: ing.Namespace, Name: ing.Name, UID: string(ing.UID)}
}
