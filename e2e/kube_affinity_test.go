package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesAffinity: ingress-nginx's affinity and session-cookie-* annotations, on an
// Ingress of the real API server, pin clients with a cookie of those attributes, and a
// persistent client keeps its endpoint when the Service gains one; a bad attribute
// refuses its Ingress with an Event that names it, and the others are served.
func TestKubernetesAffinity(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	u1, u2, u3 := k.ns.upstream(t, "u1"), k.ns.upstream(t, "u2"), k.ns.upstream(t, "u3")
	ki.service("web", u1, u2)
	host := ki.host("sticky")
	ing := func(name, host string, ann map[string]string) {
		i := kubetest.Ingress(ki.ns, name, ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80})
		i.Annotations = map[string]string{nginxAnn + "affinity": "cookie"}
		for k, v := range ann {
			i.Annotations[nginxAnn+k] = v
		}
		k.c.Create(t, i)
	}
	ing("sticky", host, map[string]string{"affinity-mode": "persistent", "session-cookie-name": "route",
		"session-cookie-path": "/", "session-cookie-domain": "." + host, "session-cookie-samesite": "Strict",
		"session-cookie-expires": "3600", "session-cookie-max-age": "7200", "session-cookie-secure": "true",
		"session-cookie-change-on-failure": "true"})
	ing("samesite", ki.host("samesite"), map[string]string{"session-cookie-samesite": "Sometimes"})
	ing("path", ki.host("path"), map[string]string{"session-cookie-path": "/a;Domain=evil.test"})
	if e := ki.event("sticky", reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
		t.Fatalf("Ingress sticky: %s event %q", e.Type, e.Message)
	}
	for name, why := range map[string]string{"samesite": `annotation session-cookie-samesite: "Sometimes": not Strict, Lax or None`,
		"path": "annotation session-cookie-path"} {
		if e := ki.event(name, reconciler.ReasonSkipped); e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, why) {
			t.Fatalf("Ingress %s: %s %s %q, want a Warning saying %q", name, e.Type, e.Reason, e.Message, why)
		}
	}
	for _, a := range ki.verdicts("")[ki.ns+"/sticky"].Annotations {
		if a.Verdict != "honoured" {
			t.Fatalf("Ingress sticky: annotation %s is %s (%s), want honoured", a.Name, a.Verdict, a.Why)
		}
	}
	ki.waitFor(host, "/", 200)

	_, set := ki.visit(host, "/", "")
	got := attributes(set)
	for k, want := range map[string]string{"path": "/", "domain": host, "samesite": "Strict", "max-age": "7200", "secure": "", "httponly": ""} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("Set-Cookie %q: %s = %q (present %v), want %q", set, k, v, ok, want)
		}
	}
	if _, ok := got["expires"]; !ok || !strings.HasPrefix(set, "route=") {
		t.Errorf("Set-Cookie %q, want the route cookie with Expires", set)
	}

	clients := ki.newClients(20, host, "/")
	ki.setEndpoints("web", u1, u2, u3)
	deadline := time.Now().Add(30 * time.Second)
	for served, _ := ki.visit(host, "/", ""); served != "u3"; served, _ = ki.visit(host, "/", "") {
		if time.Now().After(deadline) {
			t.Fatalf("no new client went to u3 within 30s of the Service gaining it")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i, c := range clients {
		if served, set := ki.visit(host, "/", c.cookie); served != c.peer || set != "" {
			t.Fatalf("client %d (%s) went to %q with Set-Cookie %q after u3 joined, want %s", i, c.cookie, served, set, c.peer)
		}
	}
}
