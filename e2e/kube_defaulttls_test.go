package e2e

import (
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesTLSWithoutSecretName: a TLS entry that names no Secret is served as
// ingress-nginx serves it, with the proxy's default certificate: HTTPS answers from the
// upstream, the certificate is restyplane's self-signed one, and plain HTTP redirects.
func TestKubernetesTLSWithoutSecretName(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "web"))
	host := ki.host("lb")
	ing := kubetest.Ingress(ki.ns, "lb", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80})
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}}}
	k.c.Create(t, ing)
	if e := ki.event("lb", "Applied"); e.Type != "Normal" {
		t.Fatalf("event %s %q, want Applied", e.Type, e.Message)
	}
	ki.waitSynced()
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, body := ki.getTLS(host, host, "/x")
		if code == 200 && strings.HasPrefix(body, "web /x") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("HTTPS %s/x = %d %q, want 200 from web", host, code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	conn, err := tls.Dial("tcp", ki.TLS, &tls.Config{ServerName: host, InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	cn := conn.ConnectionState().PeerCertificates[0].Subject.CommonName
	conn.Close()
	if cn != "restyplane default server" {
		t.Fatalf("certificate presented for %s: CN %q, want the proxy's default one", host, cn)
	}
	resp, _ := ki.do(host, "/x")
	if resp.StatusCode != http.StatusPermanentRedirect || !strings.HasPrefix(resp.Header.Get("Location"), "https://"+host) {
		t.Fatalf("HTTP %s/x = %d to %q, want a 308 to https", host, resp.StatusCode, resp.Header.Get("Location"))
	}
}
