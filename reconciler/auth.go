package reconciler

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// Auth annotations (policies, issue 11): basic auth from an htpasswd Secret, external auth
// by subrequest. The Secret of auth-secret is an Opaque Secret of the Ingress's own
// namespace, with the htpasswd file under the key "auth" (auth-secret-type auth-file, the
// default) or one key per user whose value is the hash (auth-map).

// authSecretKey is the data key of an auth-file Secret, as in ingress-nginx.
const authSecretKey = "auth"

// authAnnotations is what the auth annotations ask for; the htpasswd object is made from
// the Secret when the Ingress is planned.
type authAnnotations struct {
	auth       *api.LocationAuth
	secret     string // "namespace/name" or "name", as written
	secretType string
}

// parseAuth reads the auth annotations through get.
func parseAuth(get func(string) (string, bool)) (authAnnotations, error) {
	var a authAnnotations
	typ, hasType := get("auth-type")
	secret, hasSecret := get("auth-secret")
	switch {
	case hasType && typ != "basic":
		return a, fmt.Errorf("annotation auth-type: %q is not supported, only basic", typ)
	case hasType && !hasSecret:
		return a, fmt.Errorf("annotation auth-type basic needs auth-secret")
	case !hasType:
		// ingress-nginx would serve the route open; refusing says what is missing.
		for _, n := range []string{"auth-secret", "auth-secret-type", "auth-realm"} {
			if _, ok := get(n); ok {
				return a, fmt.Errorf("annotation %s needs auth-type: basic", n)
			}
		}
	}
	if hasType {
		a.secret, a.secretType = secret, "auth-file"
		if v, ok := get("auth-secret-type"); ok {
			if v != "auth-file" && v != "auth-map" {
				return a, fmt.Errorf("annotation auth-secret-type: %q is not auth-file or auth-map", v)
			}
			a.secretType = v
		}
		realm, _ := get("auth-realm")
		a.auth = &api.LocationAuth{Basic: &api.BasicAuth{Realm: realm}}
	}
	if u, ok := get("auth-url"); ok {
		if err := api.ValidAuthURL("auth-url", u, false); err != nil {
			return a, fmt.Errorf("annotation auth-url: %w", err)
		}
		e := &api.ExternalAuth{URL: u}
		e.Method, _ = get("auth-method")
		e.Signin, _ = get("auth-signin")
		e.RequestRedirect, _ = get("auth-request-redirect")
		if v, ok := get("auth-response-headers"); ok {
			for _, h := range strings.Split(v, ",") {
				if h = strings.TrimSpace(h); h != "" {
					e.ResponseHeaders = append(e.ResponseHeaders, h)
				}
			}
		}
		if a.auth == nil {
			a.auth = &api.LocationAuth{}
		}
		a.auth.External = e
	} else {
		for _, n := range []string{"auth-method", "auth-signin", "auth-response-headers", "auth-request-redirect"} {
			if _, ok := get(n); ok {
				return a, fmt.Errorf("annotation %s needs auth-url", n)
			}
		}
	}
	if a.auth != nil {
		// The htpasswd name is not known yet; any valid name checks the rest.
		check := *a.auth
		if check.Basic != nil {
			b := *check.Basic
			b.Htpasswd = "x"
			check.Basic = &b
		}
		l := api.Location{Path: "/", Backend: "x", Auth: &check}
		if err := (&api.Server{Name: "x", Hostnames: []string{"x"}, Locations: []api.Location{l}}).Validate(); err != nil {
			return a, fmt.Errorf("auth annotations: %w", err)
		}
	}
	return a, nil
}

// authSecretOf returns the "namespace/name" key of the Secret an Ingress's auth-secret
// names, and false when it names none or one of another namespace: a team may use only
// its own Secrets, so the reconciler never reads another namespace's.
func authSecretOf(ing *networkingv1.Ingress) (string, bool) {
	v, ok := ing.Annotations[ownPrefix+"auth-secret"]
	if !ok {
		v, ok = ing.Annotations[nginxPrefix+"auth-secret"]
	}
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return "", false
	}
	ns, name, found := strings.Cut(v, "/")
	if !found {
		ns, name = ing.Namespace, v
	}
	if ns != ing.Namespace {
		return "", false
	}
	return ns + "/" + name, true
}

// planAuth makes the htpasswd object of the Ingress's basic auth and names it in the auth
// its locations get.
func (p *plan) planAuth(snap *Snapshot) error {
	a := p.ann.authAnn
	if a.auth == nil || a.auth.Basic == nil {
		return nil
	}
	key, ok := authSecretOf(p.ing)
	if !ok {
		return fmt.Errorf("%w: annotation auth-secret %q names a Secret of another namespace; an Ingress may use only Secrets of its own namespace (%s)", errRefusedAnnotation, a.secret, p.ing.Namespace)
	}
	s := snap.Secrets[key]
	if s == nil {
		return fmt.Errorf("auth Secret %s not found", key)
	}
	var content string
	if a.secretType == "auth-map" {
		users := sortedKeys(s.Data)
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
	for _, n := range sortedKeys(t.Htpasswds) {
		h := t.Htpasswds[n]
		if cur := head.Htpasswds[n]; cur == nil || cur.Content != h.Content || cur.Source != h.Source {
			muts = append(muts, api.Mutation{Kind: api.KindHtpasswd, Name: n, Htpasswd: h})
		}
	}
	return muts
}

func htpasswdDeletes(t *Translation, head *api.State, used map[api.Ref]bool) []api.Mutation {
	var muts []api.Mutation
	for _, n := range sortedKeys(head.Htpasswds) {
		if head.Htpasswds[n].Source.Kind == api.SourceKubernetes && t.Htpasswds[n] == nil && !used[api.Ref{Kind: api.KindHtpasswd, Name: n}] {
			muts = append(muts, api.Mutation{Kind: api.KindHtpasswd, Name: n, Delete: true})
		}
	}
	return muts
}

// authSecretKeys lists the auth Secret an Ingress uses, for the informer's index and the
// plan's version.
func authSecretKeys(ing *networkingv1.Ingress) []string {
	if k, ok := authSecretOf(ing); ok {
		return []string{k}
	}
	return nil
}
