package reconciler

import (
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// ingressNginxAnnotations are the annotations ingress-nginx reads, as its
// internal/ingress/annotations declare them at its last commit (dbb11b92, 2026), with
// those older releases read and later dropped (auth-cache-duration, global-rate-limit…).
var ingressNginxAnnotations = []string{
	"affinity", "affinity-canary-behavior", "affinity-mode", "allowlist-source-range", "app-root",
	"auth-always-set-cookie", "auth-cache-key", "auth-keepalive", "auth-keepalive-requests",
	"auth-keepalive-share-vars", "auth-method", "auth-proxy-set-headers", "auth-realm", "auth-request-redirect",
	"auth-response-headers", "auth-secret", "auth-secret-type", "auth-signin", "auth-signin-redirect-param",
	"auth-snippet", "auth-tls-error-page", "auth-tls-match-cn", "auth-tls-pass-certificate-to-upstream",
	"auth-tls-secret", "auth-tls-verify-client", "auth-tls-verify-depth", "auth-type", "auth-url",
	"backend-protocol", "canary", "canary-by-cookie", "canary-by-header", "canary-by-header-pattern",
	"canary-by-header-value", "canary-weight", "canary-weight-total", "client-body-buffer-size",
	"configuration-snippet", "connection-proxy-header", "cors-allow-credentials", "cors-allow-headers",
	"cors-allow-methods", "cors-allow-origin", "cors-expose-headers", "cors-max-age", "custom-headers",
	"custom-http-errors", "default-backend", "denylist-source-range", "disable-proxy-intercept-errors",
	"enable-access-log", "enable-cors", "enable-global-auth", "enable-modsecurity", "enable-opentelemetry",
	"enable-owasp-core-rules", "enable-rewrite-log", "fastcgi-index", "fastcgi-params-configmap",
	"force-ssl-redirect", "from-to-www-redirect", "http2-push-preload", "limit-allowlist",
	"limit-burst-multiplier", "limit-connections", "limit-rate", "limit-rate-after", "limit-rpm", "limit-rps",
	"limit-whitelist", "load-balance", "mirror-host", "mirror-request-body", "mirror-target",
	"modsecurity-snippet", "modsecurity-transaction-id", "opentelemetry-operation-name",
	"opentelemetry-trust-incoming-span", "permanent-redirect", "permanent-redirect-code",
	"preserve-trailing-slash", "proxy-body-size", "proxy-buffer-size", "proxy-buffering", "proxy-buffers-number",
	"proxy-busy-buffers-size", "proxy-connect-timeout", "proxy-cookie-domain", "proxy-cookie-path",
	"proxy-http-version", "proxy-max-temp-file-size", "proxy-next-upstream", "proxy-next-upstream-timeout",
	"proxy-next-upstream-tries", "proxy-read-timeout", "proxy-redirect-from", "proxy-redirect-to",
	"proxy-request-buffering", "proxy-send-timeout", "proxy-ssl-ciphers", "proxy-ssl-name",
	"proxy-ssl-protocols", "proxy-ssl-secret", "proxy-ssl-server-name", "proxy-ssl-verify",
	"proxy-ssl-verify-depth", "relative-redirects", "rewrite-target", "satisfy", "server-alias",
	"server-snippet", "service-upstream", "session-cookie-change-on-failure",
	"session-cookie-conditional-samesite-none", "session-cookie-domain", "session-cookie-expires",
	"session-cookie-max-age", "session-cookie-name", "session-cookie-path", "session-cookie-samesite",
	"session-cookie-secure", "ssl-ciphers", "ssl-passthrough", "ssl-prefer-server-ciphers", "ssl-redirect",
	"stream-snippet", "temporal-redirect", "temporal-redirect-code", "upstream-hash-by",
	"upstream-hash-by-subset", "upstream-vhost", "use-port-in-redirects", "use-regex", "whitelist-source-range",
	"x-forwarded-prefix",
	// Read by older releases.
	"auth-cache-duration", "auth-keepalive-timeout", "upstream-hash-by-subset-size", "global-rate-limit",
	"global-rate-limit-window", "global-rate-limit-key", "global-rate-limit-ignored-cidrs", "enable-opentracing",
	"opentracing-trust-incoming-span", "enable-influxdb", "influxdb-measurement", "influxdb-port", "influxdb-host",
	"influxdb-server-name", "grpc-backend", "secure-backends",
}

// TestAnnotationTableHasIngressNginx: every annotation ingress-nginx reads is in the
// table, so a name the table lacks is not ingress-nginx's, and ignoring it, as
// ingress-nginx did, drops nothing it had.
func TestAnnotationTableHasIngressNginx(t *testing.T) {
	for _, n := range ingressNginxAnnotations {
		if _, ok := annotationTable[n]; !ok {
			t.Errorf("ingress-nginx's annotation %s is not in annotationTable", n)
		}
	}
}

// TestUnknownAnnotation: a name ingress-nginx never had (the corpus's typos
// server-snippets and tls-passthrough) is ignored, as ingress-nginx ignored it, with the
// likely meant name, and reported by a Warning; it never changes how the other
// annotations are read, so their protections hold or refuse the Ingress as without it.
func TestUnknownAnnotation(t *testing.T) {
	for name, meant := range map[string]string{
		"server-snippets": "server-snippet", "tls-passthrough": "ssl-passthrough", "whitelist-source-ranges": "whitelist-source-range",
		"auth-secrets": "auth-secret", "frobnicate": "",
	} {
		v, why := classify(name, "true", false)
		if v != api.VerdictIgnored || !strings.HasPrefix(why, "not an ingress-nginx annotation (ingress-nginx ignores it too)") {
			t.Errorf("classify(%s) = %s %q, want ignored as not ingress-nginx's", name, v, why)
		}
		if meant != "" && !strings.Contains(why, "did you mean "+meant+"?") {
			t.Errorf("classify(%s): %q, want it to suggest %s", name, why, meant)
		}
		if meant == "" && strings.Contains(why, "did you mean") {
			t.Errorf("classify(%s): %q suggests a name", name, why)
		}
	}
	if v, _ := classify("server-snippets", "x", true); v != api.VerdictRefused {
		t.Errorf("an unknown restyplane.io annotation is %s, want refused", v)
	}

	// Beside a typo, the protections asked for are all read.
	a, err := parseAnnotations(map[string]string{
		nginxPrefix + "auth-type": "basic", nginxPrefix + "auth-secret": "admins",
		nginxPrefix + "whitelist-source-range": "10.0.0.0/8", nginxPrefix + "server-snippets": "allow all;",
		nginxPrefix + "tls-passthrough": "true",
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.auth == nil || a.auth.Basic == nil || a.access == nil || a.sslPassthrough {
		t.Errorf("auth %+v, access %+v, passthrough %t: want basic auth and the allow list, no passthrough", a.auth, a.access, a.sslPassthrough)
	}
	if len(a.unknown) != 2 || len(a.ignored) != 0 || !strings.Contains(a.unknown[0], "server-snippets") {
		t.Errorf("unknown %q, ignored %q: want the two typos reported as unknown", a.unknown, a.ignored)
	}
	// The Ingress is served, and a Warning names the typo.
	ing := aged(kubetest.Ingress("ns", "socket", "", kubetest.Path{Host: "socket.test", Path: "/", Service: "web", Port: 80}), 0,
		nginxPrefix+"server-snippets", "location / { proxy_set_header Upgrade $http_upgrade; }")
	tr := Translate(snapshotOf(kubetest.Service("ns", "web", 80), ing), nil)
	if !tr.Reports["ns/socket"].Applied || !warned(tr, "ns/socket", ReasonUnknownAnnotation, "did you mean server-snippet?") {
		t.Errorf("report %+v, want applied with an UnknownAnnotation warning", tr.Reports["ns/socket"])
	}
	// A typo of the annotation a protection needs leaves it incomplete: refused, as
	// without the typo, never served open.
	for _, ann := range []map[string]string{
		{"auth-type": "basic", "auth-secrets": "admins"},
		{"auth-tls-verify-client": "on", "auth-tls-secrets": "ns/ca"},
	} {
		in := map[string]string{}
		for k, v := range ann {
			in[nginxPrefix+k] = v
		}
		if _, err := parseAnnotations(in); err == nil {
			t.Errorf("%v: served, want refused", ann)
		}
	}
}
