package api

import ()

// Apply puts the mutation's object into the state, or removes it for a delete. The object
// is stored by pointer; callers hand over objects they no longer modify.
func (s *State) Apply(m Mutation) {
	if m.Delete {
		s.Delete(m.Ref())
		return
	}
	if k, ok := KindNamed(m.Kind); ok {
		k.apply(s, m)
	}
}

// Delete removes an object; settings go back to their defaults.
func (s *State) Delete(r Ref) {
	if k, ok := KindNamed(r.Kind); ok {
		k.remove(s, r.Name)
	}
}

// Lookup returns an object's version and owner, and whether it exists. Settings always
// exist and are owned by the API.
func (s *State) Lookup(r Ref) (version int64, owner Source, ok bool) {
	if k, known := KindNamed(r.Kind); known {
		return k.lookup(s, r.Name)
	}
	return 0, Source{}, false
}

// Refs lists every object in the state, settings included, in the order of kinds: what
// others name comes before what names it.
func (s *State) Refs() []Ref {
	refs := make([]Ref, 0, 1+len(s.Backends)+len(s.Servers)+len(s.Certificates))
	for _, k := range kinds {
		for _, n := range k.names(s) {
			refs = append(refs, Ref{k.Name(), n})
		}
	}
	return refs
}
