package reconciler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

func TestParseHTTPPolicyAnnotations(t *testing.T) {
	ng := nginxPrefix
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		in      map[string]string
		want    httpAnnotations
		wantErr string
	}{
		{name: "cors defaults", in: map[string]string{ng + "enable-cors": "true"}, want: httpAnnotations{cors: &api.CORS{AllowOrigins: []string{"*"},
			AllowMethods: api.DefaultCORSMethods, AllowHeaders: api.DefaultCORSHeaders, AllowCredentials: &yes, MaxAge: api.DefaultCORSMaxAge}}},
		{name: "cors", in: map[string]string{ng + "enable-cors": "true", ng + "cors-allow-origin": "https://a.test, https://*.b.test",
			ng + "cors-allow-methods": "get, POST", ng + "cors-allow-headers": "X-A,X-B", ng + "cors-expose-headers": "X-Id",
			ng + "cors-allow-credentials": "false", ng + "cors-max-age": "600"},
			want: httpAnnotations{cors: &api.CORS{AllowOrigins: []string{"https://a.test", "https://*.b.test"}, AllowMethods: []string{"GET", "POST"},
				AllowHeaders: []string{"X-A", "X-B"}, ExposeHeaders: []string{"X-Id"}, AllowCredentials: &no, MaxAge: 600}}},
		{name: "cors without enable-cors", in: map[string]string{ng + "cors-allow-origin": "https://a.test"},
			want: httpAnnotations{ignored: []string{"cors-allow-origin: enable-cors is not true, so CORS is off (as in ingress-nginx)"}}},
		{name: "origin regex", in: map[string]string{ng + "enable-cors": "true", ng + "cors-allow-origin": "https://(.*).test"}, wantErr: "cors-allow-origin"},
		{name: "origin with a path", in: map[string]string{ng + "enable-cors": "true", ng + "cors-allow-origin": "https://a.test/"}, wantErr: "cors-allow-origin"},
		{name: "header name with a brace", in: map[string]string{ng + "enable-cors": "true", ng + "cors-allow-headers": "X{Y}"}, wantErr: "cors-allow-headers"},
		{name: "credentials", in: map[string]string{ng + "enable-cors": "true", ng + "cors-allow-credentials": "yes please"}, wantErr: "cors-allow-credentials"},
		{name: "permanent", in: map[string]string{ng + "permanent-redirect": "https://new.test/x"}, want: httpAnnotations{redirect: &api.Redirect{URL: "https://new.test/x", Code: 301}}},
		{name: "permanent 308", in: map[string]string{ng + "permanent-redirect": "/x", ng + "permanent-redirect-code": "308"}, want: httpAnnotations{redirect: &api.Redirect{URL: "/x", Code: 308}}},
		{name: "temporal", in: map[string]string{ng + "temporal-redirect": "/x?y=1"}, want: httpAnnotations{redirect: &api.Redirect{URL: "/x?y=1", Code: 302}}},
		{name: "both", in: map[string]string{ng + "temporal-redirect": "/x", ng + "permanent-redirect": "/y"}, wantErr: "not both"},
		{name: "code 200", in: map[string]string{ng + "permanent-redirect": "/x", ng + "permanent-redirect-code": "200"}, wantErr: "permanent-redirect-code"},
		{name: "permanent code with temporal", in: map[string]string{ng + "temporal-redirect": "/x", ng + "permanent-redirect-code": "308"}, wantErr: "temporal-redirect-code"},
		{name: "code alone", in: map[string]string{ng + "temporal-redirect-code": "307"}, wantErr: "needs temporal-redirect"},
		{name: "variable", in: map[string]string{ng + "permanent-redirect": "https://a.test$request_uri"}, wantErr: "permanent-redirect"},
		{name: "redirect and cors", in: map[string]string{ng + "permanent-redirect": "/x", ng + "enable-cors": "true"}, wantErr: "cors"},
		{name: "server redirects", in: map[string]string{ng + "app-root": "/app", ng + "from-to-www-redirect": "true", ng + "force-ssl-redirect": "true"},
			want: httpAnnotations{appRoot: "/app", www: true, forceSSL: true}},
		{name: "app root /", in: map[string]string{ng + "app-root": "/"}, wantErr: "app-root"},
		{name: "http 1.0", in: map[string]string{ng + "proxy-http-version": "1.0"}, wantErr: "proxy-http-version"},
		{name: "http 1.1", in: map[string]string{ng + "proxy-http-version": "1.1"}},
		{name: "connection", in: map[string]string{ng + "connection-proxy-header": "keep-alive"}, want: httpAnnotations{connection: "keep-alive"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseAnnotations(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, a.http, cmp.AllowUnexported(httpAnnotations{})); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTranslateHostPolicies: app-root, force-ssl-redirect and from-to-www-redirect land on
// the host's server; the www partner is redirected only when nobody else holds it.
func TestTranslateHostPolicies(t *testing.T) {
	const ng = nginxPrefix
	svc := func(ns string) []runtime.Object {
		return []runtime.Object{kubetest.Service(ns, "web", 80), kubetest.EndpointSlice(ns, "web", "web-1", 8080, kubetest.Ready("10.0.0.1")...)}
	}
	ing := func(ns, name, host string, minutes int, kv ...string) *networkingv1.Ingress {
		return aged(kubetest.Ingress(ns, name, "c", kubetest.Path{Host: host, Path: "/" + name, Service: "web", Port: 80}), minutes, kv...)
	}
	shop := ing("a", "shop", "shop.test", 0, ng+"app-root", "/app", ng+"from-to-www-redirect", "true")
	later := ing("a", "later", "shop.test", 1, ng+"app-root", "/other", ng+"force-ssl-redirect", "true")

	tr := Translate(snapshotOf(append(svc("a"), shop, later)...), nil)
	srv := tr.Servers[serverName("shop.test")]
	if srv == nil || srv.AppRoot != "/app" || !srv.ForceSSLRedirect || !srv.WWWRedirect {
		t.Fatalf("server = %+v, want app root /app, forced HTTPS and the www redirect", srv)
	}
	if r := tr.Reports["a/later"]; !strings.Contains(problems(r), "app-root /other for host shop.test is not applied") {
		t.Fatalf("later's report: %v", problems(r))
	}

	// Another namespace routes www.shop.test: the redirect is not applied, and told.
	www := ing("b", "www", "www.shop.test", 2)
	tr = Translate(snapshotOf(append(append(svc("a"), svc("b")...), shop, www)...), nil)
	if srv := tr.Servers[serverName("shop.test")]; srv == nil || srv.WWWRedirect {
		t.Fatalf("server = %+v, want no www redirect", srv)
	}
	if r := tr.Reports["a/shop"]; !strings.Contains(problems(r), "www.shop.test is held by namespace b") {
		t.Fatalf("shop's report: %v", problems(r))
	}

	// A REST server names it: the same.
	tr = Translate(snapshotOf(append(svc("a"), shop)...), restServer("blog", "www.shop.test", "/"))
	if srv := tr.Servers[serverName("shop.test")]; srv == nil || srv.WWWRedirect {
		t.Fatalf("server = %+v, want no www redirect", srv)
	}
}

// problems joins a report's Warning messages.
func problems(r *Report) string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, p.Message)
	}
	return strings.Join(out, "; ")
}

// TestCORSHeaderLists: cors-allow-headers and cors-expose-headers take RFC 9110 tokens, as
// real Ingresses list them (X_Custom_ID, X.Trace), and the Fetch wildcard *.
func TestCORSHeaderLists(t *testing.T) {
	a, err := parseAnnotations(map[string]string{nginxPrefix + "enable-cors": "true",
		nginxPrefix + "cors-allow-headers": "X_Custom_ID, X.Trace, Content-Type", nginxPrefix + "cors-expose-headers": "*"})
	if err != nil {
		t.Fatal(err)
	}
	if c := a.http.cors; c == nil || strings.Join(c.AllowHeaders, " ") != "X_Custom_ID X.Trace Content-Type" || strings.Join(c.ExposeHeaders, " ") != "*" {
		t.Fatalf("cors = %+v", a.http.cors)
	}
}
