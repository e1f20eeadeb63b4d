package e2e

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesRegexHost: on a host where one Ingress asks for use-regex, nginx tries
// every path of the host longest first, as ingress-nginx does: the catch-all "/?(.*)"
// takes only what no longer path matches, the use-regex Ingress's Exact paths are regexes,
// and another Ingress's Prefix and Exact paths keep their meaning among them.
func TestKubernetesRegexHost(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	for _, s := range []string{"users", "payments", "client", "orders", "health"} {
		ki.service(s, k.ns.upstream(t, s))
	}
	host := ki.host("regex")
	path := func(p, svc string, typ networkingv1.PathType) kubetest.Path {
		return kubetest.Path{Host: host, Path: p, Type: typ, Service: svc, Port: 80}
	}
	re := kubetest.Ingress(ki.ns, "re", ingressClass,
		path("/?(.*)", "client", networkingv1.PathTypePrefix),
		path("/api/users/?(.*)", "users", networkingv1.PathTypePrefix),
		path("/api/payments/?(.*)", "payments", networkingv1.PathTypeExact))
	re.Annotations = map[string]string{nginxAnn + "use-regex": "true"}
	plain := kubetest.Ingress(ki.ns, "plain", ingressClass,
		path("/api/orders/list", "orders", networkingv1.PathTypePrefix),
		path("/health", "health", networkingv1.PathTypeExact))
	k.c.Create(t, re, plain)
	for _, name := range []string{"re", "plain"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	ki.waitFor(host, "/health", 200)
	for p, want := range map[string]string{
		"/api/users/1": "users", "/api/users": "users", "/api/payments/9": "payments",
		"/api/orders/list": "orders", "/api/orders/list/7": "orders", "/api/orders/listing": "client",
		"/health": "health", "/healthz": "client", "/": "client", "/x/api/users/1": "client",
	} {
		ki.wantFrom(host, p, want)
	}
}
