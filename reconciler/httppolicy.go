package reconciler

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// CORS, redirect and upstream HTTP annotations (policies).

// httpAnnotations is what they ask for: CORS and a redirect on every location of the
// Ingress; app root, forced HTTPS and the www redirect on each of its hosts' servers.
type httpAnnotations struct {
	cors     *api.CORS
	redirect *api.Redirect
	// connection is the Connection header connection-proxy-header sets upstream.
	connection string
	appRoot    string
	forceSSL   bool
	www        bool
	// ignored lists cors-* annotations written without enable-cors, which ingress-nginx
	// also serves without.
	ignored []string
}

// httpGroup: CORS, redirects and upstream HTTP on the locations; app root, forced HTTPS
// and the www redirect on the hosts.
var httpGroup = annotationGroup{name: "http", scope: scopeLocation, rules: map[string]annotationRule{
	"enable-cors":        honoured("a preflight is answered 204 by the proxy; other requests get the CORS headers on the upstream's answer"),
	"cors-allow-origin":  honoured("*, or origins http(s)://host[:port], a host may start with *. for one subdomain label"),
	"cors-allow-methods": honoured(""), "cors-allow-headers": honoured("header names (RFC 9110 tokens; * is the Fetch wildcard)"),
	"cors-expose-headers": honoured("header names (letters, digits, '-')"), "cors-allow-credentials": honoured(""),
	"cors-max-age":            honoured(""),
	"permanent-redirect":      honoured("an absolute http(s) URL or a path, no nginx variables; the location needs no upstream then"),
	"permanent-redirect-code": honoured("301, 302, 303, 307 or 308"), "temporal-redirect": honoured("as permanent-redirect; not with it"),
	"temporal-redirect-code": honoured("301, 302, 303, 307 or 308"), "app-root": honoured("a path; for the whole host, the oldest Ingress's").at(scopeHost),
	"from-to-www-redirect":    honoured("308; only when no other Ingress, namespace or REST server holds the other name").at(scopeHost),
	"force-ssl-redirect":      honoured("308 for the whole host when any of its Ingresses asks; by the connection's scheme, or by X-Forwarded-Proto with useForwardedHeaders").at(scopeHost),
	"proxy-http-version":      honoured("1.1 only, which restyplane always speaks (1.0 is refused)"),
	"connection-proxy-header": honoured("the Connection header sent upstream"),
}, parse: func(get func(string) (string, bool), a *annotations) (err error) {
	if a.http, err = parseHTTPPolicies(get); err != nil {
		return err
	}
	a.ignored = append(a.ignored, a.http.ignored...)
	return nil
}}

// parseHTTPPolicies reads the CORS, redirect, app-root, www, force-ssl-redirect,
// proxy-http-version and connection-proxy-header annotations through get.
func parseHTTPPolicies(get func(string) (string, bool)) (httpAnnotations, error) {
	var a httpAnnotations
	var err error
	if a.cors, err = parseCORS(get, &a.ignored); err != nil {
		return a, err
	}
	if a.redirect, err = parseRedirect(get); err != nil {
		return a, err
	}
	if v, ok := get("app-root"); ok {
		srv := api.Server{Name: "x", Hostnames: []string{"x.test"}, AppRoot: v}
		if err := srv.Validate(); err != nil {
			return a, fmt.Errorf("annotation app-root: %w", err)
		}
		a.appRoot = v
	}
	for name, dst := range map[string]*bool{"force-ssl-redirect": &a.forceSSL, "from-to-www-redirect": &a.www} {
		if v, ok := get(name); ok {
			if *dst, err = strconv.ParseBool(v); err != nil {
				return a, fmt.Errorf("annotation %s: %q is not true or false", name, v)
			}
		}
	}
	if v, ok := get("proxy-http-version"); ok && v != "1.1" {
		return a, fmt.Errorf("annotation proxy-http-version: %q is not supported: restyplane speaks HTTP/1.1 to upstreams, which keepalive and WebSocket need", v)
	}
	if v, ok := get("connection-proxy-header"); ok {
		if err := api.ValidHeaderValue("connection-proxy-header", v); err != nil || v == "" {
			return a, fmt.Errorf("annotation connection-proxy-header: %q must be a header value such as keep-alive or close", v)
		}
		a.connection = v
	}
	// The location and server grammars check the rest, on a stand-in server.
	l := api.Location{Path: "/", Backend: "x"}
	a.location(&l)
	srv := &api.Server{Name: "x", Hostnames: []string{"x.test"}, Locations: []api.Location{l}, AppRoot: a.appRoot, WWWRedirect: a.www}
	if err := srv.Validate(); err != nil {
		return a, fmt.Errorf("redirect and CORS annotations together: %w", err)
	}
	return a, nil
}

