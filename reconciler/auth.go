package reconciler

import (
	"fmt"
	"net/url"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// Auth annotations (policies): basic auth from an htpasswd Secret, external auth
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

// authGroup: basic and external auth.
var authGroup = annotationGroup{name: "auth", scope: scopeLocation, rules: map[string]annotationRule{
	"auth-type": honoured("basic (digest is refused)"), "auth-secret": honoured("an Opaque Secret of the Ingress's own namespace, or of another one whose ReferenceGrant lets the Ingress use it; refused otherwise"),
	"auth-secret-type": honoured("auth-file or auth-map"), "auth-realm": honoured(""),
	"auth-url": honoured("http(s)://host[:port][/path][?query]; the path and query may name $host, $http_host, $best_http_host, $scheme, $pass_access_scheme, $request_uri, $escaped_request_uri, the host may not (the auth Service's name is resolved under the address rules)"), "auth-method": honoured(""),
	"auth-signin":           honoured("a 401 redirects there with rd=<the original URL> unless its query has rd; it may name the variables auth-url may, its host too ($host, $http_host, $best_http_host)"),
	"auth-response-headers": honoured(""), "auth-request-redirect": honoured("sent as X-Auth-Request-Redirect"),
	"auth-cache-key": refused(whyAuthCache), "auth-cache-duration": refused(whyAuthCache),
	"auth-proxy-set-headers":     refused(whyAccess),
	"auth-signin-redirect-param": refused(whyAccess), "auth-always-set-cookie": refused(whyAccess),
	"auth-keepalive": refused(whyAccess), "auth-keepalive-requests": refused(whyAccess), "auth-keepalive-timeout": refused(whyAccess),
	"auth-keepalive-share-vars": refused(whyAccess),
	"enable-global-auth":        ignored("restyplane has no global auth to switch off"),
	"auth-snippet":              translated(whyAuthSnippet),
}, parse: func(get func(string) (string, bool), a *annotations) (err error) {
	if a.authAnn, err = parseAuth(get); err != nil {
		return err
	}
	a.auth = a.authAnn.auth
	return nil
}}

// whyAuthSnippet: how auth-snippet is read.
const whyAuthSnippet = "read by the strict tokenizer of snippets; proxy_set_header becomes a request header of the auth subrequest " +
	"(replacing the proxy's own of that name), its value text and variables of a fixed list ($request_method, $request_uri, $remote_addr, $http_host…); " +
	"any other directive refuses the Ingress, named (lua_*, include, if, unknown ones); needs auth-url"

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
		if err := api.ValidExternalAuthURL("auth-url", u); err != nil {
			return a, fmt.Errorf("annotation auth-url: %w", err)
		}
		// The proxy sends the subrequest, with the client's headers, where the URL says:
		// a tenant may not point it at this machine or the cloud's metadata service, by
		// the rule ExternalName Services follow (a name is checked again when it resolves).
		if pu, err := url.Parse(u); err == nil {
			if why := externalNameRefusal(pu.Hostname()); why != "" {
				return a, fmt.Errorf("annotation auth-url: %s", why)
			}
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
		if v, ok := get("auth-snippet"); ok {
			s, err := translateAuthSnippet(v)
			if err != nil {
				return a, fmt.Errorf("annotation auth-snippet: %w", err)
			}
			e.RequestHeaders = s.headers
		}
		if a.auth == nil {
			a.auth = &api.LocationAuth{}
		}
		a.auth.External = e
	} else {
		for _, n := range []string{"auth-method", "auth-signin", "auth-response-headers", "auth-request-redirect", "auth-snippet"} {
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
// names, and false when it names none. Another namespace's is used only where a
// ReferenceGrant lets the Ingress use it (secretPermitted).
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
	if api.ValidNamespace("auth-secret", ns) != nil || api.ValidName("auth-secret", name) != nil {
		return "", false
	}
	return ns + "/" + name, true
}

// authSecretKeys lists the auth Secret an Ingress uses, for the informer's index and the
// plan's version.
func authSecretKeys(ing *networkingv1.Ingress) []string {
	if k, ok := authSecretOf(ing); ok {
		return []string{k}
	}
	return nil
}
