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
	// whyAuthCache (issue 11): caching auth answers is not implemented safely yet.
	whyAuthCache = "caching auth answers is not implemented: its key is nginx variable text written by users (raw nginx), and a cached allow outlives a revoked login"
)

// annotationTable classifies every ingress-nginx annotation restyplane knows, by name
// without prefix; the same names under restyplane.io/ mean the same. Honoured ones are read
// by parseAnnotations. Moving an annotation to honoured (issue 11) is changing its row here
// and reading it there; the README's table is checked against this one by a test.
var annotationTable = map[string]annotationRule{
	// Honoured: read by parseAnnotations.
	"load-balance": honoured("round_robin or ewma"), "upstream-hash-by": honoured("consistent hashing by one nginx variable"),
	"affinity": honoured("cookie only"), "session-cookie-name": honoured("the affinity cookie's name"),
	"canary": honoured("canary by weight, header or cookie"), "canary-weight": honoured(""), "canary-by-header": honoured(""),
	"canary-by-header-value": honoured(""), "canary-by-cookie": honoured(""),
	"rewrite-target": honoured("a plain path, no capture groups"), "proxy-connect-timeout": honoured(""),
	"proxy-read-timeout": honoured(""), "proxy-send-timeout": honoured(""), "ssl-redirect": honoured(""),
	"backend-protocol": {verdict: api.VerdictRefused, why: whyBackend + " (only HTTP is)", harmless: func(v string) (string, bool) {
		if strings.EqualFold(strings.TrimSpace(v), "HTTP") {
			return api.VerdictHonoured, true
		}
		return "", false
	}},

	// Refused: they restrict access or protect traffic, and are not implemented.
	// Policies (issue 11): basic and external auth, read by parseAuth.
	"auth-type": honoured("basic (digest is refused)"), "auth-secret": honoured("an Opaque Secret of the Ingress's own namespace; another namespace's is refused"),
	"auth-secret-type": honoured("auth-file or auth-map"), "auth-realm": honoured(""),
	"auth-url": honoured("http(s)://host[:port][/path], no nginx variables"), "auth-method": honoured(""),
	"auth-signin":           honoured("a 401 redirects there with rd=<the original URL>; no nginx variables"),
	"auth-response-headers": honoured(""), "auth-request-redirect": honoured("sent as X-Auth-Request-Redirect"),
	"auth-cache-key": refused(whyAuthCache), "auth-cache-duration": refused(whyAuthCache),
	"auth-proxy-set-headers":     refused(whyAccess),
	"auth-signin-redirect-param": refused(whyAccess), "auth-always-set-cookie": refused(whyAccess),
	"auth-keepalive": refused(whyAccess), "auth-keepalive-requests": refused(whyAccess), "auth-keepalive-timeout": refused(whyAccess),
	"auth-keepalive-share-vars": refused(whyAccess),
	"auth-tls-secret":           refused(whyAccess), "auth-tls-verify-client": refused(whyAccess), "auth-tls-verify-depth": refused(whyAccess),
	"auth-tls-error-page": refused(whyAccess), "auth-tls-pass-certificate-to-upstream": refused(whyAccess),
	"auth-tls-match-cn":      refused(whyAccess),
	"whitelist-source-range": refused(whyAccess), "allowlist-source-range": refused(whyAccess),
	"denylist-source-range": refused(whyAccess), "satisfy": refused(whyAccess),
	"limit-connections": refused(whyLimit), "limit-rps": refused(whyLimit), "limit-rpm": refused(whyLimit),
	"limit-burst-multiplier": refused(whyLimit), "limit-rate": refused(whyLimit), "limit-rate-after": refused(whyLimit),
	"limit-whitelist": refused(whyLimit), "limit-allowlist": refused(whyLimit),
	"global-rate-limit": refused(whyLimit), "global-rate-limit-window": refused(whyLimit),
	"global-rate-limit-key": refused(whyLimit), "global-rate-limit-ignored-cidrs": refused(whyLimit),
	"proxy-ssl-secret": refused(whyBackend), "proxy-ssl-verify": refused(whyBackend), "proxy-ssl-verify-depth": refused(whyBackend),
	"proxy-ssl-ciphers": refused(whyBackend), "proxy-ssl-protocols": refused(whyBackend), "proxy-ssl-name": refused(whyBackend),
	"proxy-ssl-server-name": refused(whyBackend), "secure-backends": offIsHarmless(refused(whyBackend)),
	"grpc-backend":       offIsHarmless(refused(whyBackend)),
	"enable-modsecurity": offIsHarmless(refused(whyAccess)), "enable-owasp-core-rules": offIsHarmless(refused(whyAccess)),
	"modsecurity-transaction-id": refused(whyAccess),
	"force-ssl-redirect":         offIsHarmless(refused(whyTLS)), "ssl-passthrough": offIsHarmless(refused(whyTLS)),
	"ssl-ciphers": refused(whyTLS), "ssl-prefer-server-ciphers": refused(whyTLS),
	"configuration-snippet": refused(whySnippet), "server-snippet": refused(whySnippet), "auth-snippet": refused(whySnippet),
	"stream-snippet": refused(whySnippet), "modsecurity-snippet": refused(whySnippet),

	// Ignored: served without them, and reported.
	"proxy-body-size": ignored(whyGlobal), "client-body-buffer-size": ignored(whyGlobal),
	"proxy-buffering": ignored(whyGlobal), "proxy-buffers-number": ignored(whyGlobal), "proxy-buffer-size": ignored(whyGlobal),
	"proxy-max-temp-file-size": ignored(whyGlobal), "proxy-request-buffering": ignored(whyGlobal),
	"proxy-http-version": ignored(whyGlobal), "proxy-next-upstream": ignored(whyGlobal),
	"proxy-next-upstream-timeout": ignored(whyGlobal), "proxy-next-upstream-tries": ignored(whyGlobal),
	"connection-proxy-header": ignored(whyGlobal), "enable-access-log": ignored(whyGlobal),
	"enable-rewrite-log": ignored(whyGlobal), "enable-opentelemetry": ignored(whyGlobal),
	"opentelemetry-trust-incoming-span": ignored(whyGlobal), "enable-opentracing": ignored(whyGlobal),
	"opentracing-trust-incoming-span": ignored(whyGlobal), "enable-global-auth": ignored("restyplane has no global auth to switch off"),
	"app-root": ignored(whyNotImpl), "permanent-redirect": ignored(whyNotImpl), "permanent-redirect-code": ignored(whyNotImpl),
	"temporal-redirect": ignored(whyNotImpl), "temporal-redirect-code": ignored(whyNotImpl),
	"from-to-www-redirect": ignored(whyNotImpl), "preserve-trailing-slash": ignored(whyNotImpl),
	"use-regex": ignored(whyNotImpl), "x-forwarded-prefix": ignored(whyNotImpl), "upstream-vhost": ignored(whyNotImpl),
	"server-alias": ignored(whyNotImpl + "; the aliases are not routed"), "default-backend": ignored(whyNotImpl),
	"custom-http-errors": ignored(whyNotImpl), "custom-headers": ignored(whyNotImpl),
	"disable-proxy-intercept-errors": ignored(whyNotImpl), "service-upstream": ignored(whyNotImpl),
	"enable-cors": ignored(whyNotImpl + "; browsers keep their same-origin rule"), "cors-allow-origin": ignored(whyNotImpl),
	"cors-allow-methods": ignored(whyNotImpl), "cors-allow-headers": ignored(whyNotImpl),
	"cors-expose-headers": ignored(whyNotImpl), "cors-allow-credentials": ignored(whyNotImpl), "cors-max-age": ignored(whyNotImpl),
	"proxy-cookie-domain": ignored(whyNotImpl), "proxy-cookie-path": ignored(whyNotImpl),
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
}

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
