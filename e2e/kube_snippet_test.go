package e2e

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesSnippetsTranslated: configuration-snippet and server-snippet of the kinds
// real Ingresses hold are translated into typed fields and enforced by nginx (a response
// header, a request header, the response cache's HIT, a server-snippet location that
// denies), with the verdict translated and what each directive became; a snippet with Lua,
// include, load_module or an unknown directive refuses its Ingress, naming the directive.
func TestKubernetesSnippetsTranslated(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "web"))
	ing := func(name, host, path string, ann map[string]string) {
		i := kubetest.Ingress(ki.ns, name, ingressClass, kubetest.Path{Host: host, Path: path, Service: "web", Port: 80})
		i.Annotations = map[string]string{}
		for k, v := range ann {
			i.Annotations[nginxAnn+k] = v
		}
		k.c.Create(t, i)
	}
	host := ki.host("snip")
	ing("headers", host, "/h", map[string]string{"configuration-snippet": "more_set_headers \"X-Frame-Options: DENY\";\n" +
		"more_set_headers \"Strict-Transport-Security: max-age=15552000; includeSubDomains\";\n" +
		"add_header X-Team checkout;\nproxy_set_header X-Forwarded-Proto $scheme;\nproxy_hide_header X-Upstream;\n"})
	ing("cache", host, "/c", map[string]string{"configuration-snippet": "proxy_cache cache;\nproxy_cache_valid any 1m;\n" +
		"add_header X-Cache-Status $upstream_cache_status;\n"})
	internal := ki.host("internal")
	ing("internal", internal, "/", map[string]string{"server-snippet": "location ~ ^/(metrics|ready)$ {\n  return 403;\n}\n" +
		"location /admin { deny all; }\nlocation = /old { return 301 https://new.example.com/; }\n"})
	refused := map[string]string{
		"lua":     "access_by_lua_block { ngx.exit(200) }",
		"include": "include /etc/nginx/secret.conf;",
		"module":  "load_module /tmp/x.so;",
		"unknown": "more_set_headers \"X-A: a\";\nsub_filter 'a' 'b';",
	}
	for name, snippet := range refused {
		ing(name, ki.host(name), "/", map[string]string{"configuration-snippet": snippet})
	}
	for _, name := range []string{"headers", "cache", "internal"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	ki.waitFor(internal, "/metrics", 403)

	resp, body := ki.do(host, "/h")
	if resp.StatusCode != 200 || !strings.HasPrefix(body, "web ") || resp.Header.Get("X-Frame-Options") != "DENY" ||
		resp.Header.Get("Strict-Transport-Security") != "max-age=15552000; includeSubDomains" || resp.Header.Get("X-Team") != "checkout" {
		t.Errorf("GET /h = %d %q %v, want web's answer with the snippet's headers", resp.StatusCode, body, resp.Header)
	}
	if resp, _ := ki.do(host, "/c/page"); resp.Header.Get("X-Cache-Status") != "MISS" {
		t.Errorf("first GET /c/page: X-Cache-Status %q, want MISS", resp.Header.Get("X-Cache-Status"))
	}
	if resp, body := ki.do(host, "/c/page"); resp.Header.Get("X-Cache-Status") != "HIT" || !strings.HasPrefix(body, "web ") {
		t.Errorf("second GET /c/page: %q X-Cache-Status %q, want web's answer from the cache, HIT", body, resp.Header.Get("X-Cache-Status"))
	}
	for path, code := range map[string]int{"/metrics": 403, "/ready": 403, "/admin": 403, "/admin/x": 403, "/old": 301, "/app": 200, "/metricsx": 200} {
		if resp, body := ki.do(internal, path); resp.StatusCode != code {
			t.Errorf("GET %s%s = %d %q, want %d", internal, path, resp.StatusCode, body, code)
		}
	}

	for name, why := range map[string]string{"lua": "directive access_by_lua_block is refused: it runs Lua",
		"include": "directive include is refused: it reads a file", "module": "directive load_module is refused: it loads a shared library",
		"unknown": "sub_filter a b (line 2): unknown directive"} {
		if e := ki.event(name, reconciler.ReasonRefusedSnippet); e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, why) {
			t.Errorf("Ingress %s: %s event %q, want a Warning naming %q", name, e.Type, e.Message, why)
		}
	}
	vs := ki.verdicts("")
	for name, want := range map[string]string{"headers": "more_set_headers \"X-Frame-Options: DENY\" → responseHeaders.set X-Frame-Options: DENY",
		"cache": "add_header X-Cache-Status $upstream_cache_status → cache.statusHeader X-Cache-Status", "internal": "location ~ ^/(metrics|ready)$: return 403 → return 403"} {
		v := vs[ki.ns+"/"+name]
		ann := "configuration-snippet"
		if name == "internal" {
			ann = "server-snippet"
		}
		if verdict, why := v.annotation(nginxAnn + ann); v.Verdict != "translated" || verdict != "translated" || !strings.Contains(why, want) {
			t.Errorf("Ingress %s: verdict %s, annotation %s (%s); want translated saying %q", name, v.Verdict, verdict, why, want)
		}
	}
	if v := vs[ki.ns+"/lua"]; v.Verdict != "refused" {
		t.Errorf("Ingress lua: verdict %s, want refused", v.Verdict)
	}
}
