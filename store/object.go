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
	k, ok := api.KindNamed(m.Kind)
	if !ok {
		return nil, nil, fmt.Errorf("unknown kind %q", m.Kind)
	}
	v, secret := k.Encode(m)
	body, err = json.Marshal(v)
	return body, secret, err
}

// mutationOf returns the mutation that writes obj as it is in st.
func mutationOf(st *api.State, r api.Ref) (api.Mutation, bool) {
	if k, ok := api.KindNamed(r.Kind); ok {
		return k.Mutation(st, r.Name)
	}
	return api.Mutation{Kind: r.Kind, Name: r.Name}, false
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
	err := fmt.Errorf("unknown kind")
	if k, ok := api.KindNamed(r.Kind); ok {
		err = k.Decode(st, r.Name, r.Body, r.Secret, r.Revision)
	}
	if err != nil {
		return fmt.Errorf("decode %s %q at revision %d: %w", r.Kind, r.Name, r.Revision, err)
	}
	return nil
}
