package api

import (
	"encoding/json"
	"maps"
	"slices"
)

// Kind declares one kind of object, once: its name, where it lives in a State and in a
// Mutation, how it is normalized and validated, and what of it is secret (kept apart from
// the body the history and the API show). State, Mutation and the store work through
// these declarations, so adding a kind is adding one entry to kinds.
type Kind interface {
	// Name is the kind's name, as in Ref.Kind and Mutation.Kind.
	Name() string
	// Encode returns the object m carries as the store keeps it: without its version and
	// its secret, and the secret apart (nil for a kind that has none).
	Encode(m Mutation) (body any, secret []byte)
	// Decode puts the object stored as body and secret, at version, into st.
	Decode(st *State, name string, body, secret []byte, version int64) error
	// Mutation returns the mutation that writes object name as st holds it.
	Mutation(st *State, name string) (Mutation, bool)

	apply(s *State, m Mutation)
	remove(s *State, name string)
	lookup(s *State, name string) (version int64, owner Source, ok bool)
	names(s *State) []string
	carried(m *Mutation) bool
	prepare(m *Mutation) error
	source(m *Mutation) Source
	objectName(m *Mutation) string
}

// kinds is every kind, in the order a state lists its objects (State.Refs): the settings,
// then what others name before those that name it (certificates, htpasswds and CA bundles
// before the backends and servers).
var kinds = []Kind{
	&kind[Settings]{name: KindSettings, field: func(m *Mutation) **Settings { return &m.Settings },
		one:     func(s *State) *Settings { return &s.Settings },
		fresh:   DefaultSettings,
		version: func(o *Settings) *int64 { return &o.Version },
		check:   func(o *Settings) error { return o.Validate() }},
	&kind[Certificate]{name: KindCertificate, field: func(m *Mutation) **Certificate { return &m.Certificate },
		objects:      func(s *State) map[string]*Certificate { return s.Certificates },
		version:      func(o *Certificate) *int64 { return &o.Version },
		meta:         func(o *Certificate) (string, *Source) { return o.Name, &o.Source },
		defaultOwner: true,
		secret:       func(o *Certificate) *string { return &o.Key },
		// The key may be omitted on update; the store then keeps the stored one.
		check: func(o *Certificate) error { return o.Validate(false) }},
	&kind[Htpasswd]{name: KindHtpasswd, field: func(m *Mutation) **Htpasswd { return &m.Htpasswd },
		objects:      func(s *State) map[string]*Htpasswd { return s.Htpasswds },
		version:      func(o *Htpasswd) *int64 { return &o.Version },
		meta:         func(o *Htpasswd) (string, *Source) { return o.Name, &o.Source },
		defaultOwner: true,
		secret:       func(o *Htpasswd) *string { return &o.Content },
		// The lines may be omitted on update; the store then keeps the stored ones.
		check: func(o *Htpasswd) error { return o.Validate() }},
	&kind[CACertificate]{name: KindCACertificate, field: func(m *Mutation) **CACertificate { return &m.CACertificate },
		objects:      func(s *State) map[string]*CACertificate { return s.CACertificates },
		version:      func(o *CACertificate) *int64 { return &o.Version },
		meta:         func(o *CACertificate) (string, *Source) { return o.Name, &o.Source },
		defaultOwner: true,
		check:        func(o *CACertificate) error { return o.Validate() }},
	&kind[Backend]{name: KindBackend, field: func(m *Mutation) **Backend { return &m.Backend },
		objects: func(s *State) map[string]*Backend { return s.Backends },
		version: func(o *Backend) *int64 { return &o.Version },
		meta:    func(o *Backend) (string, *Source) { return o.Name, &o.Source },
		check:   func(o *Backend) error { o.Normalize(); return o.Validate() }},
	&kind[Server]{name: KindServer, field: func(m *Mutation) **Server { return &m.Server },
		objects: func(s *State) map[string]*Server { return s.Servers },
		version: func(o *Server) *int64 { return &o.Version },
		meta:    func(o *Server) (string, *Source) { return o.Name, &o.Source },
		check:   func(o *Server) error { o.Normalize(); return o.Validate() }},
}

