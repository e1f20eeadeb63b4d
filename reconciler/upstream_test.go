package reconciler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestUpstreamAnnotations: backend-protocol and proxy-ssl-* make the backend speak TLS or
// gRPC with the CA and client certificate of a Secret of the Ingress's own namespace;
// upstream-vhost and x-forwarded-prefix go on its locations; service-upstream routes to
// the cluster IP; bad values and another namespace's Secret are refused with why.
func TestUpstreamAnnotations(t *testing.T) {
	ns := "team-a"
	ca := testCAPEM(t, true)
	crt, key := kubetest.SelfSigned(t, "proxy-client")
	secret := kubetest.TLSSecret(ns, "upstream", crt, key)
	secret.Data["ca.crt"] = []byte(ca)
	opaque := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ca-only"}, Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{"ca.crt": []byte(ca)}}
	svc := kubetest.Service(ns, "api", 443)
	svc.Spec.ClusterIP = "10.96.0.10"
	slice := kubetest.EndpointSlice(ns, "api", "api-1", 8443, kubetest.Ready("10.0.0.7")...)
	ing := func(kv ...string) *networkingv1.Ingress {
		return aged(kubetest.Ingress(ns, "web", "", kubetest.Path{Host: "shop.test", Path: "/api", Service: "api", Port: 443}), 1, kv...)
	}
	n := nginxPrefix
	tr := Translate(snapshotOf(svc, slice, secret, opaque, ing(n+"backend-protocol", "HTTPS", n+"proxy-ssl-secret", ns+"/upstream",
		n+"proxy-ssl-verify", "on", n+"proxy-ssl-name", "api.internal", n+"proxy-ssl-server-name", "on",
		n+"upstream-vhost", "api.internal", n+"x-forwarded-prefix", "/api")), nil)
	if r := tr.Reports[ns+"/web"]; !r.Applied {
		t.Fatalf("not applied: %+v", r.Problems)
	}
	var be *api.Backend
	for _, b := range tr.Backends {
		be = b
	}
	want := api.UpstreamTLS{Verify: true, CACertificate: caCertificateName(ns, "upstream"), ServerName: "api.internal", SNI: true,
		ClientCertificate: certificateName(ns, "upstream")}
	if be.Protocol != "https" || be.UpstreamTLS == nil || *be.UpstreamTLS != want {
		t.Fatalf("backend = %s %+v, want https %+v", be.Protocol, be.UpstreamTLS, want)
	}
	if tr.CACertificates[want.CACertificate] == nil || tr.Certificates[want.ClientCertificate] == nil {
		t.Fatalf("translation lacks the CA bundle or the client certificate: %v %v", tr.CACertificates, tr.Certificates)
	}
	for _, s := range tr.Servers {
		if l := s.Locations[0]; l.UpstreamHost != "api.internal" || l.ForwardedPrefix != "/api" {
			t.Fatalf("location = %+v", l)
		}
	}
	// GRPCS with an Opaque Secret's ca.crt, and service-upstream.
	tr = Translate(snapshotOf(svc, slice, opaque, ing(n+"backend-protocol", "grpcs", n+"proxy-ssl-secret", "ca-only",
		n+"proxy-ssl-verify", "on", ownPrefix+"service-upstream", "true")), nil)
	for _, b := range tr.Backends {
		if b.Protocol != "grpcs" || b.UpstreamTLS.CACertificate != caCertificateName(ns, "ca-only") || b.UpstreamTLS.ClientCertificate != "" ||
			len(b.Endpoints) != 1 || b.Endpoints[0].Address != "10.96.0.10" || b.Endpoints[0].Port != 443 {
			t.Fatalf("backend = %+v %+v", b, b.UpstreamTLS)
		}
	}
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{n + "backend-protocol", "AJP"}, "AJP and FastCGI"},
		{[]string{n + "backend-protocol", "SPDY"}, "backend-protocol"},
		{[]string{n + "proxy-ssl-verify", "on"}, "HTTPS or GRPCS"},
		{[]string{n + "backend-protocol", "HTTPS", n + "proxy-ssl-verify", "on"}, "needs proxy-ssl-secret"},
		{[]string{n + "backend-protocol", "HTTPS", n + "proxy-ssl-secret", "team-b/upstream"}, "another namespace"},
		{[]string{n + "backend-protocol", "HTTPS", n + "proxy-ssl-secret", "nope"}, "not found"},
		{[]string{n + "backend-protocol", "HTTPS", n + "proxy-ssl-name", "a;b"}, "proxy-ssl-name"},
		{[]string{n + "upstream-vhost", "$host"}, "upstream-vhost"},
		{[]string{n + "x-forwarded-prefix", "/a b"}, "x-forwarded-prefix"},
		{[]string{n + "service-upstream", "maybe"}, "service-upstream"},
	} {
		tr := Translate(snapshotOf(svc, slice, secret, ing(c.kv...)), nil)
		r := tr.Reports[ns+"/web"]
		msg := ""
		for _, p := range r.Problems {
			msg += p.Message
		}
		if r.Applied || !strings.Contains(msg, c.want) {
			t.Errorf("%v: applied %t, %q, want refused with %q", c.kv, r.Applied, msg, c.want)
		}
	}
}

