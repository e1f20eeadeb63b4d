package api

// Mutation is one object to write: Delete, or exactly the pointer of its Kind set. Writers
// send whole objects; the store works out create or update and the diff.
type Mutation struct {
	Kind        string
	Name        string
	Delete      bool
	Backend     *Backend
	Server      *Server
	Certificate *Certificate
	Settings    *Settings
	Htpasswd    *Htpasswd
	// CACertificate (policies).
	CACertificate *CACertificate
}

// Ref returns the object the mutation touches.
func (m Mutation) Ref() Ref { return Ref{Kind: m.Kind, Name: m.Name} }

// Validate checks that the mutation is well formed and its object valid, and normalizes
// the object so that equal intent stores equal bytes.
func (m *Mutation) Validate() error {
	set := 0
	for _, p := range []bool{m.Backend != nil, m.Server != nil, m.Certificate != nil, m.Settings != nil, m.Htpasswd != nil, m.CACertificate != nil} {
		if p {
			set++
		}
	}
	if m.Delete {
		if set != 0 {
			return Invalid("", "a delete carries no object")
		}
		if m.Kind == KindSettings {
			return Invalid("", "settings cannot be deleted")
		}
		return ValidName("name", m.Name)
	}
	if set != 1 {
		return Invalid("", "a write carries exactly one object")
	}
	switch {
	case m.Kind == KindBackend && m.Backend != nil:
		m.Backend.Normalize()
		m.Name = m.Backend.Name
		return m.Backend.Validate()
	case m.Kind == KindServer && m.Server != nil:
		m.Server.Normalize()
		m.Name = m.Server.Name
		return m.Server.Validate()
	case m.Kind == KindCertificate && m.Certificate != nil:
		if m.Certificate.Source.Kind == "" {
			m.Certificate.Source.Kind = SourceAPI
		}
		m.Name = m.Certificate.Name
		// The key may be omitted on update; the store then keeps the stored one.
		return m.Certificate.Validate(false)
	case m.Kind == KindHtpasswd && m.Htpasswd != nil:
		if m.Htpasswd.Source.Kind == "" {
			m.Htpasswd.Source.Kind = SourceAPI
		}
		m.Name = m.Htpasswd.Name
		// The lines may be omitted on update; the store then keeps the stored ones.
		return m.Htpasswd.Validate()
	case m.Kind == KindCACertificate && m.CACertificate != nil:
		if m.CACertificate.Source.Kind == "" {
			m.CACertificate.Source.Kind = SourceAPI
		}
		m.Name = m.CACertificate.Name
		return m.CACertificate.Validate()
	case m.Kind == KindSettings && m.Settings != nil:
		m.Name = SettingsName
		return m.Settings.Validate()
	}
	return Invalid("", "object does not match kind %q", m.Kind)
}
