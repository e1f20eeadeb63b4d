package reconciler

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// The htpasswd objects of basic auth (policies): made from an Ingress's auth
// Secret when it is planned, put into the translation for the servers that name them, and
// written before those servers and deleted after them.

// planAuth makes the htpasswd object of the Ingress's basic auth and names it in the auth
// its locations get.
func (p *plan) planAuth(snap *Snapshot) error {
	a := p.ann.authAnn
	if a.auth == nil || a.auth.Basic == nil {
		return nil
	}
	key, ok := authSecretOf(p.ing)
	if !ok {
		return fmt.Errorf("%w: annotation auth-secret %q is not a Secret name or namespace/name", errRefusedAnnotation, a.secret)
	}
	if err := secretPermitted(p.ing, "auth-secret", key, snap); err != nil {
		return err
	}
	s := snap.Secrets[key]
	if s == nil {
		return fmt.Errorf("auth Secret %s not found", key)
	}
	var content string
	if a.secretType == "auth-map" {
		users := slices.Sorted(maps.Keys(s.Data))
		for _, u := range users {
			content += u + ":" + strings.TrimSpace(string(s.Data[u])) + "\n"
		}
	} else {
		content = string(s.Data[authSecretKey])
		if content == "" {
			return fmt.Errorf("auth Secret %s has no %q key", key, authSecretKey)
		}
	}
	ns, name, _ := strings.Cut(key, "/")
	h := &api.Htpasswd{Name: htpasswdName(ns, name), Content: strings.TrimRight(content, "\n") + "\n",
		Source: api.Source{Kind: api.SourceKubernetes, Namespace: ns, Name: name, UID: string(s.UID)}}
	if err := h.Validate(); err != nil {
		return fmt.Errorf("auth Secret %s: %w", key, err)
	}
	p.htpasswds = map[string]*api.Htpasswd{h.Name: h}
	auth := *a.auth
	basic := *auth.Basic
	basic.Htpasswd = h.Name
	auth.Basic = &basic
	p.ann.auth = &auth
	return nil
}

// htpasswdName names the htpasswd object of one auth Secret.
func htpasswdName(namespace, secret string) string {
	return objectName(namespace + "." + secret)
}

// addHtpasswds puts into the translation the htpasswd objects its servers' locations name.
func (m *merge) addHtpasswds(plans []*plan) {
	all := map[string]*api.Htpasswd{}
	for _, p := range plans {
		for n, h := range p.htpasswds {
			all[n] = h
		}
	}
	for _, s := range m.t.Servers {
		for _, l := range s.Locations {
			if l.Auth != nil && l.Auth.Basic != nil && all[l.Auth.Basic.Htpasswd] != nil {
				m.t.Htpasswds[l.Auth.Basic.Htpasswd] = all[l.Auth.Basic.Htpasswd]
			}
		}
	}
}

// htpasswdMutations writes the translation's htpasswd objects that differ from head's;
// htpasswdDeletes deletes the kubernetes-owned ones it no longer has, after the servers.
func htpasswdMutations(t *Translation, head *api.State) []api.Mutation {
	var muts []api.Mutation
	for _, n := range slices.Sorted(maps.Keys(t.Htpasswds)) {
		h := t.Htpasswds[n]
		if cur := head.Htpasswds[n]; cur == nil || cur.Content != h.Content || cur.Source != h.Source {
			muts = append(muts, api.Mutation{Kind: api.KindHtpasswd, Name: n, Htpasswd: h})
		}
	}
	return muts
}

func htpasswdDeletes(t *Translation, head *api.State, used map[api.Ref]bool) []api.Mutation {
	var muts []api.Mutation
	for _, n := range slices.Sorted(maps.Keys(head.Htpasswds)) {
		if head.Htpasswds[n].Source.Kind == api.SourceKubernetes && t.Htpasswds[n] == nil && !used[api.Ref{Kind: api.KindHtpasswd, Name: n}] {
			muts = append(muts, api.Mutation{Kind: api.KindHtpasswd, Name: n, Delete: true})
		}
	}
	return muts
}
