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

// annotationTable classifies every ingress-nginx annotation restyplane knows, by name
// without prefix; the same names under restyplane.io/ mean the same. Honoured ones are read
// by parseAnnotations. Moving an annotation to honoured is changing its row here
// and reading it there; the README's table is checked against this one by a test.
var annotationTable = map[string]annotationRule{
	// Honoured: read by parseAnnotations.
	"load-balance": honoured("round_robin or ewma"), "upstream-hash-by": honoured("consistent hashing by one nginx variable"),
	"affinity": honoured("cookie only"), "session-cookie-name": honoured("the affinity cookie's name"),
	"canary": honoured("canary by weight, header or cookie"), "canary-weight": honoured(""), "canary-by-header": honoured(""),
	"canary-by-header-value": honoured(""), "canary-by-cookie": honoured(""),
	"rewrite-target": honoured("a path; with $1-$9 (/$2 on a path with two groups) the Ingress's paths become regexes and the whole path is rewritten with their groups, as in ingress-nginx, and a group the path lacks refuses the Ingress; a plain path replaces only a Prefix path's prefix, where ingress-nginx replaces the whole path"), "proxy-connect-timeout": honoured(""),
	"proxy-read-timeout": honoured(""), "proxy-send-timeout": honoured(""), "ssl-redirect": honoured("308 to HTTPS on the Ingress's TLS hosts, true unless set false"),
	// Policies: upstream protocol and host, read by parseUpstream.
	"backend-protocol": {verdict: api.VerdictHonoured, why: "HTTP, HTTPS, GRPC or GRPCS; AJP and FCGI are refused (HTTP and gRPC only)",
		refuseValue: func(v string) string {
			if p := strings.ToUpper(strings.TrimSpace(v)); p == "AJP" || p == "FCGI" {
				return "restyplane proxies HTTP and gRPC only; AJP and FastCGI backends are not offered"
			}
			return ""
		}},
	"proxy-ssl-secret": honoured("a kubernetes.io/tls or Opaque Secret of the Ingress's own namespace: ca.crt to verify against, tls.crt/tls.key presented; another namespace's is refused"),
	"proxy-ssl-verify": honoured("on or off"), "proxy-ssl-name": honoured("one DNS name, no nginx variables"),
	"proxy-ssl-server-name": honoured("on or off"), "upstream-vhost": honoured("one DNS name, no nginx variables"),
	"x-forwarded-prefix": honoured("a plain path"), "service-upstream": honoured("the Service's cluster IP instead of its endpoints"),

	// Refused: they restrict access or protect traffic, and are not implemented.
	// Policies: basic and external auth, read by parseAuth.
	"auth-type": honoured("basic (digest is refused)"), "auth-secret": honoured("an Opaque Secret of the Ingress's own namespace; another namespace's is refused"),
	"auth-secret-type": honoured("auth-file or auth-map"), "auth-realm": honoured(""),
	"auth-url": honoured("http(s)://host[:port][/path], no nginx variables"), "auth-method": honoured(""),
	"auth-signin":           honoured("a 401 redirects there with rd=<the original URL>; no nginx variables"),
	"auth-response-headers": honoured(""), "auth-request-redirect": honoured("sent as X-Auth-Request-Redirect"),
	"auth-cache-key": refused(whyAuthCache), "auth-cache-duration": refused(whyAuthCache),
	// Policies: CORS, redirects and upstream HTTP, read by parseHTTPPolicies.
	"enable-cors":        honoured("a preflight is answered 204 by the proxy; other requests get the CORS headers on the upstream's answer"),
	"cors-allow-origin":  honoured("*, or origins http(s)://host[:port], a host may start with *. for one subdomain label"),
	"cors-allow-methods": honoured(""), "cors-allow-headers": honoured("header names (letters, digits, '-')"),
	"cors-expose-headers": honoured("header names (letters, digits, '-')"), "cors-allow-credentials": honoured(""),
	"cors-max-age":            honoured(""),
	"permanent-redirect":      honoured("an absolute http(s) URL or a path, no nginx variables; the location needs no upstream then"),
	"permanent-redirect-code": honoured("301, 302, 303, 307 or 308"), "temporal-redirect": honoured("as permanent-redirect; not with it"),
	"temporal-redirect-code": honoured("301, 302, 303, 307 or 308"), "app-root": honoured("a path; for the whole host, the oldest Ingress's"),
	"from-to-www-redirect":       honoured("308; only when no other Ingress, namespace or REST server holds the other name"),
	"force-ssl-redirect":         honoured("308 for the whole host when any of its Ingresses asks; by the connection's scheme"),
	"proxy-http-version":         honoured("1.1 only, which restyplane always speaks (1.0 is refused)"),
	"connection-proxy-header":    honoured("the Connection header sent upstream"),
	"auth-proxy-set-headers":     refused(whyAccess),
	"auth-signin-redirect-param": refused(whyAccess), "auth-always-set-cookie": refused(whyAccess),
	"auth-keepalive": refused(whyAccess), "auth-keepalive-requests": refused(whyAccess), "auth-keepalive-timeout": refused(whyAccess),
	"auth-keepalive-share-vars": refused(whyAccess),
	// Policies: client certificates, read by parseClientTLS.
	"auth-tls-secret":        honoured("a Secret's ca.crt (kubernetes.io/tls or Opaque) of the Ingress's own namespace; every Ingress of a host must ask the same, and the host needs a TLS entry"),
	"auth-tls-verify-client": honoured("on, optional, optional_no_ca or off"), "auth-tls-verify-depth": honoured("1-10"),
	"auth-tls-error-page":                   honoured("a 302 to an http(s) URL, no nginx variables"),
	"auth-tls-pass-certificate-to-upstream": honoured("ssl-client-cert, URL-escaped PEM; ssl-client-verify and the DNs are always sent"),
	"auth-tls-match-cn":                     refused(whyAccess),
	// Policies: access lists and limits, read by parseAccess and parseLimits.
	"whitelist-source-range": honoured(whyCIDRs), "allowlist-source-range": honoured(whyCIDRs),
	"denylist-source-range": honoured(whyCIDRs), "satisfy": refused(whyAccess),
	"limit-connections":      honoured("concurrent requests per client address; 503 past it"),
	"limit-rps":              honoured("per client address, burst rps×limit-burst-multiplier, no delay; 503 past it"),
	"limit-rpm":              honoured("per client address, burst rpm×limit-burst-multiplier, no delay; 503 past it"),
	"limit-burst-multiplier": honoured("5 if not set"), "limit-rate": honoured("kilobytes a second"),
	"limit-rate-after": honoured("kilobytes"),
	"limit-whitelist":  honoured("CIDRs exempt from the rate and connection limits"), "limit-allowlist": honoured("CIDRs exempt from the rate and connection limits"),
	"global-rate-limit": refused(whyLimit), "global-rate-limit-window": refused(whyLimit),
	"global-rate-limit-key": refused(whyLimit), "global-rate-limit-ignored-cidrs": refused(whyLimit),
	"proxy-ssl-verify-depth": refused(whyBackend),
	"proxy-ssl-ciphers":      refused(whyBackend), "proxy-ssl-protocols": refused(whyBackend),
	"secure-backends":    offIsHarmless(refused(whyBackend)),
	"grpc-backend":       offIsHarmless(refused(whyBackend)),
	"enable-modsecurity": offIsHarmless(refused(whyAccess)), "enable-owasp-core-rules": offIsHarmless(refused(whyAccess)),
	"modsecurity-transaction-id": refused(whyAccess),
	"ssl-passthrough":            offIsHarmless(refused(whyTLS)),
	"ssl-ciphers":                refused(whyTLS), "ssl-prefer-server-ciphers": refused(whyTLS),
	"configuration-snippet": refused(whySnippet), "server-snippet": refused(whySnippet), "auth-snippet": refused(whySnippet),
	"stream-snippet": refused(whySnippet), "modsecurity-snippet": refused(whySnippet),

	// Policies: bodies, buffering, retries, error pages and matching, read by
	// parseProxyAnnotations.
	"proxy-body-size": honoured("nginx size (10m; 0 is no limit); a larger body is answered 413"), "client-body-buffer-size": honoured(""),
	"proxy-buffering": honoured("on or off"), "proxy-buffers-number": honoured("3-1024 buffers of proxy-buffer-size (4k if unset)"),
	"proxy-buffer-size":        honoured("also the size of each of the proxy-buffers-number buffers"),
	"proxy-max-temp-file-size": honoured("0, or at least twice proxy-buffer-size"), "proxy-request-buffering": honoured("on or off"),
	"proxy-next-upstream":         honoured("nginx's conditions, space-separated; a retry always moves to an endpoint not tried yet"),
	"proxy-next-upstream-timeout": honoured("seconds, or a duration"), "proxy-next-upstream-tries": honoured("0-11, the first try included"),
	"use-regex":          honoured("this Ingress's paths, Exact too, become regexes anchored at their start; on a host with a regex path every path is a regex, tried longest first, as in ingress-nginx; case-sensitive (ingress-nginx's are ~*), and other Ingresses' Prefix paths keep the Kubernetes prefix rule"),
	"server-alias":       honoured("more hostnames for the Ingress's first host; each is claimed for the namespace like a host, and one held by another namespace is left out and reported"),
	"custom-http-errors": honoured("needs default-backend, which answers the codes with X-Code, X-Format, X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port and X-Request-ID"),
	"default-backend":    honoured("a Service of the Ingress's namespace (its first port); alone it answers 502, 503 and 504, the answers of a Service with no endpoint that answers"),

	// Ignored: served without them, and reported.
	"enable-access-log":  ignored(whyGlobal),
	"enable-rewrite-log": ignored(whyGlobal), "enable-opentelemetry": ignored(whyGlobal),
	"opentelemetry-trust-incoming-span": ignored(whyGlobal), "enable-opentracing": ignored(whyGlobal),
	"opentracing-trust-incoming-span": ignored(whyGlobal), "enable-global-auth": ignored("restyplane has no global auth to switch off"),
	"preserve-trailing-slash":        ignored(whyNotImpl),
	"custom-headers":                 ignored(whyNotImpl),
	"disable-proxy-intercept-errors": ignored(whyNotImpl),
	"proxy-cookie-domain":            ignored(whyNotImpl), "proxy-cookie-path": ignored(whyNotImpl),
	"proxy-redirect-from": ignored(whyNotImpl), "proxy-redirect-to": ignored(whyNotImpl),
	"mirror-target": ignored(whyNotImpl), "mirror-host": ignored(whyNotImpl), "mirror-request-body": ignored(whyNotImpl),
	"http2-push-preload": ignored(whyNotImpl), "affinity-mode": ignored(whyNotImpl),
	"affinity-canary-behavior": ignored(whyNotImpl), "canary-by-header-pattern": ignored(whyNotImpl),
	"canary-weight-total": ignored(whyNotImpl), "upstream-hash-by-subset": ignored(whyNotImpl),
	"upstream-hash-by-subset-size": ignored(whyNotImpl), "session-cookie-path": ignored(whyNotImpl),
	"session-cookie-domain": ignored(whyNotImpl), "session-cookie-samesite": ignored(whyNotImpl),
	"session-cookie-conditional-samesite-none": ignored(whyNotImpl), "session-cookie-expires": ignored(whyNotImpl),
	"session-cookie-max-age": ignored(whyNotImpl), "session-cookie-secure": ignored(whyNotImpl),
	"session-cookie-change-on-failure": ignored(whyNotImpl),
	// In ingress-nginx's annotation list: metrics to InfluxDB, which restyplane
	// does not send; its own metrics are on /metrics.
	"enable-influxdb": ignored(whyInflux), "influxdb-measurement": ignored(whyInflux), "influxdb-port": ignored(whyInflux),
	"influxdb-host": ignored(whyInflux), "influxdb-server-name": ignored(whyInflux),
	"proxy-busy-buffers-size": ignored("restyplane sets it to proxy-buffer-size, which keeps nginx's sizes consistent"),
}

