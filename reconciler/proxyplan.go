package reconciler

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// Body, retry, errors and matching policies on an Ingress's locations (policies).

// errorServiceKeys lists the Service of the Ingress's default-backend annotation, for the
// informer's index and the plan's version: a change to it re-plans the Ingress.
func errorServiceKeys(ing *networkingv1.Ingress) []string {
	v, ok := ing.Annotations[ownPrefix+"default-backend"]
	if !ok {
		v, ok = ing.Annotations[nginxPrefix+"default-backend"]
	}
	v = strings.TrimSpace(v)
	if !ok || v == "" || strings.Contains(v, "/") {
		return nil
	}
	return []string{ing.Namespace + "/" + v}
}

// planErrors adds the backend of default-backend's Service (its first port, as in
// ingress-nginx; port 80 while the Service is missing) and returns its name, "" without it.
// custom-http-errors without default-backend is answered by the controller-wide default
// backend, as in ingress-nginx, and refused where there is none.
func (p *plan) planErrors(snap *Snapshot) (string, error) {
	svc := p.ann.pol.errorService
	if svc == "" {
		if len(p.ann.pol.errorCodes) == 0 {
			return "", nil
		}
		d := snap.DefaultBackend
		if d == nil {
			return "", fmt.Errorf("annotation custom-http-errors needs default-backend, the Service that answers them, or restyplane's --default-backend")
		}
		be, err := d.backend(snap)
		if err != nil {
			return "", fmt.Errorf("annotation custom-http-errors: %w", err)
		}
		p.backends[be.Name] = be
		return be.Name, nil
	}
	port := networkingv1.ServiceBackendPort{Number: 80}
	if s := snap.Services[p.ing.Namespace+"/"+svc]; s != nil && len(s.Spec.Ports) > 0 {
		if s.Spec.Ports[0].Name != "" {
			port = networkingv1.ServiceBackendPort{Name: s.Spec.Ports[0].Name}
		} else {
			port = networkingv1.ServiceBackendPort{Number: s.Spec.Ports[0].Port}
		}
	}
	name, err := p.backend(&networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc, Port: port}}, snap)
	if err != nil {
		return "", fmt.Errorf("annotation default-backend: %w", err)
	}
	return name, nil
}

// withPolicies gives a location the Ingress's proxy, retry and errors policies; ref is the
// Service port the location routes to, which the error backend is told of.
func (p *plan) withPolicies(l api.Location, ref *networkingv1.IngressServiceBackend) api.Location {
	a := p.ann.pol
	l.Proxy, l.Retry = a.proxy, a.retry
	if p.errorsBackend != "" {
		e := &api.ErrorsPolicy{Codes: a.errorCodes, Backend: p.errorsBackend}
		o := &api.ErrorsOrigin{Namespace: p.ing.Namespace, Ingress: p.ing.Name}
		if ref != nil {
			o.Service, o.ServicePort = ref.Name, portKey(ref.Port)
		}
		// Only what api's name grammar holds is passed; a longer name is left out.
		for _, f := range []*string{&o.Namespace, &o.Ingress, &o.Service, &o.ServicePort} {
			if api.ValidName("origin", *f) != nil {
				*f = ""
			}
		}
		e.Origin = o
		l.Errors = e
	}
	return l
}

// regexPath makes a path of a use-regex Ingress a regex location anchored at its start, as
// ingress-nginx writes it ("~* ^path"), whatever its pathType: ingress-nginx makes Exact
// paths regexes too. ingress-nginx's regexes are case-insensitive ("~*"); restyplane keeps
// them case-sensitive ("~"), as its prefix and exact paths and the Ingress spec's paths
// are, so a path means the same whichever way it is written.
func regexPath(l *api.Location) error {
	if !strings.HasPrefix(l.Path, "^") {
		l.Path = "^" + l.Path
	}
	if err := api.ValidRegex("path", l.Path); err != nil {
		return err
	}
	l.Match = api.MatchRegex
	return nil
}

// aliasOwner names the host an alias is served with: the first host of the Ingress's
// rules (ingress-nginx's server-alias extends the server of the Ingress's host).
func aliasOwner(ing *networkingv1.Ingress) string {
	for _, h := range ingressHosts(ing) {
		if h != api.CatchAllHostname {
			return h
		}
	}
	return ""
}

// ingressAliases reads server-alias as hostOwners needs it, before the Ingress is planned;
// an Ingress whose server-alias does not parse is refused when planned.
func ingressAliases(ing *networkingv1.Ingress) []string {
	v, ok := ing.Annotations[ownPrefix+"server-alias"]
	if !ok {
		v, ok = ing.Annotations[nginxPrefix+"server-alias"]
	}
	if !ok || aliasOwner(ing) == "" {
		return nil
	}
	out, err := parseAliases(v)
	if err != nil {
		return nil
	}
	return out
}

// addAliases puts each served Ingress's aliases on its host's server, oldest Ingress
// first. An alias held by another namespace or the REST API (owners says so), routed as a
// host of its own, or already an alias of another host is left out and reported; the rest
// of the Ingress is served.
func (m *merge) addAliases(mains []*plan, owners *hostOwners) {
	given := map[string]string{} // alias -> host
	m.aliasOf = given
	for _, p := range mains {
		host := aliasOwner(p.ing)
		hb := m.hosts[host]
		if hb == nil {
			continue
		}
		rep := m.t.Reports[ingressKey(p.ing)]
		for _, a := range p.ann.pol.aliases {
			switch {
			case owners.hostRefusal(p.ing, a) != "":
				rep.warn(ReasonHostClaimed, "server-alias %s is not applied: %s", a, owners.hostRefusal(p.ing, a))
			case m.hosts[a] != nil:
				rep.warn(ReasonConflict, "server-alias %s is not applied: an Ingress routes it as a host of its own", a)
			case given[a] != "" && given[a] != host:
				rep.warn(ReasonConflict, "server-alias %s is not applied: it is already an alias of host %s", a, given[a])
			case given[a] == "":
				given[a] = host
				hb.aliases = append(hb.aliases, a)
			}
		}
	}
}

// usesDefaultBackend reports whether the Ingress's custom-http-errors go to the
// controller-wide default backend: it has codes and no default-backend of its own.
func usesDefaultBackend(ing *networkingv1.Ingress) bool {
	has := func(name string) bool {
		_, a := ing.Annotations[ownPrefix+name]
		_, b := ing.Annotations[nginxPrefix+name]
		return a || b
	}
	return has("custom-http-errors") && !has("default-backend")
}