// TestUpstreamVhostAndGRPCBackend: upstream-vhost's ingress-nginx variables are filled in
// per path, any other is refused; grpc-backend "true" is backend-protocol GRPC unless
// backend-protocol says otherwise.
func TestUpstreamVhostAndGRPCBackend(t *testing.T) {
	ns := "tools"
	objs := []runtime.Object{kubetest.Service(ns, "grafana", 80), kubetest.Service(ns, "kibana", 5601)}
	ing := aged(kubetest.Ingress(ns, "internal", "", kubetest.Path{Host: "tools.test", Path: "/grafana", Service: "grafana", Port: 80},
		kubetest.Path{Host: "tools.test", Path: "/kibana", Service: "kibana", Port: 5601}), 1,
		nginxPrefix+"upstream-vhost", "$service_name.$namespace.svc.cluster.local")
	tr := Translate(snapshotOf(append(objs, ing)...), nil)
	if r := tr.Reports[ns+"/internal"]; !r.Applied {
		t.Fatalf("not applied: %+v", r.Problems)
	}
	got := map[string]string{}
	for _, l := range tr.Servers["k8s.tools.test"].Locations {
		got[l.Path] = l.UpstreamHost
	}
	if got["/grafana"] != "grafana.tools.svc.cluster.local" || got["/kibana"] != "kibana.tools.svc.cluster.local" {
		t.Errorf("upstream hosts %v, want each Service's cluster name", got)
	}
	for v, why := range map[string]string{
		"$host":                        "$host is not one of the variables it may name",
		"$service_name.$http_x_target": "$http_x_target is not one",
		"${service_name}.svc":          "$ is not one",
		"$service_name:8080":           "must be one DNS name (no port)",
	} {
		if _, err := parseAnnotations(map[string]string{nginxPrefix + "upstream-vhost": v}); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("upstream-vhost %q: %v, want an error containing %q", v, err, why)
		}
	}
	for _, c := range []struct{ protocol, grpc, want string }{
		{"", "true", "grpc"}, {"GRPC", "true", "grpc"}, {"HTTPS", "true", "https"}, {"", "false", ""},
	} {
		in := map[string]string{nginxPrefix + "grpc-backend": c.grpc}
		if c.protocol != "" {
			in[nginxPrefix+"backend-protocol"] = c.protocol
		}
		a, err := parseAnnotations(in)
		if err != nil || a.up.protocol != c.want {
			t.Errorf("backend-protocol %q, grpc-backend %q: protocol %q, %v; want %q", c.protocol, c.grpc, a.up.protocol, err, c.want)
		}
	}
	if _, err := parseAnnotations(map[string]string{nginxPrefix + "grpc-backend": "yes please"}); err == nil {
		t.Errorf("grpc-backend \"yes please\" is accepted")
	}
}
