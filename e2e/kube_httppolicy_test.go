package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesCORSRedirectsAndWebSocket: CORS, redirects and a WebSocket set by
// ingress-nginx annotations on Ingresses of the real API server behave as they do when
// set through REST (TestCORSRedirectsAndWebSocketThroughREST); a www redirect onto a name
// another namespace holds is refused and reported (policies).
func TestKubernetesCORSRedirectsAndWebSocket(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "web"))
	host, secure := ki.host("shop"), ki.host("secure")
	ing := func(name, host, path string, ann map[string]string) *networkingv1.Ingress {
		i := kubetest.Ingress(ki.ns, name, ingressClass, kubetest.Path{Host: host, Path: path, Service: "web", Port: 80})
		i.Annotations = map[string]string{}
		for k, v := range ann {
			i.Annotations[nginxAnn+k] = v
		}
		return i
	}
	k.c.Create(t,
		ing("api", host, "/api", map[string]string{"enable-cors": "true", "cors-allow-origin": corsOrigins, "cors-expose-headers": "X-Request-Id"}),
		ing("old", host, "/old", map[string]string{"permanent-redirect": "https://new.test/x"}),
		ing("tmp", host, "/tmp", map[string]string{"temporal-redirect": "/new?a=1", "temporal-redirect-code": "307"}),
		ing("app", host, "/app", map[string]string{"app-root": "/app", "from-to-www-redirect": "true"}),
		ing("ws", host, "/ws", nil))
	crt, key := kubetest.SelfSigned(t, secure)
	s := ing("secure", secure, "/", map[string]string{"ssl-redirect": "false", "force-ssl-redirect": "true"})
	s.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{secure}, SecretName: "secure-tls"}}
	k.c.Create(t, kubetest.TLSSecret(ki.ns, "secure-tls", crt, key), s)
	for _, name := range []string{"api", "old", "tmp", "app", "ws", "secure"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	ki.waitFor(secure, "/s?x=1", 308)
	ki.waitFor("www."+host, "/", 308)
	checkCORS(t, ki.instance, host)
	checkRedirects(t, ki.instance, host)
	checkForceSSL(t, ki.instance, secure)
	checkWebSocket(t, ki.instance, host, "/ws")

	// Another namespace holds www.blog: blog's www redirect is not applied, and told so;
	// blog itself is served.
	other := ki.otherNamespace("b")
	blog := ki.host("blog")
	k.c.Create(t, kubetest.Service(other, "web", 80), kubetest.EndpointSlice(other, "web", "web-1", upstreamPort, ready([]*nsUpstream{k.ns.upstream(t, "other")})...),
		kubetest.Ingress(other, "www", ingressClass, kubetest.Path{Host: "www." + blog, Path: "/", Service: "web", Port: 80}))
	ki.servedBy("www."+blog, "other", time.Now(), 30*time.Second)
	k.c.Create(t, ing("blog", blog, "/", map[string]string{"from-to-www-redirect": "true"}))
	e := ki.event("blog", reconciler.ReasonConflict)
	if !strings.Contains(e.Message, "from-to-www-redirect") || !strings.Contains(e.Message, "held by namespace "+other) {
		t.Fatalf("event on blog: %q, want the www redirect refused for the other namespace's claim", e.Message)
	}
	ki.servedBy(blog, "web", time.Now(), 30*time.Second)
	ki.wantFrom("www."+blog, "/", "other")

	// Bad values refuse the Ingress with a reason.
	k.c.Create(t, ing("bad", ki.host("bad"), "/", map[string]string{"permanent-redirect": "https://x.test/$request_uri"}))
	if e := ki.event("bad", reconciler.ReasonSkipped); !strings.Contains(e.Message, "permanent-redirect") {
		t.Fatalf("event on bad: %q, want it to name permanent-redirect", e.Message)
	}
}
