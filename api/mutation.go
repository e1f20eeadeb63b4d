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
	for _, k := range kinds {
		if k.carried(m) {
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
	if k, ok := KindNamed(m.Kind); ok && k.carried(m) {
		return k.prepare(m)
	}
	return Invalid("", "object does not match kind %q", m.Kind)
}

// Source returns the owner the mutation's object declares; empty for settings and deletes.
func (m *Mutation) Source() Source {
	for _, k := range kinds {
		if k.carried(m) {
			return k.source(m)
		}
	}
	return Source{}
}

// ObjectName is the name of the object the mutation carries, or its Name for a delete.
func (m *Mutation) ObjectName() string {
	for _, k := range kinds {
		if k.carried(m) {
			return k.objectName(m)
		}
	}
	return m.Name
}