// whyInflux: ingress-nginx's InfluxDB module is not part of restyplane.
const whyInflux = "metrics are not sent to InfluxDB; restyplane's metrics are on /metrics"

// securityWords mark an unknown ingress-nginx annotation as one that may restrict access
// or protect traffic: such a name is refused until the table says otherwise, since
// ignoring it could open a route; any other unknown name is ignored and reported.
var securityWords = []string{"auth", "allow", "deny", "whitelist", "blacklist", "blocklist", "limit", "ssl", "tls",
	"cert", "secure", "modsecurity", "owasp", "waf", "satisfy", "jwt", "oauth", "oidc", "acl", "cidr", "source-range", "snippet"}

// classify says what restyplane does with one annotation, given its name without prefix
// and whether it came under restyplane.io/.
func classify(name, value string, own bool) (verdict, why string) {
	r, ok := annotationTable[name]
	switch {
	case strings.HasSuffix(name, "-snippet"):
		return api.VerdictRefused, whySnippet
	case !ok && own:
		return api.VerdictRefused, whyUnknownR
	case !ok:
		for _, w := range securityWords {
			if strings.Contains(name, w) {
				return api.VerdictRefused, "unknown annotation whose name (" + w + ") says it may restrict access or protect traffic; refused until restyplane classifies it"
			}
		}
		return api.VerdictIgnored, "unknown annotation; the Ingress is served without it"
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
