package api

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"
)

// Config is the whole desired state at one revision, each list sorted by name.
type Config struct {
	Revision     int64         `json:"revision" readonly:"true"`
	Settings     Settings      `json:"settings"`
	Backends     []Backend     `json:"backends"`
	Servers      []Server      `json:"servers"`
	Certificates []Certificate `json:"certificates"`
	// Htpasswds are the users of basic auth, without their lines unless withKeys.
	Htpasswds []Htpasswd `json:"htpasswds,omitempty"`
	// CACertificates are the CA bundles upstream certificates are verified against.
	CACertificates []CACertificate `json:"caCertificates,omitempty"`
}

// State is a config indexed by name, the form the store keeps the head in and checks
// writes against.
type State struct {
	Revision int64
	// Written is when the revision was written; the applier measures propagation from it.
	Written time.Time
	// Kept is the newest revision, at or below Revision, whose writer marked it not to be
	// rolled back automatically; the applier never goes back past it on its own.
	Kept         int64
	Settings     Settings
	Backends     map[string]*Backend
	Servers      map[string]*Server
	Certificates map[string]*Certificate
	Htpasswds    map[string]*Htpasswd
	// CACertificates (policies): CA bundles, see cacertificate.go.
	CACertificates map[string]*CACertificate
}

// NewState returns an empty state with default settings.
func NewState() *State {
	return &State{
		Settings:       DefaultSettings(),
		Backends:       map[string]*Backend{},
		Servers:        map[string]*Server{},
		Certificates:   map[string]*Certificate{},
		Htpasswds:      map[string]*Htpasswd{},
		CACertificates: map[string]*CACertificate{},
	}
}

// Clone copies the maps, not the objects: objects are never mutated once in a State.
func (s *State) Clone() *State {
	// maps.Clone copies the table wholesale instead of rehashing every key, which keeps a
	// single-object write on a config of thousands of objects cheap.
	return &State{Revision: s.Revision, Written: s.Written, Kept: s.Kept, Settings: s.Settings,
		Backends:       maps.Clone(s.Backends),
		Servers:        maps.Clone(s.Servers),
		Certificates:   maps.Clone(s.Certificates),
		Htpasswds:      maps.Clone(s.Htpasswds),
		CACertificates: maps.Clone(s.CACertificates),
	}
}

// Config returns the state as a Config with sorted lists. Certificates keep their keys only
// when withKeys is set, which only the applier asks for.
func (s *State) Config(withKeys bool) Config {
	c := Config{Revision: s.Revision, Settings: s.Settings,
		Backends: []Backend{}, Servers: []Server{}, Certificates: []Certificate{}}
	for _, name := range slices.Sorted(maps.Keys(s.Backends)) {
		c.Backends = append(c.Backends, *s.Backends[name])
	}
	for _, name := range slices.Sorted(maps.Keys(s.Servers)) {
		c.Servers = append(c.Servers, *s.Servers[name])
	}
	for _, name := range slices.Sorted(maps.Keys(s.Certificates)) {
		cert := *s.Certificates[name]
		if !withKeys {
			cert = cert.Redacted()
		}
		c.Certificates = append(c.Certificates, cert)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Htpasswds)) {
		h := *s.Htpasswds[name]
		if !withKeys {
			h = h.Redacted()
		}
		c.Htpasswds = append(c.Htpasswds, h)
	}
	for _, name := range slices.Sorted(maps.Keys(s.CACertificates)) {
		c.CACertificates = append(c.CACertificates, *s.CACertificates[name])
	}
	return c
}

// Ref names one object.
type Ref struct{ Kind, Name string }