// kindsByName finds a kind by its name.
var kindsByName = func() map[string]Kind {
	m := make(map[string]Kind, len(kinds))
	for _, k := range kinds {
		m[k.Name()] = k
	}
	return m
}()

// KindNamed returns the kind of that name.
func KindNamed(name string) (Kind, bool) {
	k, ok := kindsByName[name]
	return k, ok
}

// kind is the declaration of a kind whose objects are of type T.
type kind[T any] struct {
	name string
	// field is where a Mutation carries the object.
	field func(m *Mutation) **T
	// objects is where a State holds the objects by name; one is where it holds the one
	// object of a kind that has a single one (the settings), which fresh resets.
	objects func(s *State) map[string]*T
	one     func(s *State) *T
	fresh   func() T
	version func(o *T) *int64
	// meta returns the object's name and owner; nil for the settings, which are named
	// SettingsName and owned by the API.
	meta func(o *T) (string, *Source)
	// secret is the part of the object kept apart from its body; nil for none.
	secret func(o *T) *string
	// defaultOwner makes an object without an owner the API's; the other kinds'
	// Normalize decides it.
	defaultOwner bool
	// check normalizes and validates the object a mutation carries.
	check func(o *T) error
}

func (k *kind[T]) Name() string { return k.name }

func (k *kind[T]) apply(s *State, m Mutation) {
	o := *k.field(&m)
	if k.one != nil {
		*k.one(s) = *o
		return
	}
	k.objects(s)[m.Name] = o
}

func (k *kind[T]) remove(s *State, name string) {
	if k.one != nil {
		*k.one(s) = k.fresh()
		return
	}
	delete(k.objects(s), name)
}

func (k *kind[T]) lookup(s *State, name string) (int64, Source, bool) {
	if k.one != nil {
		return *k.version(k.one(s)), Source{Kind: SourceAPI}, true
	}
	o := k.objects(s)[name]
	if o == nil {
		return 0, Source{}, false
	}
	_, src := k.meta(o)
	return *k.version(o), *src, true
}

func (k *kind[T]) names(s *State) []string {
	if k.one != nil {
		return []string{SettingsName}
	}
	return slices.Sorted(maps.Keys(k.objects(s)))
}

func (k *kind[T]) carried(m *Mutation) bool { return *k.field(m) != nil }

func (k *kind[T]) prepare(m *Mutation) error {
	o := *k.field(m)
	if k.meta != nil {
		if _, src := k.meta(o); k.defaultOwner && src.Kind == "" {
			src.Kind = SourceAPI
		}
	}
	err := k.check(o)
	m.Name = k.objectName(m)
	return err
}

func (k *kind[T]) source(m *Mutation) Source {
	o := *k.field(m)
	if o == nil || k.meta == nil {
		return Source{}
	}
	_, src := k.meta(o)
	return *src
}

func (k *kind[T]) objectName(m *Mutation) string {
	o := *k.field(m)
	if k.meta == nil {
		return SettingsName
	}
	name, _ := k.meta(o)
	return name
}

func (k *kind[T]) Encode(m Mutation) (any, []byte) {
	o := **k.field(&m)
	*k.version(&o) = 0
	var secret []byte
	if k.secret != nil {
		s := k.secret(&o)
		secret, *s = []byte(*s), ""
	}
	return o, secret
}

func (k *kind[T]) Decode(st *State, name string, body, secret []byte, version int64) error {
	var o T
	if k.fresh != nil {
		o = k.fresh()
	}
	if err := json.Unmarshal(body, &o); err != nil {
		return err
	}
	if k.secret != nil {
		*k.secret(&o) = string(secret)
	}
	*k.version(&o) = version
	if k.one != nil {
		*k.one(st) = o
	} else {
		k.objects(st)[name] = &o
	}
	return nil
}

func (k *kind[T]) Mutation(st *State, name string) (Mutation, bool) {
	m := Mutation{Kind: k.name, Name: name}
	if k.one != nil {
		o := *k.one(st)
		*k.field(&m) = &o
		return m, true
	}
	o := k.objects(st)[name]
	*k.field(&m) = o
	return m, o != nil
}
