package e2e

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesAccessAndLimits: access lists and a rate limit set by ingress-nginx
// annotations on Ingresses of the real API server behave as through REST, but for the
// status past the limit, 503 as in ingress-nginx; a bad CIDR refuses its Ingress.
func TestKubernetesAccessAndLimits(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "web"))
	host := ki.host("shop")
	ing := func(name, path string, ann map[string]string) {
		i := kubetest.Ingress(ki.ns, name, ingressClass, kubetest.Path{Host: host, Path: path, Service: "web", Port: 80})
		i.Annotations = map[string]string{}
		for k, v := range ann {
			i.Annotations[nginxAnn+k] = v
		}
		k.c.Create(t, i)
	}
	ing("open", "/open", nil)
	ing("acl", "/acl", map[string]string{"whitelist-source-range": "10.0.0.0/8, 127.0.0.1", "denylist-source-range": "127.0.0.3"})
	ing("limited", "/limited", map[string]string{"limit-rpm": "1", "limit-burst-multiplier": "2", "limit-allowlist": "127.0.0.4"})
	for _, name := range []string{"open", "acl", "limited"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	ki.waitFor(host, "/acl/x", 200)
	// The verdict API calls each of them honoured.
	vs := ki.verdicts("")
	for ingName, anns := range map[string][]string{"acl": {"whitelist-source-range", "denylist-source-range"},
		"limited": {"limit-rpm", "limit-burst-multiplier", "limit-allowlist"}} {
		v := vs[ki.ns+"/"+ingName]
		for _, a := range anns {
			if verdict, why := v.annotation(nginxAnn + a); v.Verdict != "served" || verdict != "honoured" {
				t.Errorf("verdict of %s: %q, annotation %s %q (%q); want served and honoured", ingName, v.Verdict, a, verdict, why)
			}
		}
	}
	p := ki.Proxy
	wantStatus(t, p, "127.0.0.1", host, "/acl/x", 200, "web")
	wantStatus(t, p, "127.0.0.2", host, "/acl/x", 403, "web")
	wantStatus(t, p, "127.0.0.3", host, "/acl/x", 403, "web")
	wantStatus(t, p, "127.0.0.2", host, "/open/x", 200, "web")
	checkRateLimit(t, p, host, 503)

	// A CIDR with host bits set refuses its Ingress, saying why; its host stays unserved.
	bad := kubetest.Ingress(ki.ns, "bad", ingressClass, kubetest.Path{Host: ki.host("bad"), Path: "/", Service: "web", Port: 80})
	bad.Annotations = map[string]string{nginxAnn + "whitelist-source-range": "10.0.0.1/8"}
	k.c.Create(t, bad)
	e := ki.event("bad", reconciler.ReasonSkipped)
	if !strings.Contains(e.Message, "whitelist-source-range") || !strings.Contains(e.Message, "10.0.0.0/8") {
		t.Fatalf("refusal event: %q, want it to name the annotation and the masked CIDR", e.Message)
	}
	ki.waitFor(ki.host("bad"), "/", 503) // its paths held, failing closed
}
