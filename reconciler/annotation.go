package reconciler

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// The annotation prefixes the reconciler reads. ingress-nginx's lets teams move their
// Ingresses over unchanged; restyplane's own wins where both set the same annotation.
const (
	nginxPrefix = "nginx.ingress.kubernetes.io/"
	ownPrefix   = "restyplane.io/"
)

// errSnippet marks an Ingress refused for its snippet annotations, errRefusedAnnotation
// one refused for an annotation that restricts access or protects traffic.
var (
	errSnippet           = errors.New("snippet")
	errRefusedAnnotation = errors.New("refused annotation")
)

// annotations is what an Ingress's annotations ask for.
type annotations struct {
	loadBalance string
	hashBy      string
	affinity    *api.Affinity
	canary      *api.Canary // Backend is filled in when the canary is matched to its main
	rewrite     string
	// rewriteCaptures says rewrite names capture groups ($1-$9): the Ingress's paths are
	// then regexes, as ingress-nginx makes them.
	rewriteCaptures bool
	timeouts        *api.Timeouts
	// sslRedirect is whether plain HTTP is redirected to HTTPS on the Ingress's TLS hosts.
	sslRedirect bool
	// sslPassthrough hands the TLS connections of the Ingress's hosts to a backend.
	sslPassthrough bool
	// ignored are the annotations the Ingress is served without, as "name: why"; unknown
	// those of them that are not ingress-nginx's (see unknownannotation.go).
	ignored, unknown []string
	// Policies: authAnn is what the auth annotations say; auth is the policy
	// the Ingress's locations get, its htpasswd named once planAuth read the Secret.
	authAnn authAnnotations
	auth    *api.LocationAuth
	// clientTLS is what auth-tls-* ask of the Ingress's hosts, its CA not yet named.
	clientTLS *api.ClientTLS
	// up is what the upstream annotations ask for, see upstream.go.
	up upstreamAnnotations
	// access and limits are the access lists and limits per client address.
	access *api.AccessPolicy
	limits *api.LocationLimits
	// waf is the web application firewall of the Ingress's locations (policies).
	waf *api.WAF
	// http is what the CORS, redirect and upstream HTTP annotations ask.
	http httpAnnotations
	// pol is what the body, retry, errors and matching annotations say.
	pol proxyAnnotations
	// snippet is what the translated snippets ask, nil without one.
	snippet *snippetFields
}

// parseAnnotations reads the annotations under both prefixes, as annotationTable classes
// them, each group by its own parser (annotationGroups). It refuses snippets (raw nginx configuration was how most ingress-nginx CVEs got
// in), annotations that restrict access or protect traffic and are not implemented,
// unknown restyplane.io annotations, and values outside api's grammars; it lists the
// ignored ones.
func parseAnnotations(in map[string]string) (annotations, error) {
	a := annotations{sslRedirect: true}
	vals := map[string]string{}
	var snippets, refusals []string
	for _, v := range annotationVerdicts(in) {
		name := strings.TrimPrefix(strings.TrimPrefix(v.Name, nginxPrefix), ownPrefix)
		switch v.Verdict {
		case api.VerdictRefused:
			if name == "configuration-snippet" || name == "server-snippet" || name == "auth-snippet" {
				snippets = append(snippets, v.Name+": "+v.Why)
			} else if strings.HasSuffix(name, "-snippet") && v.Why == whySnippet {
				snippets = append(snippets, v.Name)
			} else {
				refusals = append(refusals, v.Name+" ("+v.Why+")")
			}
		case api.VerdictIgnored:
			if strings.HasPrefix(v.Name, nginxPrefix) && isUnknownAnnotation(name) {
				a.unknown = append(a.unknown, v.Name+": "+v.Why)
				continue
			}
			a.ignored = append(a.ignored, v.Name+": "+v.Why)
		case api.VerdictHonoured, api.VerdictTranslated:
			// restyplane.io/ comes after nginx.ingress.kubernetes.io/ in the sorted list
			// and wins.
			vals[name] = v.Value
		}
	}
	if len(snippets) > 0 {
		return a, fmt.Errorf("%w annotations are refused (%s): raw nginx configuration is not accepted; use the typed annotations or settings", errSnippet, strings.Join(snippets, ", "))
	}
	if len(refusals) > 0 {
		return a, fmt.Errorf("%w: %s", errRefusedAnnotation, strings.Join(refusals, "; "))
	}
	get := func(name string) (string, bool) { v, ok := vals[name]; return strings.TrimSpace(v), ok }
	for _, g := range annotationGroups {
		if g.parse == nil {
			continue
		}
		if err := g.parse(get, &a); err != nil {
			return a, err
		}
	}
	return a, nil
}