// Check verifies the references and claims that involve the touched objects: a location's
// backend and a server's certificate exist, a canary's backend exists, nothing still refers
// to a deleted object, and no host+path is claimed by two locations. Checking only what a
// write touched keeps single-object writes O(size of what refers to them).
func (s *State) Check(touched []Ref) error {
	var claimants []string
	certs := false // a certificate was written: check what they hold together, once
	for _, r := range touched {
		switch r.Kind {
		case KindBackend:
			if b, ok := s.Backends[r.Name]; ok {
				if b.Canary != nil && s.Backends[b.Canary.Backend] == nil {
					return Invalid("canary.backend", "backend %q does not exist", b.Canary.Backend)
				}
				if err := s.checkUpstreamRefs(b); err != nil {
					return err
				}
			} else if err := s.unreferencedBackend(r.Name); err != nil {
				return err
			}
		case KindServer:
			if srv, ok := s.Servers[r.Name]; ok {
				if err := s.checkServerRefs(srv); err != nil {
					return err
				}
				claimants = append(claimants, r.Name)
			}
		case KindHtpasswd:
			if err := s.checkHtpasswd(r.Name); err != nil {
				return err
			}
		case KindCACertificate:
			if err := s.checkCACertificate(r.Name); err != nil {
				return err
			}
		case KindCertificate:
			if s.Certificates[r.Name] != nil {
				certs = true
			} else {
				for _, srv := range s.Servers {
					if srv.TLS != nil && srv.TLS.Certificate == r.Name {
						return Errorf(EConflict, "certificate %q is used by server %q", r.Name, srv.Name)
					}
				}
				if where := s.upstreamUser(KindCertificate, r.Name); where != "" {
					return Errorf(EConflict, "certificate %q is used by %s as its upstream client certificate", r.Name, where)
				}
			}
		}
	}
	if certs {
		if err := s.checkCertificateBytes(); err != nil {
			return err
		}
	}
	if len(claimants) > 0 {
		return s.checkClaims(claimants)
	}
	return nil
}

// CheckAll verifies every reference and claim in the state.
func (s *State) CheckAll() error {
	if err := s.checkCertificateBytes(); err != nil {
		return err
	}
	refs := make([]Ref, 0, len(s.Backends)+len(s.Servers))
	for n := range s.Backends {
		refs = append(refs, Ref{KindBackend, n})
	}
	for n := range s.Servers {
		refs = append(refs, Ref{KindServer, n})
	}
	for n := range s.Htpasswds {
		refs = append(refs, Ref{KindHtpasswd, n})
	}
	for n := range s.CACertificates {
		refs = append(refs, Ref{KindCACertificate, n})
	}
	return s.Check(refs)
}

func (s *State) checkServerRefs(srv *Server) error {
	if srv.TLS != nil && !srv.TLS.DefaultCertificate && s.Certificates[srv.TLS.Certificate] == nil {
		return Invalid("tls.certificate", "certificate %q does not exist", srv.TLS.Certificate)
	}
	for i, l := range srv.Locations {
		if l.Backend == "" && l.answersItself() {
			continue // policies: a redirect, return or deny needs no backend
		}
		if s.Backends[l.Backend] == nil {
			return Invalid(fmt.Sprintf("locations[%d].backend", i), "backend %q does not exist", l.Backend)
		}
	}
	if err := s.checkErrorsRefs(srv); err != nil { // policies
		return err
	}
	if err := s.checkClientTLSRef(srv); err != nil {
		return err
	}
	if err := s.checkPassthroughRef(srv); err != nil {
		return err
	}
	if err := s.checkWWWPartners(srv); err != nil { // policies
		return err
	}
	if err := s.checkMirrorRefs(srv); err != nil {
		return err
	}
	if err := s.checkPortKinds(srv); err != nil {
		return err
	}
	return s.checkAuthRefs(srv)
}

func (s *State) unreferencedBackend(name string) error {
	for _, srv := range s.Servers {
		if p := srv.Passthrough; p != nil && p.Backend == name { // policies
			return Errorf(EConflict, "backend %q takes the TLS connections of server %q (passthrough)", name, srv.Name)
		}
		for _, l := range srv.Locations {
			if l.Backend == name {
				return Errorf(EConflict, "backend %q is used by server %q location %q", name, srv.Name, l.Path)
			}
			if l.Errors != nil && l.Errors.Backend == name { // policies
				return Errorf(EConflict, "backend %q answers the errors of server %q location %q", name, srv.Name, l.Path)
			}
			for _, m := range l.Mirror {
				if m.Backend == name {
					return Errorf(EConflict, "backend %q is a mirror of server %q location %q", name, srv.Name, l.Path)
				}
			}
		}
	}
	for _, b := range s.Backends {
		if b.Canary != nil && b.Canary.Backend == name {
			return Errorf(EConflict, "backend %q is the canary of backend %q", name, b.Name)
		}
	}
	return nil
}

