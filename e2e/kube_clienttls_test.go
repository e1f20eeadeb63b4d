package e2e

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesClientCertificates: the auth-tls-* annotations of Ingresses on the real
// API server, with the CA in a real Opaque Secret that holds only ca.crt, behave as
// clientTLS set through REST does; a second Ingress on a verified host that asks
// otherwise is refused on it, and another namespace's CA Secret refuses the Ingress.
func TestKubernetesClientCertificates(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "web"))
	clients, other, servers := newCertAuthority(t, "Clients CA"), newCertAuthority(t, "Other CA"), newCertAuthority(t, "Servers CA")
	good, _, _ := clients.sign(t, "alice")
	wrong, _, _ := other.sign(t, "alice")
	hosts := map[string]string{}
	var names []string
	for _, n := range []string{"strict", "opt", "page", "open"} {
		hosts[n] = ki.host(n)
		names = append(names, ki.host(n))
	}
	_, crt, key := servers.sign(t, "proxy", names...)
	k.c.Create(t, kubetest.TLSSecret(ki.ns, "shared", []byte(crt), []byte(key)),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ki.ns, Name: "clients"},
			Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"ca.crt": []byte(clients.PEM)}})
	errorPage := "https://certs.test/needed?from=proxy"
	ing := func(name, host, path string, ann map[string]string) *networkingv1.Ingress {
		i := kubetest.Ingress(ki.ns, name, ingressClass, kubetest.Path{Host: host, Path: path, Service: "web", Port: 80})
		i.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: "shared"}}
		i.Annotations = map[string]string{}
		for k, v := range ann {
			i.Annotations[nginxAnn+k] = v
		}
		k.c.Create(t, i)
		return i
	}
	ing("strict", hosts["strict"], "/", map[string]string{"auth-tls-secret": ki.ns + "/clients", "auth-tls-verify-client": "on",
		"auth-tls-verify-depth": "1", "auth-tls-pass-certificate-to-upstream": "true"})
	ing("opt", hosts["opt"], "/", map[string]string{"auth-tls-secret": "clients", "auth-tls-verify-client": "optional"})
	ing("page", hosts["page"], "/", map[string]string{"auth-tls-secret": "clients", "auth-tls-error-page": errorPage})
	ing("open", hosts["open"], "/", nil)
	for _, name := range []string{"strict", "opt", "page", "open"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	ki.waitFor(hosts["strict"], "/x", 308) // plain HTTP to a verified host goes to HTTPS
	ki.waitSynced()
	checkClientTLS(t, ki.instance, clientTLSCase{upstream: "web", strict: hosts["strict"], opt: hosts["opt"], page: hosts["page"],
		open: hosts["open"], good: good, wrong: wrong, goodCN: "alice", caCN: "Clients CA", errorPage: errorPage})

	// A later Ingress on the strict host that asks for no client certificate is refused
	// there, and its path is not served without verification.
	ing("sneaky", hosts["strict"], "/sneaky", nil)
	e := ki.event("sneaky", reconciler.ReasonConflict)
	if !strings.Contains(e.Message, "client certificates") || !strings.Contains(e.Message, ki.ns+"/strict") {
		t.Fatalf("conflict event: %q, want it to name the older Ingress's client verification", e.Message)
	}
	with := tlsClient{addr: ki.TLS, sni: hosts["strict"]}
	if resp, body := with.get(t, hosts["strict"], "/sneaky"); resp.StatusCode != 400 {
		t.Fatalf("the refused path without a certificate: %d %q, want 400", resp.StatusCode, body)
	}

	// A team may not verify against another team's CA: the Ingress is refused.
	ns := k.c.Namespace(t, ki.ns+"-other")
	thief := kubetest.Ingress(ns, "thief", ingressClass, kubetest.Path{Host: "thief." + ns + ".test", Path: "/", Service: "web", Port: 80})
	thief.Annotations = map[string]string{nginxAnn + "auth-tls-secret": ki.ns + "/clients"}
	k.c.Create(t, thief)
	if e := ki.eventIn(ns, "thief", reconciler.ReasonRefusedAnnotation); !strings.Contains(e.Message, "another namespace") {
		t.Fatalf("refusal event: %q, want it to say the Secret is of another namespace", e.Message)
	}
	v := ki.verdicts("")[ki.ns+"/strict"]
	if verdict, _ := v.annotation(nginxAnn + "auth-tls-secret"); v.Verdict != "served" || verdict != "honoured" {
		t.Fatalf("verdict of strict: %q, auth-tls-secret %q; want served and honoured", v.Verdict, verdict)
	}
}