// balanceGroup: how a backend spreads requests over its endpoints; affinityGroup pins
// clients to them.
var balanceGroup = annotationGroup{name: "balancing", scope: scopeBackend, parse: parseBalance, rules: map[string]annotationRule{
	"load-balance": honoured("round_robin or ewma"), "upstream-hash-by": honoured("consistent hashing by one nginx variable"),
	"upstream-hash-by-subset": ignored(whyNotImpl), "upstream-hash-by-subset-size": ignored(whyNotImpl),
}}

// parseBalance reads load-balance and upstream-hash-by.
func parseBalance(get func(string) (string, bool), a *annotations) error {
	if v, ok := get("load-balance"); ok {
		if v != api.RoundRobin && v != api.EWMA {
			return fmt.Errorf("annotation load-balance: %q is not round_robin or ewma", v)
		}
		a.loadBalance = v
	}
	if v, ok := get("upstream-hash-by"); ok {
		if err := api.ValidVariable("upstream-hash-by", v); err != nil {
			return fmt.Errorf("annotation upstream-hash-by: %q must be one nginx variable like $request_uri", v)
		}
		// As in ingress-nginx, hashing takes precedence over load-balance.
		a.loadBalance, a.hashBy = api.CHash, v
	}
	return nil
}

// canaryGroup: an Ingress that takes a share of another's traffic.
var canaryGroup = annotationGroup{name: "canary", scope: scopeBackend, rules: map[string]annotationRule{
	"canary": honoured("canary by weight, header or cookie"), "canary-weight": honoured(""), "canary-by-header": honoured(""),
	"canary-by-header-value": honoured(""), "canary-by-cookie": honoured(""),
	"affinity-canary-behavior": ignored(whyNotImpl), "canary-by-header-pattern": ignored(whyNotImpl),
	"canary-weight-total": ignored(whyNotImpl),
}, parse: func(get func(string) (string, bool), a *annotations) (err error) {
	a.canary, err = parseCanary(get)
	return err
}}

// rewriteGroup: the path sent upstream.
var rewriteGroup = annotationGroup{name: "rewrite", scope: scopeLocation, parse: parseRewrite, rules: map[string]annotationRule{
	"rewrite-target":          honoured("a path; with $1-$9 (/$2 on a path with two groups) the Ingress's paths become regexes and the whole path is rewritten with their groups, as in ingress-nginx, and a group the path lacks refuses the Ingress; a plain path replaces only a Prefix path's prefix, where ingress-nginx replaces the whole path; an http(s) URL, which nginx's rewrite answers with a redirect, makes each path a 302 there; its $1-$9 name the path's groups, and then the request's query is kept"),
	"preserve-trailing-slash": ignored(whyNotImpl),
}}

// parseRewrite reads rewrite-target.
func parseRewrite(get func(string) (string, bool), a *annotations) error {
	if v, ok := get("rewrite-target"); ok {
		// With $1-$9 the rewrite is checked per path, against the groups each one has.
		a.rewriteCaptures = strings.Contains(v, "$")
		if redirectsTo(v) {
			// Checked per path, as a redirect of the path's location.
			a.rewrite = v
			return nil
		}
		if err := api.ValidPath("rewrite-target", v); err != nil && !a.rewriteCaptures {
			return fmt.Errorf("annotation rewrite-target: %q must be a path such as / or /$2: %w", printableValue(v), err)
		}
		a.rewrite = v
	}
	return nil
}

// redirectsTo says whether a rewrite-target is a URL: nginx's rewrite answers a
// replacement that starts with http:// or https:// with a redirect (302) there.
func redirectsTo(target string) bool {
	return strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://")
}