// location puts the location policies on l.
func (a *httpAnnotations) location(l *api.Location) {
	l.CORS, l.Redirect = a.cors, a.redirect
	if a.connection != "" {
		l.SetHeaders = []api.Header{{Name: "Connection", Value: a.connection}}
	}
}

// parseCORS reads the cors-* annotations, each checked by api's grammar under its own
// name; without enable-cors: true they are listed as ignored, as ingress-nginx serves
// them.
func parseCORS(get func(string) (string, bool), ignored *[]string) (*api.CORS, error) {
	on := false
	if v, ok := get("enable-cors"); ok {
		var err error
		if on, err = strconv.ParseBool(v); err != nil {
			return nil, fmt.Errorf("annotation enable-cors: %q is not true or false", v)
		}
	}
	c := &api.CORS{}
	var set []string
	list := func(name string, dst *[]string, upper bool) error {
		v, ok := get(name)
		if !ok {
			return nil
		}
		set = append(set, name)
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				if upper {
					s = strings.ToUpper(s)
				}
				*dst = append(*dst, s)
			}
		}
		one := api.CORS{}
		switch name {
		case "cors-allow-origin":
			one.AllowOrigins = *dst
		case "cors-allow-methods":
			one.AllowMethods = *dst
		case "cors-allow-headers":
			one.AllowHeaders = *dst
		default:
			one.ExposeHeaders = *dst
		}
		l := api.Location{Path: "/", Backend: "x", CORS: &one}
		if err := (&api.Server{Name: "x", Hostnames: []string{"x.test"}, Locations: []api.Location{l}}).Validate(); err != nil {
			return fmt.Errorf("annotation %s: %w", name, err)
		}
		return nil
	}
	for _, f := range []struct {
		name  string
		dst   *[]string
		upper bool
	}{{"cors-allow-origin", &c.AllowOrigins, false}, {"cors-allow-methods", &c.AllowMethods, true},
		{"cors-allow-headers", &c.AllowHeaders, false}, {"cors-expose-headers", &c.ExposeHeaders, false}} {
		if err := list(f.name, f.dst, f.upper); err != nil {
			return nil, err
		}
	}
	if v, ok := get("cors-allow-credentials"); ok {
		set = append(set, "cors-allow-credentials")
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("annotation cors-allow-credentials: %q is not true or false", v)
		}
		c.AllowCredentials = &b
	}
	if v, ok := get("cors-max-age"); ok {
		set = append(set, "cors-max-age")
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("annotation cors-max-age: %q is not a positive number of seconds", v)
		}
		c.MaxAge = n
	}
	if !on {
		for _, n := range set {
			*ignored = append(*ignored, n+": enable-cors is not true, so CORS is off (as in ingress-nginx)")
		}
		return nil, nil
	}
	// Defaults now, in the plan's own copy: a cached plan's objects are shared, and
	// Normalize in the merge must find nothing left to fill in.
	(&api.Server{Locations: []api.Location{{CORS: c}}}).Normalize()
	return c, nil
}

// parseRedirect reads permanent-redirect (301 unless permanent-redirect-code says
// otherwise) and temporal-redirect (302 unless temporal-redirect-code); both at once are
// refused, since which one wins is not obvious.
func parseRedirect(get func(string) (string, bool)) (*api.Redirect, error) {
	perm, hasPerm := get("permanent-redirect")
	temp, hasTemp := get("temporal-redirect")
	if hasPerm && hasTemp {
		return nil, fmt.Errorf("annotations permanent-redirect and temporal-redirect: set one of them, not both")
	}
	if _, ok := get("permanent-redirect-code"); ok && hasTemp {
		return nil, fmt.Errorf("annotation permanent-redirect-code goes with permanent-redirect, and this Ingress sets temporal-redirect (use temporal-redirect-code)")
	}
	r := &api.Redirect{URL: perm, Code: 301}
	prefix := "permanent"
	if hasTemp {
		r, prefix = &api.Redirect{URL: temp, Code: 302}, "temporal"
	}
	codeName := prefix + "-redirect-code"
	if v, ok := get(codeName); ok {
		n, err := strconv.Atoi(v)
		if err != nil || (n != 301 && n != 302 && n != 303 && n != 307 && n != 308) {
			return nil, fmt.Errorf("annotation %s: %q is not 301, 302, 303, 307 or 308", codeName, v)
		}
		if !hasPerm && !hasTemp {
			return nil, fmt.Errorf("annotation %s needs %s-redirect", codeName, prefix)
		}
		r.Code = n
	}
	if !hasPerm && !hasTemp {
		if _, ok := get("temporal-redirect-code"); ok {
			return nil, fmt.Errorf("annotation temporal-redirect-code needs temporal-redirect")
		}
		return nil, nil
	}
	if err := api.ValidRedirectURL(prefix+"-redirect", r.URL); err != nil {
		return nil, fmt.Errorf("annotation %s-redirect: %w", prefix, err)
	}
	return r, nil
}
