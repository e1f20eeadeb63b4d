package reconciler

import (
	"maps"
	"reflect"
	"slices"

	"github.com/restyplane/restyplane/api"
)

// mutations compares the translation with the kubernetes-owned objects of head and returns
// the writes that make them equal: nothing when the cluster translates to what the store
// already holds. Objects are written before the servers that refer to them and deleted after.
// A kubernetes-owned backend or certificate that a REST object still refers to is kept: the
// REST object wins, and deleting it would fail the whole write.
func mutations(t *Translation, head *api.State) []api.Mutation {
	// Policies: htpasswd objects before the servers that name them.
	muts := htpasswdMutations(t, head)
	muts = append(muts, caMutations(t, head)...)
	for _, n := range slices.Sorted(maps.Keys(t.Certificates)) {
		c := t.Certificates[n]
		if cur := head.Certificates[n]; cur == nil || !sameCertificate(cur, c) {
			muts = append(muts, api.Mutation{Kind: api.KindCertificate, Name: n, Certificate: c})
		}
	}
	for _, n := range slices.Sorted(maps.Keys(t.Backends)) {
		b := t.Backends[n]
		if cur := head.Backends[n]; cur == nil || !sameBackend(cur, b) {
			muts = append(muts, api.Mutation{Kind: api.KindBackend, Name: n, Backend: b})
		}
	}
	for _, n := range slices.Sorted(maps.Keys(t.Servers)) {
		s := t.Servers[n]
		if cur := head.Servers[n]; cur == nil || !sameServer(cur, s) {
			muts = append(muts, api.Mutation{Kind: api.KindServer, Name: n, Server: s})
		}
	}
	for _, n := range slices.Sorted(maps.Keys(head.Servers)) {
		if head.Servers[n].Source.Kind == api.SourceKubernetes && t.Servers[n] == nil {
			muts = append(muts, api.Mutation{Kind: api.KindServer, Name: n, Delete: true})
		}
	}
	used := usedByREST(head)
	for _, n := range slices.Sorted(maps.Keys(head.Backends)) {
		if head.Backends[n].Source.Kind == api.SourceKubernetes && t.Backends[n] == nil && !used[api.Ref{Kind: api.KindBackend, Name: n}] {
			muts = append(muts, api.Mutation{Kind: api.KindBackend, Name: n, Delete: true})
		}
	}
	for _, n := range slices.Sorted(maps.Keys(head.Certificates)) {
		if head.Certificates[n].Source.Kind == api.SourceKubernetes && t.Certificates[n] == nil && !used[api.Ref{Kind: api.KindCertificate, Name: n}] {
			muts = append(muts, api.Mutation{Kind: api.KindCertificate, Name: n, Delete: true})
		}
	}
	muts = append(muts, caDeletes(t, head, used)...)
	return append(muts, htpasswdDeletes(t, head, used)...)
}

// usedByREST lists the objects that REST-owned servers and backends refer to.
func usedByREST(head *api.State) map[api.Ref]bool {
	used := map[api.Ref]bool{}
	for _, s := range head.Servers {
		if s.Source.Kind == api.SourceKubernetes {
			continue
		}
		if s.TLS != nil && !s.TLS.DefaultCertificate {
			used[api.Ref{Kind: api.KindCertificate, Name: s.TLS.Certificate}] = true
		}
		for _, l := range s.Locations {
			used[api.Ref{Kind: api.KindBackend, Name: l.Backend}] = true
			if l.Auth != nil && l.Auth.Basic != nil { // policies
				used[api.Ref{Kind: api.KindHtpasswd, Name: l.Auth.Basic.Htpasswd}] = true
			}
		}
	}
	for _, b := range head.Backends {
		if b.Source.Kind != api.SourceKubernetes && b.Canary != nil {
			used[api.Ref{Kind: api.KindBackend, Name: b.Canary.Backend}] = true
		}
	}
	return used
}

// sameBackend compares two backends as stored: versions aside, and an empty list equal to
// a missing one, since the store's encoding may turn one into the other.
func sameBackend(a, b *api.Backend) bool {
	x, y := *a, *b
	x.Version, y.Version = 0, 0
	if len(x.Endpoints) == 0 && len(y.Endpoints) == 0 {
		x.Endpoints, y.Endpoints = nil, nil
	}
	return reflect.DeepEqual(x, y)
}

func sameServer(a, b *api.Server) bool {
	x, y := *a, *b
	x.Version, y.Version = 0, 0
	x.Locations, y.Locations = emptyHeaders(x.Locations), emptyHeaders(y.Locations)
	if len(x.Locations) == 0 && len(y.Locations) == 0 {
		x.Locations, y.Locations = nil, nil
	}
	return reflect.DeepEqual(x, y)
}

// emptyHeaders returns locs with empty header lists made nil, copying rather than changing
// objects that the head shares.
func emptyHeaders(locs []api.Location) []api.Location {
	out := make([]api.Location, len(locs))
	copy(out, locs)
	for i := range out {
		if len(out[i].SetHeaders) == 0 {
			out[i].SetHeaders = nil
		}
	}
	return out
}

// sameCertificate compares what the Secret gives; the other fields derive from it.
func sameCertificate(a, b *api.Certificate) bool {
	return a.Cert == b.Cert && a.Key == b.Key && a.Source == b.Source
}
