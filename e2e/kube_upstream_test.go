package e2e

import (
	"context"
	"strings"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesUpstreams: backend-protocol and proxy-ssl-* with the CA and client
// certificate of a real Secret, upstream-vhost and x-forwarded-prefix, set by
// ingress-nginx annotations on Ingresses of the real API server, behave as they do when
// set through REST; a real gRPC call goes through an Ingress with backend-protocol GRPC;
// an Ingress naming another namespace's Secret is refused.
func TestKubernetesUpstreams(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	// The upstreams listen on the host's end of the veth: an EndpointSlice may not name
	// a loopback address.
	ip := k.ns.subnet + "1"
	ca, other := newTestCA(t, "team ca"), newTestCA(t, "other ca")
	_, clientCrt, clientKey := ca.issue(t, "proxy-client", true)
	sec := kubetest.TLSSecret(ki.ns, "upstream-tls", []byte(clientCrt), []byte(clientKey))
	sec.Data["ca.crt"] = []byte(ca.PEM)
	k.c.Create(t, sec, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ki.ns, Name: "other-ca"},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"ca.crt": []byte(other.PEM)}})
	// The upstream demands a client certificate from the team's CA.
	secure := tlsUpstreamOn(t, ip, "secure", ca, "api.internal", ca)
	svc := func(name string, ep map[string]any) {
		k.c.Create(t, kubetest.Service(ki.ns, name, 443),
			kubetest.EndpointSlice(ki.ns, name, name+"-1", int32(ep["port"].(int)), kubetest.Ready(ep["address"].(string))...))
	}
	svc("secure", secure)
	// The wrong-CA Ingress's upstream asks for no client certificate: its 502 is the CA's.
	svc("secure-other", tlsUpstreamOn(t, ip, "anon", ca, "api.internal", nil))
	svc("grpc", grpcUpstreamOn(t, ip, "team", nil, ""))
	host := ki.host("up")
	ing := func(name, path, service string, ann map[string]string) {
		i := kubetest.Ingress(ki.ns, name, ingressClass, kubetest.Path{Host: host, Path: path, Service: service, Port: 443})
		i.Annotations = map[string]string{}
		for k, v := range ann {
			i.Annotations[nginxAnn+k] = v
		}
		k.c.Create(t, i)
	}
	tlsAnn := map[string]string{"backend-protocol": "HTTPS", "proxy-ssl-secret": ki.ns + "/upstream-tls", "proxy-ssl-verify": "on",
		"proxy-ssl-name": "api.internal", "proxy-ssl-server-name": "on", "upstream-vhost": "api.internal", "x-forwarded-prefix": "/secure"}
	ing("secure", "/secure", "secure", tlsAnn)
	ing("wrongca", "/wrongca", "secure-other", map[string]string{"backend-protocol": "HTTPS", "proxy-ssl-secret": "other-ca",
		"proxy-ssl-verify": "on", "proxy-ssl-name": "api.internal"})
	for _, name := range []string{"secure", "wrongca"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	ki.waitFor(host, "/secure/x", 200)
	resp, body := ki.do(host, "/secure/x")
	if want := "secure /secure/x host=api.internal prefix=/secure client=proxy-client"; resp.StatusCode != 200 || body != want {
		t.Fatalf("verified HTTPS upstream with the Secret's client certificate: %d %q, want %q", resp.StatusCode, body, want)
	}
	ki.waitFor(host, "/wrongca/x", 502)
	// The Secret is watched: once its ca.crt is the right CA, the upstream verifies.
	secrets := k.c.Client.CoreV1().Secrets(ki.ns)
	oc, err := secrets.Get(context.Background(), "other-ca", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	oc.Data["ca.crt"] = []byte(ca.PEM)
	if _, err := secrets.Update(context.Background(), oc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ki.waitFor(host, "/wrongca/x", 200)

	// gRPC through an Ingress: TLS at the proxy (HTTP/2 by ALPN), h2c to the upstream.
	gh := ki.host("grpc")
	crt, key := kubetest.SelfSigned(t, gh)
	k.c.Create(t, kubetest.TLSSecret(ki.ns, "grpc-front", crt, key))
	g := kubetest.Ingress(ki.ns, "grpc", ingressClass, kubetest.Path{Host: gh, Path: "/", Service: "grpc", Port: 443})
	g.Annotations = map[string]string{nginxAnn + "backend-protocol": "GRPC"}
	g.Spec.TLS = append(g.Spec.TLS, networkingTLS(gh, "grpc-front"))
	k.c.Create(t, g)
	if e := ki.event("grpc", reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
		t.Fatalf("Ingress grpc: %s event %q", e.Type, e.Message)
	}
	ki.waitSynced()
	st, err := grpcHealth(t, ki.TLS, gh, "team")
	if err != nil || st != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("gRPC health through the Ingress: %v %v, want SERVING", st, err)
	}

	// Another namespace's Secret is refused, and AJP with why.
	otherNS := k.c.Namespace(t, ki.ns+"-other")
	for name, ann := range map[string]map[string]string{
		"thief": {"backend-protocol": "HTTPS", "proxy-ssl-secret": ki.ns + "/upstream-tls", "proxy-ssl-verify": "on"},
		"ajp":   {"backend-protocol": "AJP"},
	} {
		i := kubetest.Ingress(otherNS, name, ingressClass, kubetest.Path{Host: name + "." + otherNS + ".test", Path: "/", Service: "web", Port: 80})
		i.Annotations = map[string]string{}
		for k, v := range ann {
			i.Annotations[nginxAnn+k] = v
		}
		k.c.Create(t, i)
		e := ki.eventIn(otherNS, name, reconciler.ReasonRefusedAnnotation)
		if want := map[string]string{"thief": "another namespace", "ajp": "AJP and FastCGI"}[name]; !strings.Contains(e.Message, want) {
			t.Fatalf("refusal event of %s: %q, want it to say %q", name, e.Message, want)
		}
	}
}

func networkingTLS(host, secret string) networkingv1.IngressTLS {
	return networkingv1.IngressTLS{Hosts: []string{host}, SecretName: secret}
}
