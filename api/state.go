package api

import (
	"maps"
	"slices"
)

// Apply puts the mutation's object into the state, or removes it for a delete. The object
// is stored by pointer; callers hand over objects they no longer modify.
func (s *State) Apply(m Mutation) {
	if m.Delete {
		s.Delete(m.Ref())
		return
	}
	switch m.Kind {
	case KindBackend:
		s.Backends[m.Name] = m.Backend
	case KindServer:
		s.Servers[m.Name] = m.Server
	case KindCertificate:
		s.Certificates[m.Name] = m.Certificate
	case KindSettings:
		s.Settings = *m.Settings
	case KindHtpasswd:
		s.Htpasswds[m.Name] = m.Htpasswd
	case KindCACertificate:
		s.CACertificates[m.Name] = m.CACertificate
	}
}

// Delete removes an object; settings go back to their defaults.
func (s *State) Delete(r Ref) {
	switch r.Kind {
	case KindBackend:
		delete(s.Backends, r.Name)
	case KindServer:
		delete(s.Servers, r.Name)
	case KindCertificate:
		delete(s.Certificates, r.Name)
	case KindSettings:
		s.Settings = DefaultSettings()
	case KindHtpasswd:
		delete(s.Htpasswds, r.Name)
	case KindCACertificate:
		delete(s.CACertificates, r.Name)
	}
}

// Lookup returns an object's version and owner, and whether it exists. Settings always
// exist and are owned by the API.
func (s *State) Lookup(r Ref) (version int64, owner Source, ok bool) {
	switch r.Kind {
	case KindBackend:
		if b := s.Backends[r.Name]; b != nil {
			return b.Version, b.Source, true
		}
	case KindServer:
		if v := s.Servers[r.Name]; v != nil {
			return v.Version, v.Source, true
		}
	case KindCertificate:
		if c := s.Certificates[r.Name]; c != nil {
			return c.Version, c.Source, true
		}
	case KindSettings:
		return s.Settings.Version, Source{Kind: SourceAPI}, true
	case KindHtpasswd:
		if h := s.Htpasswds[r.Name]; h != nil {
			return h.Version, h.Source, true
		}
	case KindCACertificate:
		if c := s.CACertificates[r.Name]; c != nil {
			return c.Version, c.Source, true
		}
	}
	return 0, Source{}, false
}

// Refs lists every object in the state, settings included.
func (s *State) Refs() []Ref {
	refs := make([]Ref, 0, 1+len(s.Backends)+len(s.Servers)+len(s.Certificates))
	refs = append(refs, Ref{KindSettings, SettingsName})
	for _, n := range slices.Sorted(maps.Keys(s.Certificates)) {
		refs = append(refs, Ref{KindCertificate, n})
	}
	// Htpasswd objects come before the servers that name them.
	for _, n := range slices.Sorted(maps.Keys(s.Htpasswds)) {
		refs = append(refs, Ref{KindHtpasswd, n})
	}
	// CA bundles too come before the backends and servers that name them.
	for _, n := range slices.Sorted(maps.Keys(s.CACertificates)) {
		refs = append(refs, Ref{KindCACertificate, n})
	}
	for _, n := range slices.Sorted(maps.Keys(s.Backends)) {
		refs = append(refs, Ref{KindBackend, n})
	}
	for _, n := range slices.Sorted(maps.Keys(s.Servers)) {
		refs = append(refs, Ref{KindServer, n})
	}
	return refs
}
