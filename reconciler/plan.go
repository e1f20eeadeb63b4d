package reconciler

import (
	"fmt"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// plan is one Ingress translated on its own, before it meets the other Ingresses and the
// REST objects: the backends it uses, the locations it claims, its TLS hosts.
type plan struct {
	ing *networkingv1.Ingress
	ann annotations
	// backends by name, with the Ingress's backend annotations applied.
	backends map[string]*api.Backend
	routes   []route
	// fallbacks are the root locations that the Ingress's default backend serves where no
	// path claims "/": on each of its hosts, or on the catch-all server if it has no rules.
	fallbacks []route
	// tls maps a host to the certificate the Ingress asks for it.
	tls   map[string]string
	certs map[string]*api.Certificate
	// warnings do not stop the Ingress from being applied.
	warnings []string
	// tlsRefusals are the TLS entries left out, and why.
	tlsRefusals []string
	// htpasswds holds the htpasswd object of the Ingress's basic auth.
	htpasswds map[string]*api.Htpasswd
	// clientTLS is the verification of client certificates its hosts ask for.
	clientTLS *api.ClientTLS
	// errorsBackend is the backend of default-backend's Service, or "".
	errorsBackend string
	// caCertificates holds the CA bundles of the Secrets its annotations name.
	caCertificates map[string]*api.CACertificate
	// clientCerts holds the certificate of proxy-ssl-secret presented to backends.
	clientCerts map[string]*api.Certificate
	// hold marks the plan of a refused Ingress, whose paths answer 503 (holdPlan).
	hold bool
	// passthrough maps a host to the backend its TLS connections go to (ssl-passthrough).
	passthrough map[string]*api.Passthrough
}

// route is one location on one host.
type route struct {
	host string
	loc  api.Location
}

// planFor returns the Ingress's plan, from the cache when nothing it is computed from has
// changed since the last sync. A cached plan is shared and never modified.
func planFor(ing *networkingv1.Ingress, snap *Snapshot) (*plan, error) {
	var secrets []string
	for _, t := range ing.Spec.TLS {
		secrets = append(secrets, ing.Namespace+"/"+t.SecretName)
	}
	secrets = append(secrets, authSecretKeys(ing)...) // policies
	secrets = append(secrets, caSecretKeys(ing)...)
	services := ingressServiceKeys(ing)
	if snap.DefaultBackend != nil && usesDefaultBackend(ing) {
		services = append(services, snap.DefaultBackend.serviceKey())
	}
	version := string(ing.UID) + "/" + planVersion(ing, services, secrets, snap)
	return snap.cache.plansMemo().get(ingressKey(ing), version, func() (*plan, error) { return planIngress(ing, snap) })
}

// planIngress translates one Ingress. An error means it cannot be translated at all.
func planIngress(ing *networkingv1.Ingress, snap *Snapshot) (*plan, error) {
	ann, err := parseAnnotations(ing.Annotations)
	if err != nil {
		return nil, err
	}
	p := &plan{ing: ing, ann: ann, backends: map[string]*api.Backend{},
		tls: map[string]string{}, certs: map[string]*api.Certificate{}}
	// Policies: the htpasswd of basic auth, before the locations name it.
	if err := p.planAuth(snap); err != nil {
		return nil, err
	}
	// The CA bundle and client certificate of proxy-ssl-secret, before the backends.
	if err := p.planUpstream(snap); err != nil {
		return nil, err
	}
	// Policies: the backend that answers the intercepted error codes.
	if p.errorsBackend, err = p.planErrors(snap); err != nil {
		return nil, err
	}
	var hosts []string
	for i, rule := range ing.Spec.Rules {
		host := rule.Host
		if host == "" {
			host = api.CatchAllHostname
		} else if err := api.ValidHostname("host", host); err != nil {
			return nil, fmt.Errorf("rules[%d].host: %w", i, err)
		}
		hosts = append(hosts, host)
		if rule.HTTP == nil || len(rule.HTTP.Paths) == 0 {
			// A host with no paths is ingress-nginx's server of the default backend; with
			// a redirect annotation its "/" redirects, which needs no backend.
			if ann.http.redirect != nil {
				l := api.Location{Path: "/", Match: api.MatchPrefix}
				ann.http.location(&l)
				p.routes = append(p.routes, route{host: host, loc: l})
			}
			continue
		}
		for j, path := range rule.HTTP.Paths {
			name, err := p.backend(&path.Backend, snap)
			if err != nil {
				return nil, fmt.Errorf("rules[%d].paths[%d]: %w", i, j, err)
			}
			loc, err := p.location(path, name)
			if err != nil {
				return nil, fmt.Errorf("rules[%d].paths[%d]: %w", i, j, err)
			}
			p.routes = append(p.routes, route{host: host, loc: loc})
		}
	}
	if db := ing.Spec.DefaultBackend; db != nil {
		name, err := p.backend(db, snap)
		if err != nil {
			return nil, fmt.Errorf("defaultBackend: %w", err)
		}
		if len(ing.Spec.Rules) == 0 {
			hosts = []string{api.CatchAllHostname}
		}
		vhost, err := p.vhost(db.Service)
		if err != nil {
			return nil, fmt.Errorf("defaultBackend: %w", err)
		}
		for _, h := range hosts {
			loc := api.Location{Path: "/", Match: api.MatchPrefix, Backend: name, Timeouts: ann.timeouts, Auth: p.ann.auth,
				Access: p.ann.access, Limits: p.ann.limits, WAF: p.ann.waf,
				UpstreamHost: vhost, ForwardedPrefix: p.ann.up.prefix}
			p.ann.http.location(&loc) // policies
			loc = p.withPolicies(loc, db.Service)
			if s := p.ann.snippet; s != nil {
				s.apply(&loc)
			}
			p.fallbacks = append(p.fallbacks, route{host: h, loc: loc})
		}
	}
	p.snippetLocations(hosts)
	if err := checkLimits(hosts, p.routes); err != nil {
		return nil, err
	}
	for i, t := range ing.Spec.TLS {
		if t.SecretName == "" {
			p.defaultTLS(i, t.Hosts, hosts)
			continue
		}
		c, err := certificateFor(ing.Namespace, t.SecretName, snap)
		if err != nil {
			return nil, fmt.Errorf("tls[%d]: %w", i, err)
		}
		tlsHosts := tlsHostsFor(t.Hosts, hosts)
		if len(tlsHosts) == 0 {
			// An entry without hosts covers the hosts of the Ingress's rules.
			tlsHosts = hosts
		}
		if why := tlsRefusal(tlsHosts, hosts, c); why != "" {
			p.tlsRefusals = append(p.tlsRefusals, fmt.Sprintf("tls[%d] (Secret %s) is not applied: %s", i, t.SecretName, why))
			continue
		}
		p.certs[c.Name] = c
		for _, h := range tlsHosts {
			if _, ok := p.tls[h]; !ok {
				p.tls[h] = c.Name
			}
		}
	}
	// Policies: client certificates, on hosts with TLS only.
	if err := p.planClientTLS(snap, hosts); err != nil {
		return nil, err
	}
	if err := p.planPassthrough(hosts); err != nil {
		return nil, err
	}
	return p, nil
}

// backend adds the backend an Ingress backend names and returns its name.
func (p *plan) backend(b *networkingv1.IngressBackend, snap *Snapshot) (string, error) {
	if b.Service == nil {
		return "", fmt.Errorf("only Service backends are supported, not resource backends")
	}
	name := backendName(p.ing.Namespace, b.Service.Name, portKey(b.Service.Port))
	if _, ok := p.backends[name]; ok {
		return name, nil
	}
	be, warning, err := backendFor(p.ing.Namespace, b.Service, snap)
	if err != nil {
		return "", err
	}
	if warning != "" {
		p.warnings = append(p.warnings, warning)
	}
	// A canary Ingress's own backend annotations are ignored, as in ingress-nginx: the
	// main Ingress decides how its traffic is balanced.
	if p.ann.canary == nil {
		be.LoadBalance, be.HashBy = p.ann.loadBalance, p.ann.hashBy
		if a := p.ann.affinity; a != nil {
			copied := *a // each backend normalizes its own
			be.Affinity = &copied
		}
		// Policies: protocol, TLS and service-upstream; a canary speaks as its
		// main backend does (attachCanary).
		if err := p.withUpstream(be, p.ing.Namespace+"/"+b.Service.Name, portKey(b.Service.Port), snap); err != nil {
			return "", err
		}
	}
	be.Normalize()
	if err := be.Validate(); err != nil {
		return "", fmt.Errorf("backend %s: %w", name, err)
	}
	p.backends[name] = be
	return name, nil
}

// location translates one Ingress path. Prefix and ImplementationSpecific paths are prefix
// locations (ingress-nginx treats ImplementationSpecific as a prefix too); Exact is exact.
func (p *plan) location(path networkingv1.HTTPIngressPath, backend string) (api.Location, error) {
	vhost, err := p.vhost(path.Backend.Service)
	if err != nil {
		return api.Location{}, err
	}
	l := api.Location{Path: path.Path, Match: api.MatchPrefix, Backend: backend, Timeouts: p.ann.timeouts, Auth: p.ann.auth,
		Access: p.ann.access, Limits: p.ann.limits, WAF: p.ann.waf,
		UpstreamHost: vhost, ForwardedPrefix: p.ann.up.prefix}
	p.ann.http.location(&l) // policies
	if l.Path == "" {
		l.Path = "/"
	}
	if path.PathType != nil && *path.PathType == networkingv1.PathTypeExact {
		l.Match = api.MatchExact
	}
	l = p.withPolicies(l, path.Backend.Service) // policies
	switch {
	case p.ann.pol.useRegex:
		if err := regexPath(&l); err != nil {
			return l, fmt.Errorf("path %q (use-regex): %w", l.Path, err)
		}
	case p.ann.rewriteCaptures:
		if err := regexPath(&l); err != nil {
			return l, fmt.Errorf("path %q (a rewrite-target with capture groups makes it a regex): %w", l.Path, err)
		}
	default:
		if err := api.ValidPath("path", l.Path); err != nil {
			return l, fmt.Errorf("path %q: %w", l.Path, err)
		}
	}
	if err := p.rewrite(&l); err != nil {
		return l, err
	}
	if s := p.ann.snippet; s != nil {
		s.apply(&l) // translated snippets, after the rewrite a fixed answer clears
	}
	return l, nil
}

// snippetLocations adds the locations of a translated server-snippet to each of the
// Ingress's hosts.
func (p *plan) snippetLocations(hosts []string) {
	s := p.ann.snippet
	if s == nil {
		return
	}
	seen := map[string]bool{}
	for _, h := range hosts {
		if seen[h] {
			continue
		}
		seen[h] = true
		for _, l := range s.locations {
			p.routes = append(p.routes, route{host: h, loc: l})
		}
	}
}

// rewrite sets the location's rewrite-target. On a regex path it replaces the whole path,
// its $1-$9 naming the path's groups, as in ingress-nginx; on a prefix path it replaces
// the prefix (ingress-nginx replaces the whole path there too: see the annotation's row).
// A URL makes the location redirect there.
func (p *plan) rewrite(l *api.Location) error {
	switch {
	case redirectsTo(p.ann.rewrite):
		// nginx's rewrite to a URL redirects (302), keeping the query.
		l.Redirect = &api.Redirect{URL: p.ann.rewrite, Code: 302}
		check := api.Server{Name: "x", Hostnames: []string{"x.test"}, Locations: []api.Location{*l}}
		check.Normalize()
		if err := check.Validate(); err != nil {
			return fmt.Errorf("path %q: rewrite-target %q redirects there, and %w", l.Path, p.ann.rewrite, err)
		}
		return nil
	case p.ann.rewrite == "":
	case l.Match == api.MatchExact:
		return fmt.Errorf("rewrite-target applies to Prefix and ImplementationSpecific paths only, and %q is Exact", l.Path)
	case l.Match == api.MatchRegex:
		if err := api.ValidRegexRewrite("rewrite-target", p.ann.rewrite, l.Path); err != nil {
			return fmt.Errorf("path %q: %w", l.Path, err)
		}
	}
	if p.ann.rewrite != "" {
		l.Rewrite = p.ann.rewrite
	}
	return nil
}

// defaultCert stands in a plan's tls for the proxy's default certificate.
const defaultCert = ""

// defaultTLS serves the hosts of TLS entry i, which names no Secret, with the proxy's
// default certificate, as ingress-nginx serves them with its own: HTTPS and the redirect
// work, with a certificate clients do not trust unless a load balancer in front of the
// proxy terminates TLS for them. The entry's hosts must be the Ingress's own.
func (p *plan) defaultTLS(i int, tlsHosts, hosts []string) {
	tlsHosts = tlsHostsFor(tlsHosts, hosts)
	if len(tlsHosts) == 0 {
		tlsHosts = hosts
	}
	for _, h := range tlsHosts {
		if !slices.Contains(hosts, h) {
			p.tlsRefusals = append(p.tlsRefusals, fmt.Sprintf("tls[%d] (no secretName) is not applied: host %s is not among the Ingress's rules' hosts", i, h))
			return
		}
	}
	for _, h := range tlsHosts {
		if _, ok := p.tls[h]; !ok {
			p.tls[h] = defaultCert
		}
	}
	p.warnings = append(p.warnings, fmt.Sprintf("tls[%d] names no secretName: its hosts are served over HTTPS with the proxy's self-signed default certificate, as ingress-nginx does with its own", i))
}
