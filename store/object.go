package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/restyplane/restyplane/api"
)

// objectRow is one version of one object, with the body of the row that holds it.
type objectRow struct {
	Kind     string `db:"kind"`
	Name     string `db:"name"`
	Revision int64  `db:"revision"`
	Op       string `db:"op"`
	Body     []byte `db:"body"`
	Secret   []byte `db:"secret"`
	// BodyRev is the revision of the row that holds Body: Revision itself, or the older
	// row a rollback's row points at (migration 002).
	BodyRev int64 `db:"body_rev"`
}

// resolved wraps a query that yields, per object, the columns kind, name, revision, op,
// body and body_of of one version row as v, and joins the row that holds the body of a
// restored version. Rows that hold their own body join nothing. Private keys are read only
// withKeys.
func resolved(versions string, withKeys bool) string {
	secret := "NULL"
	if withKeys {
		secret = "COALESCE(b.secret, v.secret)"
	}
	return `SELECT v.kind, v.name, v.revision, v.op, COALESCE(b.body, v.body) AS body,
		` + secret + ` AS secret, COALESCE(v.body_of, v.revision) AS body_rev
		FROM (` + versions + `) v
		LEFT JOIN object_versions b ON v.body_of IS NOT NULL
			AND b.kind = v.kind AND b.name = v.name AND b.revision = v.body_of`
}

// encode returns the stored body of the object a mutation writes, without version or
// private key, and the key separately. Equal objects encode to equal bytes, which is how a
// write that changes nothing is recognised.
func encode(m api.Mutation) (body, secret []byte, err error) {
	var v any
	switch m.Kind {
	case api.KindBackend:
		b := *m.Backend
		b.Version = 0
		v = b
	case api.KindServer:
		srv := *m.Server
		srv.Version = 0
		v = srv
	case api.KindCertificate:
		c := m.Certificate.Redacted()
		c.Version = 0
		v, secret = c, []byte(m.Certificate.Key)
	case api.KindSettings:
		st := *m.Settings
		st.Version = 0
		v = st
	case api.KindHtpasswd:
		h := m.Htpasswd.Redacted()
		h.Version = 0
		v, secret = h, []byte(m.Htpasswd.Content)
	case api.KindCACertificate:
		c := *m.CACertificate
		c.Version = 0
		v = c
	default:
		return nil, nil, fmt.Errorf("unknown kind %q", m.Kind)
	}
	body, err = json.Marshal(v)
	return body, secret, err
}

// mutationOf returns the mutation that writes obj as it is in st.
func mutationOf(st *api.State, r api.Ref) (api.Mutation, bool) {
	m := api.Mutation{Kind: r.Kind, Name: r.Name}
	switch r.Kind {
	case api.KindBackend:
		m.Backend = st.Backends[r.Name]
		return m, m.Backend != nil
	case api.KindServer:
		m.Server = st.Servers[r.Name]
		return m, m.Server != nil
	case api.KindCertificate:
		m.Certificate = st.Certificates[r.Name]
		return m, m.Certificate != nil
	case api.KindSettings:
		set := st.Settings
		m.Settings = &set
		return m, true
	case api.KindHtpasswd:
		m.Htpasswd = st.Htpasswds[r.Name]
		return m, m.Htpasswd != nil
	case api.KindCACertificate:
		m.CACertificate = st.CACertificates[r.Name]
		return m, m.CACertificate != nil
	}
	return m, false
}

// same reports whether two encodings are the same object.
func same(aBody, aSecret, bBody, bSecret []byte) bool {
	return bytes.Equal(aBody, bBody) && bytes.Equal(aSecret, bSecret)
}

// load puts one stored version into st, or removes the object for a delete.
func load(st *api.State, r objectRow) error {
	if r.Op == api.OpDelete {
		st.Delete(api.Ref{Kind: r.Kind, Name: r.Name})
		return nil
	}
	var err error
	switch r.Kind {
	case api.KindBackend:
		var b api.Backend
		err = json.Unmarshal(r.Body, &b)
		b.Version = r.Revision
		st.Backends[r.Name] = &b
	case api.KindServer:
		var srv api.Server
		err = json.Unmarshal(r.Body, &srv)
		srv.Version = r.Revision
		st.Servers[r.Name] = &srv
	case api.KindCertificate:
		var c api.Certificate
		err = json.Unmarshal(r.Body, &c)
		c.Key = string(r.Secret)
		c.Version = r.Revision
		st.Certificates[r.Name] = &c
	case api.KindHtpasswd:
		var h api.Htpasswd
		err = json.Unmarshal(r.Body, &h)
		h.Content = string(r.Secret)
		h.Version = r.Revision
		st.Htpasswds[r.Name] = &h
	case api.KindCACertificate:
		var c api.CACertificate
		err = json.Unmarshal(r.Body, &c)
		c.Version = r.Revision
		st.CACertificates[r.Name] = &c
	case api.KindSettings:
		set := api.DefaultSettings()
		err = json.Unmarshal(r.Body, &set)
		set.Version = r.Revision
		st.Settings = set
	default:
		err = fmt.Errorf("unknown kind")
	}
	if err != nil {
		return fmt.Errorf("decode %s %q at revision %d: %w", r.Kind, r.Name, r.Revision, err)
	}
	return nil
}