// checkClaims finds a host+path claimed by locations of two servers, one of them among
// claimants (the servers a write touched). Within one server the server's own Validate
// already refused duplicates. The other servers are looked at only where they share a
// hostname with a claimant, so that a write to one server among thousands costs a map
// lookup per hostname instead of a key for every location.
func (s *State) checkClaims(claimants []string) error {
	sort.Strings(claimants)
	owner := map[string]string{}
	hosts := map[string]bool{}
	mine := make(map[string]bool, len(claimants))
	for _, name := range claimants {
		mine[name] = true
		srv := s.Servers[name]
		for _, h := range srv.Hostnames {
			hosts[h] = true
			for i := range srv.Locations {
				key := srv.ClaimHost(h) + " " + srv.Locations[i].key()
				if other, ok := owner[key]; ok && other != name {
					return claimedBy(h, &srv.Locations[i], other)
				}
				owner[key] = name
			}
		}
	}
	var neighbours []string
	for name, srv := range s.Servers {
		for _, h := range srv.Hostnames {
			if hosts[h] && !mine[name] {
				neighbours = append(neighbours, name)
				break
			}
		}
	}
	sort.Strings(neighbours)
	// Policies: one server block per hostname verifies clients one way.
	if err := s.checkClientTLSAgree(claimants, neighbours); err != nil {
		return err
	}
	for _, name := range neighbours {
		srv := s.Servers[name]
		if err := s.sameOwnerKind(srv, claimants); err != nil {
			return err
		}
		for _, h := range srv.Hostnames {
			for i := 0; hosts[h] && i < len(srv.Locations); i++ {
				if _, ok := owner[srv.ClaimHost(h)+" "+srv.Locations[i].key()]; ok {
					return claimedBy(h, &srv.Locations[i], name)
				}
			}
		}
	}
	return nil
}

// sameOwnerKind refuses a REST-owned and a kubernetes-owned server that share a hostname:
// nginx would merge them into one server block, where the order of their names decided
// whose certificate and redirect win. A hostname belongs to the REST API or to one
// Kubernetes namespace.
func (s *State) sameOwnerKind(neighbour *Server, claimants []string) error {
	k8s := neighbour.Source.Kind == SourceKubernetes
	for _, name := range claimants {
		srv := s.Servers[name]
		if (srv.Source.Kind == SourceKubernetes) == k8s {
			continue
		}
		for _, h := range srv.Hostnames {
			if slices.Contains(neighbour.Hostnames, h) {
				holder := "the REST API"
				if k8s {
					holder = "Kubernetes (" + neighbour.Source.Namespace + "/" + neighbour.Source.Name + ")"
				}
				return &Error{Code: EConflict, Field: "hostnames", Message: fmt.Sprintf(
					"hostname %q is held by %s in server %q: REST servers and Ingresses never share a hostname", h, holder, neighbour.Name)}
			}
		}
	}
	return nil
}

// ClaimHost is what a location's claim is made on: the hostname, at the server's address
// and on its plain port, since servers at different addresses or on different ports have
// server blocks of their own.
func (srv *Server) ClaimHost(h string) string {
	switch {
	case srv.Address != "":
		return fmt.Sprintf("%s@%s:%d", h, srv.Address, srv.Port)
	case srv.Port == 0:
		return h
	}
	return fmt.Sprintf("%s:%d", h, srv.Port)
}

func claimedBy(host string, l *Location, server string) error {
	return &Error{Code: EConflict, Field: "locations",
		Message: fmt.Sprintf("host %q %s path %q%s is already claimed by server %q", host, l.matchOrDefault(), l.Path, l.whenSuffix(), server)}
}
