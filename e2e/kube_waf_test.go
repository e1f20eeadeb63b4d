package e2e

import (
	"net/url"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesWAF: ingress-nginx's ModSecurity annotations on the real API server. An
// Ingress with enable-modsecurity, enable-owasp-core-rules and a modsecurity-snippet that
// only sets SecRuleEngine On and excludes a rule is served with the WAF blocking a CRS
// attack (403) and passing a plain request; one whose snippet only enables detection
// lets the attack through; one whose snippet holds a rule of its own is refused, naming
// the directive.
func TestKubernetesWAF(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "web"))
	ing := func(name, host string, ann map[string]string) *networkingv1.Ingress {
		i := kubetest.Ingress(ki.ns, name, ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80})
		i.Annotations = map[string]string{}
		for k, v := range ann {
			i.Annotations[nginxAnn+k] = v
		}
		k.c.Create(t, i)
		return i
	}
	guarded, watched := ki.host("guarded"), ki.host("watched")
	ing("guarded", guarded, map[string]string{"enable-modsecurity": "true", "enable-owasp-core-rules": "true",
		"modsecurity-transaction-id": "$request_id", "modsecurity-snippet": "SecRuleEngine On\nSecRequestBodyAccess On\nSecRuleRemoveById 920350\n"})
	ing("watched", watched, map[string]string{"enable-modsecurity": "true", "enable-owasp-core-rules": "true"})
	ing("custom", ki.host("custom"), map[string]string{"enable-modsecurity": "true",
		"modsecurity-snippet": "SecRuleEngine On\nSecRule ARGS \"@contains x\" \"id:1,deny\""})
	for _, name := range []string{"guarded", "watched"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	if e := ki.event("custom", reconciler.ReasonRefusedAnnotation); !strings.Contains(e.Message, "directive SecRule has no typed equivalent") {
		t.Fatalf("refusal event of custom: %q, want it to name the SecRule directive", e.Message)
	}
	ki.waitFor(guarded, "/x?q=shoes", 200)
	xss := "/x?q=" + url.QueryEscape("<script>alert(1)</script>")
	if resp, body := ki.do(guarded, xss); resp.StatusCode != 403 || strings.HasPrefix(body, "web ") {
		t.Fatalf("an XSS to the guarded host: %d %q, want 403 before the upstream", resp.StatusCode, body)
	}
	if resp, body := ki.do(watched, xss); resp.StatusCode != 200 || !strings.HasPrefix(body, "web ") {
		t.Fatalf("an XSS to the watched (detect) host: %d %q, want 200 from the upstream", resp.StatusCode, body)
	}
	v := ki.verdicts("")[ki.ns+"/guarded"]
	if verdict, _ := v.annotation(nginxAnn + "modsecurity-snippet"); v.Verdict != "served" || verdict != "honoured" {
		t.Fatalf("verdict of guarded: %q, modsecurity-snippet %q; want served and honoured", v.Verdict, verdict)
	}
}
