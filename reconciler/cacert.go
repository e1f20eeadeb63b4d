package reconciler

import (
	"github.com/restyplane/restyplane/api"
	"maps"
	"slices"
)

// The caCertificate objects of a translation (policies): those the applied
// Ingresses' plans made, written before the backends and servers that name them and
// deleted after them.

// addCACertificates puts into the translation the CA bundles of the plans that apply.
func (m *merge) addCACertificates(plans []*plan) {
	for _, p := range plans {
		for n, c := range p.caCertificates {
			m.t.CACertificates[n] = c
		}
		// The client certificates of proxy-ssl-secret, which backends present.
		for n, c := range p.clientCerts {
			m.t.Certificates[n] = c
		}
	}
}

// caMutations writes the translation's CA bundles that differ from head's.
func caMutations(t *Translation, head *api.State) []api.Mutation {
	var muts []api.Mutation
	for _, n := range slices.Sorted(maps.Keys(t.CACertificates)) {
		c := t.CACertificates[n]
		if cur := head.CACertificates[n]; cur == nil || cur.Cert != c.Cert || cur.Source != c.Source {
			muts = append(muts, api.Mutation{Kind: api.KindCACertificate, Name: n, CACertificate: c})
		}
	}
	return muts
}

// caDeletes deletes the kubernetes-owned CA bundles the translation no longer has, unless
// a REST object still names one.
func caDeletes(t *Translation, head *api.State, used map[api.Ref]bool) []api.Mutation {
	var muts []api.Mutation
	for _, n := range slices.Sorted(maps.Keys(head.CACertificates)) {
		if head.CACertificates[n].Source.Kind == api.SourceKubernetes && t.CACertificates[n] == nil && !used[api.Ref{Kind: api.KindCACertificate, Name: n}] {
			muts = append(muts, api.Mutation{Kind: api.KindCACertificate, Name: n, Delete: true})
		}
	}
	return muts
}