// sslRedirectGroup: the client's TLS connection.
var sslRedirectGroup = annotationGroup{name: "tls", scope: scopeHost, parse: parseSSLRedirect, rules: map[string]annotationRule{
	"ssl-redirect":    honoured("308 to HTTPS on the Ingress's TLS hosts, true unless set false"),
	"ssl-passthrough": honoured("true hands each host's TLS connections, untouched, to the backend of its \"/\" path (else its first path), by the name the client sends (SNI): the client sees the backend's certificate, the Ingress's TLS entries for the host are not used, plain HTTP is still served by its paths; every Ingress of a host must agree"),
	"ssl-ciphers":     refused(whyTLS), "ssl-prefer-server-ciphers": refused(whyTLS),
}}

// parseSSLRedirect reads ssl-redirect and ssl-passthrough.
func parseSSLRedirect(get func(string) (string, bool), a *annotations) error {
	if v, ok := get("ssl-redirect"); ok {
		var err error
		if a.sslRedirect, err = strconv.ParseBool(v); err != nil {
			return fmt.Errorf("annotation ssl-redirect: %q is not true or false", v)
		}
	}
	if v, ok := get("ssl-passthrough"); ok {
		var err error
		if a.sslPassthrough, err = strconv.ParseBool(v); err != nil {
			return fmt.Errorf("annotation ssl-passthrough: %q is not true or false", printableValue(v))
		}
	}
	return nil
}

// parseCanary reads the canary annotations; it returns nil when the Ingress is no canary.
func parseCanary(get func(string) (string, bool)) (*api.Canary, error) {
	v, ok := get("canary")
	if !ok {
		return nil, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return nil, fmt.Errorf("annotation canary: %q is not true or false", v)
	}
	if !on {
		return nil, nil
	}
	c := &api.Canary{}
	if v, ok := get("canary-weight"); ok {
		if c.Weight, err = strconv.Atoi(v); err != nil || c.Weight < 0 || c.Weight > 100 {
			return nil, fmt.Errorf("annotation canary-weight: %q is not a percentage 0-100", v)
		}
	}
	if v, ok := get("canary-by-header"); ok {
		if err := api.ValidHeaderName("canary-by-header", v); err != nil {
			return nil, fmt.Errorf("annotation canary-by-header: %w", err)
		}
		c.Header = v
	}
	if v, ok := get("canary-by-header-value"); ok {
		if c.Header == "" {
			return nil, fmt.Errorf("annotation canary-by-header-value needs canary-by-header")
		}
		if err := api.ValidHeaderValue("canary-by-header-value", v); err != nil {
			return nil, fmt.Errorf("annotation canary-by-header-value: %w", err)
		}
		c.HeaderValue = v
	}
	if v, ok := get("canary-by-cookie"); ok {
		if err := api.ValidCookieName("canary-by-cookie", v); err != nil {
			return nil, fmt.Errorf("annotation canary-by-cookie: %w", err)
		}
		c.Cookie = v
	}
	return c, nil
}

// timeoutGroup: how long the proxy waits for the upstream.
var timeoutGroup = annotationGroup{name: "timeouts", scope: scopeLocation, rules: map[string]annotationRule{
	"proxy-connect-timeout": honoured(""), "proxy-read-timeout": honoured(""), "proxy-send-timeout": honoured(""),
}, parse: func(get func(string) (string, bool), a *annotations) (err error) {
	a.timeouts, err = parseTimeouts(get)
	return err
}}

// parseTimeouts reads the proxy timeouts: whole seconds as ingress-nginx writes them, or a
// duration in nginx notation.
func parseTimeouts(get func(string) (string, bool)) (*api.Timeouts, error) {
	var t api.Timeouts
	for _, f := range []struct {
		name string
		dst  *string
	}{{"proxy-connect-timeout", &t.Connect}, {"proxy-read-timeout", &t.Read}, {"proxy-send-timeout", &t.Send}} {
		v, ok := get(f.name)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			v += "s"
		}
		if err := api.ValidDuration(f.name, v); err != nil {
			return nil, fmt.Errorf("annotation %s: %q is not a number of seconds or a duration like 500ms", f.name, v)
		}
		*f.dst = v
	}
	if t == (api.Timeouts{}) {
		return nil, nil
	}
	return &t, nil
}
