package reconciler

import (
	"sort"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// annotationRule is what restyplane does with one annotation name (without prefix).
type annotationRule struct {
	verdict string // api.VerdictHonoured, api.VerdictRefused or api.VerdictIgnored
	why     string
	// harmless, for a refused rule, names the values that ask for nothing restyplane lacks
	// (backend-protocol HTTP, a protection switched off): they are honoured or ignored.
	harmless func(value string) (verdict string, ok bool)
	// refuseValue, for an honoured rule, says why a value is refused, "" if it is not
	// (backend-protocol AJP).
	refuseValue func(value string) string
	// scope, for an honoured rule, is where it applies (scopeLocation, ...); its group's
	// unless the rule says otherwise.
	scope string
}

// Shorthands for the table.
func honoured(why string) annotationRule {
	return annotationRule{verdict: api.VerdictHonoured, why: why}
}
func refused(why string) annotationRule { return annotationRule{verdict: api.VerdictRefused, why: why} }
func ignored(why string) annotationRule { return annotationRule{verdict: api.VerdictIgnored, why: why} }

// offIsHarmless makes a refused switch harmless when it is switched off.
func offIsHarmless(r annotationRule) annotationRule {
	r.harmless = func(v string) (string, bool) {
		if strings.EqualFold(strings.TrimSpace(v), "false") {
			return api.VerdictIgnored, true
		}
		return "", false
	}
	return r
}

// Reasons shared by many rows.
const (
	whyAccess   = "restricts access, and restyplane does not implement it: serving the Ingress without it would make its route public"
	whyLimit    = "limits traffic, and restyplane does not implement it: serving the Ingress without it would drop that protection"
	whyBackend  = "protects the traffic to the backend, and restyplane does not implement it"
	whyTLS      = "protects the client's TLS connection, and restyplane does not implement it"
	whySnippet  = "raw nginx configuration is not accepted (most ingress-nginx CVEs came in this way); use the typed annotations or settings"
	whyNotImpl  = "not implemented; the Ingress is served without it"
	whyGlobal   = "not implemented per Ingress; restyplane's settings apply"
	whyUnknownR = "unknown restyplane.io annotation: a typo would otherwise be ignored silently"
	// whyCIDRs: how access list annotations are read.
	whyCIDRs = "comma-separated IPv4/IPv6 CIDRs or addresses, strictly parsed (no bits past the prefix length); the client address is the trusted proxy's header only where settings name trusted proxies"
	// whyAuthCache: caching auth answers is not implemented safely yet.
	whyAuthCache = "caching auth answers is not implemented: its key is nginx variable text written by users (raw nginx), and a cached allow outlives a revoked login"
)

// Where an honoured annotation applies.
const (
	// scopeLocation: the locations of the Ingress's paths.
	scopeLocation = "location"
	// scopeBackend: the backend of each Service the Ingress routes to.
	scopeBackend = "backend"
	// scopeHost: each of the Ingress's hosts, which its other Ingresses share.
	scopeHost = "host"
	// scopeIngress: how the Ingress's own paths are read.
	scopeIngress = "ingress"
)

// at gives a rule a scope other than its group's.
func (r annotationRule) at(scope string) annotationRule {
	r.scope = scope
	return r
}

// annotationGroup is one group of annotations declared beside the parser that reads it,
// as ingress-nginx's parser.Annotation groups are: each annotation's rule (verdict,
// scope, why, the values it refuses), and parse, which reads the group's honoured
// annotations into what the Ingress asks for. Adding an annotation is adding its row to
// its group and reading it in that group's parser; annotationTable and the README's
// table follow.
type annotationGroup struct {
	name string
	// scope is where the group's honoured annotations apply, unless a rule says otherwise.
	scope string
	rules map[string]annotationRule
	// parse reads the group's honoured annotations through get into a; nil for a group
	// that only refuses or ignores.
	parse func(get func(string) (string, bool), a *annotations) error
}

// annotationGroups are every group, in the order parseAnnotations reads them: the error
// of an earlier group is the one an Ingress is refused with.
var annotationGroups = []annotationGroup{balanceGroup, affinityGroup, canaryGroup, rewriteGroup, timeoutGroup, sslRedirectGroup,
	authGroup, clientTLSGroup, accessGroup, limitGroup, httpGroup, proxyGroup, upstreamGroup,
	snippetGroup, wafGroup, observabilityGroup, unimplementedGroup, foreignGroup}

// annotationTable classifies every ingress-nginx annotation restyplane knows, by name
// without prefix; the same names under restyplane.io/ mean the same. It is assembled from
// annotationGroups; the README's table is checked against it by a test.
var annotationTable = assembleTable(annotationGroups)

// assembleTable merges the groups' rules, each honoured one with its scope. A name that
// two groups declare is a programming error, caught when the package loads.
func assembleTable(groups []annotationGroup) map[string]annotationRule {
	t := map[string]annotationRule{}
	for _, g := range groups {
		for name, r := range g.rules {
			if _, dup := t[name]; dup {
				panic("annotation " + name + " is declared twice (group " + g.name + ")")
			}
			if r.verdict == api.VerdictHonoured && r.scope == "" {
				r.scope = g.scope
			}
			t[name] = r
		}
	}
	return t
}

// snippetGroup: raw nginx configuration, never injected. configuration-snippet and
// server-snippet are translated into typed fields when every directive has one (see
// snippettranslate.go) and refused otherwise, naming the directive; modsecurity-snippet
// is the WAF group's and auth-snippet the auth group's; stream-snippet is refused
// whatever its value.
var snippetGroup = annotationGroup{name: "snippets", scope: scopeLocation, parse: parseSnippets, rules: map[string]annotationRule{
	"configuration-snippet": translated(whyTranslated + "; on every location of the Ingress"),
	"server-snippet":        translated(whyTranslated + "; its directives on every location of the Ingress, its location blocks (which must answer themselves: return, deny all, a redirect) on each of the Ingress's hosts"),
	"stream-snippet":        refused(whySnippet),
}}

// whyTranslated: how snippets are read.
const whyTranslated = "read by a strict tokenizer of nginx's syntax and translated into typed fields when every directive has one " +
	"(headers set/add/remove, their values text and variables of a fixed list: $req_id, $request_id, $remote_addr, $scheme, $host, $ssl_client_s_dn, $ssl_client_verify…; " +
	"return, deny all, redirects, expires, the response cache, buffer sizes, timeouts, server_tokens off); " +
	"refused otherwise, naming the directive (lua_*, include, load_module, if, unknown ones)"

// translated is a snippet's rule: classify translates or refuses it by its value.
func translated(why string) annotationRule {
	return annotationRule{verdict: api.VerdictTranslated, why: why}
}

// observabilityGroup: logs, traces and metrics, which restyplane's settings and /metrics
// cover for every Ingress at once.
var observabilityGroup = annotationGroup{name: "observability", rules: map[string]annotationRule{
	"enable-access-log":  ignored(whyGlobal),
	"enable-rewrite-log": ignored(whyGlobal), "enable-opentelemetry": ignored(whyGlobal),
	"opentelemetry-trust-incoming-span": ignored(whyGlobal), "enable-opentracing": ignored(whyGlobal),
	"opentelemetry-operation-name":    ignored(whyGlobal),
	"opentracing-trust-incoming-span": ignored(whyGlobal),
	// In ingress-nginx's annotation list: metrics to InfluxDB, which restyplane
	// does not send; its own metrics are on /metrics.
	"enable-influxdb": ignored(whyInflux), "influxdb-measurement": ignored(whyInflux), "influxdb-port": ignored(whyInflux),
	"influxdb-host": ignored(whyInflux), "influxdb-server-name": ignored(whyInflux),
}}

// foreignGroup: names found on real Ingresses under ingress-nginx's prefix that
// ingress-nginx never had (other controllers' names, guesses). ingress-nginx ignored them,
// so they protected nothing there either: the Ingress is served as it was, and told what
// the real annotation is.
var foreignGroup = annotationGroup{name: "not ingress-nginx's", rules: map[string]annotationRule{
	"rate-limit":        ignored(whyNoRateLimit),
	"rate-limit-window": ignored(whyNoRateLimit),
	"ssl-protocols":     ignored(whySSLProtocols),
}}

// whySSLProtocols explains ssl-protocols on an Ingress.
const whySSLProtocols = "a key of ingress-nginx's ConfigMap, never read from an Ingress: ingress-nginx ignores it there, and so does restyplane, " +
	"whose hosts all speak TLSv1.2 and TLSv1.3 and nothing older, ingress-nginx's default; a per-host protocol list is not offered " +
	"(the hosts share the proxy's TLS listener and its protocols)"

// whyNoRateLimit explains rate-limit and rate-limit-window.
const whyNoRateLimit = "ingress-nginx has no such annotation and limited nothing with it; its rate limits are limit-rps, limit-rpm and limit-connections, which restyplane honours"

// unimplementedGroup: what an Ingress is served without, and told so.
var unimplementedGroup = annotationGroup{name: "not implemented", rules: map[string]annotationRule{
	"custom-headers": ignored(whyNotImpl),
	"mirror-target":  ignored(whyNotImpl), "mirror-host": ignored(whyNotImpl), "mirror-request-body": ignored(whyNotImpl),
	"http2-push-preload": ignored(whyNotImpl), "relative-redirects": ignored(whyNotImpl), "use-port-in-redirects": ignored(whyNotImpl),
	"fastcgi-index": ignored(whyFastCGI), "fastcgi-params-configmap": ignored(whyFastCGI),
}}

// whyFastCGI: the FastCGI annotations only tune backend-protocol FCGI.
const whyFastCGI = "read by ingress-nginx only with backend-protocol FCGI, which restyplane refuses (it proxies HTTP and gRPC)"

// whyInflux: ingress-nginx's InfluxDB module is not part of restyplane.
const whyInflux = "metrics are not sent to InfluxDB; restyplane's metrics are on /metrics"

// classify says what restyplane does with one annotation, given its name without prefix
// and whether it came under restyplane.io/.
func classify(name, value string, own bool) (verdict, why string) {
	r, ok := annotationTable[name]
	switch {
	case name == "configuration-snippet" || name == "server-snippet":
		f, err := translateSnippet(name, value)
		if err != nil {
			return api.VerdictRefused, "no typed equivalent: " + err.Error()
		}
		return api.VerdictTranslated, "translated: " + strings.Join(f.became, "; ")
	case name == "auth-snippet":
		a, err := translateAuthSnippet(value)
		if err != nil {
			return api.VerdictRefused, "no typed equivalent: " + err.Error()
		}
		return api.VerdictTranslated, "translated: " + strings.Join(a.became, "; ")
	case !ok && own:
		return api.VerdictRefused, whyUnknownR
	case !ok:
		return api.VerdictIgnored, whyNotIngressNginx(name)
	case strings.HasSuffix(name, "-snippet") && r.verdict != api.VerdictHonoured:
		// A snippet is raw nginx configuration, unless its group translates it.
		return api.VerdictRefused, whySnippet
	}
	if r.harmless != nil {
		if v, ok := r.harmless(value); ok {
			return v, ""
		}
	}
	if r.refuseValue != nil {
		if why := r.refuseValue(value); why != "" {
			return api.VerdictRefused, why
		}
	}
	return r.verdict, r.why
}

// annotationVerdicts classifies an Ingress's annotations under both prefixes, by name.
func annotationVerdicts(in map[string]string) []api.AnnotationVerdict {
	var out []api.AnnotationVerdict
	for k, v := range in {
		name, own := "", false
		if n, ok := strings.CutPrefix(k, nginxPrefix); ok {
			name = n
		} else if n, ok := strings.CutPrefix(k, ownPrefix); ok {
			name, own = n, true
		} else {
			continue
		}
		verdict, why := classify(name, v, own)
		out = append(out, api.AnnotationVerdict{Name: k, Value: v, Verdict: verdict, Why: why})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
