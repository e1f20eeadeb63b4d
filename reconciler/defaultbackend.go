package reconciler

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// DefaultBackend is the controller-wide default backend, a Service port an admin names
// (ingress-nginx's --default-backend-service): it answers what no Ingress routes, the
// root of every Ingress host where no path claims "/" and every host no Ingress names,
// and the codes of custom-http-errors on Ingresses without a default-backend of their own.
type DefaultBackend struct {
	Namespace string
	Service   string
	Port      networkingv1.ServiceBackendPort
}

// serviceNameRe is a Service name (a DNS-1035 label); portNameRe a Service port's name
// (an IANA service name).
var (
	serviceNameRe = regexp.MustCompile(`^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$`)
	portNameRe    = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$`)
)

// ParseDefaultBackend reads "namespace/service:port", the port a number or a name.
func ParseDefaultBackend(s string) (*DefaultBackend, error) {
	const form = "must be namespace/service:port, such as ingress/default-http-backend:80"
	ns, rest, ok := strings.Cut(s, "/")
	svc, port, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 {
		return nil, fmt.Errorf("default backend %q %s", s, form)
	}
	if err := api.ValidNamespace("namespace", ns); err != nil {
		return nil, fmt.Errorf("default backend %q: %q is not a namespace name", s, ns)
	}
	if !serviceNameRe.MatchString(svc) {
		return nil, fmt.Errorf("default backend %q: %q is not a Service name", s, svc)
	}
	d := &DefaultBackend{Namespace: ns, Service: svc}
	if n, err := strconv.Atoi(port); err == nil {
		if n < 1 || n > 65535 {
			return nil, fmt.Errorf("default backend %q: port %d is not 1-65535", s, n)
		}
		d.Port.Number = int32(n)
	} else if portNameRe.MatchString(port) && strings.ContainsAny(port, "abcdefghijklmnopqrstuvwxyz") {
		d.Port.Name = port
	} else {
		return nil, fmt.Errorf("default backend %q: %q is not a port number or name", s, port)
	}
	return d, nil
}

// String spells d as ParseDefaultBackend reads it.
func (d *DefaultBackend) String() string {
	return d.Namespace + "/" + d.Service + ":" + portKey(d.Port)
}

// serviceKey is the "namespace/name" of d's Service.
func (d *DefaultBackend) serviceKey() string { return d.Namespace + "/" + d.Service }

// backend builds d's backend from the snapshot, as an Ingress's backend is built but
// without any Ingress's annotations: nobody's balancing is imposed on everybody's
// default. An error means d cannot be served (a missing port, a refused ExternalName).
func (d *DefaultBackend) backend(snap *Snapshot) (*api.Backend, error) {
	be, _, err := backendFor(d.Namespace, &networkingv1.IngressServiceBackend{Name: d.Service, Port: d.Port}, snap)
	if err != nil {
		return nil, fmt.Errorf("default backend %s: %w", d, err)
	}
	be.Normalize()
	if err := be.Validate(); err != nil {
		return nil, fmt.Errorf("default backend %s: %w", d, err)
	}
	return be, nil
}

// addDefaultBackend gives the controller-wide default backend the root of every host an
// Ingress serves where no path and no Ingress's own default backend claims "/", and the
// catch-all server where nothing does: after every Ingress has claimed its routes, so it
// never takes one from an Ingress. A host+path or server a REST object holds stays the
// REST API's.
func (m *merge) addDefaultBackend(snap *Snapshot) {
	d := snap.DefaultBackend
	if d == nil {
		return
	}
	be, err := d.backend(snap)
	if err != nil {
		m.t.DefaultBackendProblem = err.Error()
		return
	}
	src := be.Source
	hosts := slices.Sorted(maps.Keys(m.hosts))
	if m.hosts[api.CatchAllHostname] == nil {
		hosts = append(hosts, api.CatchAllHostname)
	}
	for _, host := range hosts {
		loc := api.Location{Path: "/", Match: api.MatchPrefix, Backend: be.Name}
		k := claimKey(host, loc)
		if _, ok := m.claims[k]; ok {
			continue
		}
		// A use-regex Ingress's "/" is the regex "^/", which a regex host would write the
		// default's "/" as too: the root is claimed.
		if _, ok := m.claims[claimKey(host, api.Location{Path: "^/", Match: api.MatchRegex})]; ok {
			continue
		}
		if _, ok := m.res.claims[k]; ok {
			continue
		}
		if m.res.names[api.Ref{Kind: api.KindServer, Name: serverName(host)}] {
			continue
		}
		c := &claim{loc: loc, fallback: true}
		m.claims[k] = c
		hb := m.hosts[host]
		if hb == nil {
			hb = &hostBuild{defaultSource: &src}
			m.hosts[host] = hb
		}
		hb.claims = append(hb.claims, c)
		if _, ok := m.t.Backends[be.Name]; !ok {
			m.t.Backends[be.Name] = be
		}
	}
}
