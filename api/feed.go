package api

import (
	"sort"
	"time"
)

// Feed message types.
const (
	// FeedSnapshot replaces everything the agent holds.
	FeedSnapshot = "snapshot"
	// FeedDelta changes what the agent holds into the state at Revision.
	FeedDelta = "delta"
	// FeedKeepAlive carries nothing; it tells the agent that the stream is alive.
	FeedKeepAlive = "keepalive"
)

// FeedMessage is one line of GET /api/v1/feed. A snapshot holds the whole state at
// Revision, certificate keys included; a delta holds the objects that changed since the
// revision the stream sent before (upserted whole, deleted by name) and the settings when
// they changed. It is also the form an agent keeps its last applied state in on disk.
type FeedMessage struct {
	Type     string `json:"type" enums:"snapshot,delta,keepalive"`
	Revision int64  `json:"revision"`
	// History names the history the revision belongs to: another one (a control plane
	// whose data directory was replaced) has other states under the same revision numbers.
	History string `json:"history,omitempty"`
	// Written is when Revision was written, for the propagation time.
	Written             time.Time     `json:"written,omitzero"`
	Settings            *Settings     `json:"settings,omitempty"`
	Backends            []Backend     `json:"backends,omitempty"`
	Servers             []Server      `json:"servers,omitempty"`
	Certificates        []Certificate `json:"certificates,omitempty"`
	DeletedBackends     []string      `json:"deletedBackends,omitempty"`
	DeletedServers      []string      `json:"deletedServers,omitempty"`
	DeletedCertificates []string      `json:"deletedCertificates,omitempty"`
	// Htpasswds travel like certificates: whole, with their lines (policies).
	Htpasswds        []Htpasswd `json:"htpasswds,omitempty"`
	DeletedHtpasswds []string   `json:"deletedHtpasswds,omitempty"`
	// CACertificates travel like certificates too (policies).
	CACertificates        []CACertificate `json:"caCertificates,omitempty"`
	DeletedCACertificates []string        `json:"deletedCaCertificates,omitempty"`
}

// Snapshot returns the whole state as a snapshot message, certificate keys included.
func Snapshot(s *State) FeedMessage {
	set := s.Settings
	c := s.Config(true)
	return FeedMessage{Type: FeedSnapshot, Revision: s.Revision, Written: s.Written, Settings: &set,
		Backends: c.Backends, Servers: c.Servers, Certificates: c.Certificates, Htpasswds: c.Htpasswds,
		CACertificates: c.CACertificates}
}

// Delta returns what changed from old to cur, comparing objects by version: an object's
// version is the revision that wrote it, so equal versions mean equal objects. Its cost is
// a walk of both states' maps and a copy of the changed objects only.
func Delta(old, cur *State) FeedMessage {
	m := FeedMessage{Type: FeedDelta, Revision: cur.Revision, Written: cur.Written}
	if old.Settings.Version != cur.Settings.Version {
		set := cur.Settings
		m.Settings = &set
	}
	m.Backends, m.DeletedBackends = changed(old.Backends, cur.Backends, func(b *Backend) int64 { return b.Version })
	m.Servers, m.DeletedServers = changed(old.Servers, cur.Servers, func(v *Server) int64 { return v.Version })
	m.Certificates, m.DeletedCertificates = changed(old.Certificates, cur.Certificates, func(c *Certificate) int64 { return c.Version })
	m.Htpasswds, m.DeletedHtpasswds = changed(old.Htpasswds, cur.Htpasswds, func(h *Htpasswd) int64 { return h.Version })
	m.CACertificates, m.DeletedCACertificates = changed(old.CACertificates, cur.CACertificates, func(c *CACertificate) int64 { return c.Version })
	return m
}

// changed lists, sorted by name, the objects of cur that old lacks or holds at another
// version, and the names old holds that cur lacks.
func changed[T any](old, cur map[string]*T, version func(*T) int64) (upserts []T, deleted []string) {
	var names []string
	for name, obj := range cur {
		if o := old[name]; o == nil || version(o) != version(obj) {
			names = append(names, name)
		}
	}
	for _, name := range sortedNames(names) {
		upserts = append(upserts, *cur[name])
	}
	for name := range old {
		if cur[name] == nil {
			deleted = append(deleted, name)
		}
	}
	return upserts, sortedNames(deleted)
}

// Empty reports whether a delta changes nothing.
func (m FeedMessage) Empty() bool {
	return m.Settings == nil && len(m.Backends)+len(m.Servers)+len(m.Certificates)+
		len(m.DeletedBackends)+len(m.DeletedServers)+len(m.DeletedCertificates)+
		len(m.Htpasswds)+len(m.DeletedHtpasswds)+len(m.CACertificates)+len(m.DeletedCACertificates) == 0
}

// ApplyTo returns the state the message makes of base: a snapshot ignores base, a delta
// changes a copy of it. base is not modified.
func (m FeedMessage) ApplyTo(base *State) *State {
	var s *State
	if m.Type == FeedSnapshot || base == nil {
		s = NewState()
	} else {
		s = base.Clone()
	}
	s.Revision, s.Written = m.Revision, m.Written
	if m.Settings != nil {
		s.Settings = *m.Settings
	}
	for i := range m.Backends {
		s.Backends[m.Backends[i].Name] = &m.Backends[i]
	}
	for i := range m.Servers {
		s.Servers[m.Servers[i].Name] = &m.Servers[i]
	}
	for i := range m.Certificates {
		s.Certificates[m.Certificates[i].Name] = &m.Certificates[i]
	}
	for _, n := range m.DeletedBackends {
		delete(s.Backends, n)
	}
	for _, n := range m.DeletedServers {
		delete(s.Servers, n)
	}
	for _, n := range m.DeletedCertificates {
		delete(s.Certificates, n)
	}
	for i := range m.Htpasswds {
		s.Htpasswds[m.Htpasswds[i].Name] = &m.Htpasswds[i]
	}
	for _, n := range m.DeletedHtpasswds {
		delete(s.Htpasswds, n)
	}
	for i := range m.CACertificates {
		s.CACertificates[m.CACertificates[i].Name] = &m.CACertificates[i]
	}
	for _, n := range m.DeletedCACertificates {
		delete(s.CACertificates, n)
	}
	return s
}

func sortedNames(names []string) []string {
	sort.Strings(names)
	return names
}
