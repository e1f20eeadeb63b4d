package reconciler

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// tlsPolicy is a BackendTLSPolicy of namespace app for Service svc (and its port named
// section, when not ""), verified against ConfigMap cm's ca.crt for hostname.
func tlsPolicy(name, svc, section, cm, hostname string, minutes int) *gatewayv1.BackendTLSPolicy {
	p := &gatewayv1.BackendTLSPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: name},
		Spec: gatewayv1.BackendTLSPolicySpec{
			TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{{
				LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Kind: "Service", Name: gatewayv1.ObjectName(svc)}}},
			Validation: gatewayv1.BackendTLSPolicyValidation{Hostname: gatewayv1.PreciseHostname(hostname),
				CACertificateRefs: []gatewayv1.LocalObjectReference{{Kind: "ConfigMap", Name: gatewayv1.ObjectName(cm)}}}}}
	if section != "" {
		s := gatewayv1.SectionName(section)
		p.Spec.TargetRefs[0].SectionName = &s
	}
	return routeAged(p, minutes)
}

// policyConditions spells a policy's status per ancestor: "gw: Type=Status/Reason ...".
func policyConditions(tr *Translation, name string) string {
	for _, r := range tr.Gateway.Policies {
		if r.Policy.Name != name {
			continue
		}
		var out []string
		for _, a := range r.Ancestors {
			var cs []string
			for _, c := range a.Conditions {
				cs = append(cs, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
			}
			sort.Strings(cs)
			out = append(out, string(a.AncestorRef.Name)+": "+strings.Join(cs, " "))
		}
		return strings.Join(out, " | ")
	}
	return "no report"
}

// TestGatewayBackendTLSPolicy: a BackendTLSPolicy gives the route backends of the
// Service it names TLS verified against its ConfigMap's CA for its hostname, sent as SNI;
// of two on one target the older wins and the younger is Conflicted; one whose CA does
// not resolve (missing ConfigMap, another kind) is not accepted, and requests to its
// Service answer 500 rather than go in plain HTTP; a rule that splits requests between a
// covered Service and one that is not is left out.
func TestGatewayBackendTLSPolicy(t *testing.T) {
	ca := testCAPEM(t, true)
	objs := gatewayBase()
	for _, svc := range []string{"secure", "nocm", "kind", "plain"} {
		objs = append(objs, serviceWith("app", svc, "10.0.0.1")...)
	}
	objs = append(objs,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "ca"}, Data: map[string]string{"ca.crt": ca}},
		tlsPolicy("first", "secure", "", "ca", "secure.internal", 1),
		tlsPolicy("second", "secure", "", "ca", "other.internal", 2),
		tlsPolicy("nocm", "nocm", "", "missing", "secure.internal", 3))
	kind := tlsPolicy("kind", "kind", "", "ca", "secure.internal", 4)
	kind.Spec.Validation.CACertificateRefs[0].Kind = "Secret"
	objs = append(objs, kind, routeAged(parentOn(kubetest.HTTPRoute("app", "web", "", []string{"web.example.com"},
		kubetest.Rule("/secure", []string{"secure"}), kubetest.Rule("/nocm", []string{"nocm"}),
		kubetest.Rule("/kind", []string{"kind"}), kubetest.Rule("/plain", []string{"plain"}),
		kubetest.Rule("/mixed", []string{"secure", "plain"})), ""), 10))
	tr := translateGateway(t, objs...)

	got := locationsOf(tr.Servers["k8s.web.example.com"])
	want := []string{"prefix /kind -> return 500", "prefix /nocm -> return 500", "prefix /plain -> k8s.app.plain.80", "prefix /secure -> k8s.app.secure.80.tls"}
	sort.Strings(got)
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("locations = %v, want %v", got, want)
	}
	b := tr.Backends["k8s.app.secure.80.tls"]
	caName := objectName("backendtlspolicy.app.first")
	wantTLS := api.UpstreamTLS{Verify: true, CACertificate: caName, ServerName: "secure.internal", SNI: true}
	if b == nil || b.Protocol != api.ProtocolHTTPS || b.UpstreamTLS == nil || *b.UpstreamTLS != wantTLS {
		t.Fatalf("backend of the covered Service = %+v, want https with %+v", b, wantTLS)
	}
	if c := tr.CACertificates[caName]; c == nil || c.Cert != strings.TrimSpace(ca)+"\n" {
		t.Errorf("CA bundle %s = %+v, want the ConfigMap's ca.crt", caName, c)
	}
	for name, want := range map[string]string{
		"first":  "gw: Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs",
		"second": "gw: Accepted=False/Conflicted ResolvedRefs=True/ResolvedRefs",
		"nocm":   "gw: Accepted=False/NoValidCACertificate ResolvedRefs=False/InvalidCACertificateRef",
		"kind":   "gw: Accepted=False/NoValidCACertificate ResolvedRefs=False/InvalidKind",
	} {
		if got := policyConditions(tr, name); got != want {
			t.Errorf("policy %s: %s, want %s", name, got, want)
		}
	}
	// The route's references resolve: the policy, not the route, is what fails. The rule
	// of a TLS and a plain backend, which one location cannot speak to, is left out.
	if got, want := conditionsOf(tr.Gateway.Routes["HTTPRoute app/web"]), "Accepted=True/Accepted PartiallyInvalid=True/UnsupportedValue ResolvedRefs=True/ResolvedRefs"; got != want {
		t.Errorf("route conditions = %s, want %s", got, want)
	}
}

// TestGatewayUnresolvedShare: a backendRef that does not resolve beside one that does
// keeps its share of the requests, which the proxy answers 500 (errorWeight).
func TestGatewayUnresolvedShare(t *testing.T) {
	objs := append(gatewayBase(), serviceWith("app", "web", "10.0.0.1", "10.0.0.2")...)
	objs = append(objs, routeAged(parentOn(kubetest.HTTPRoute("app", "shop", "", []string{"shop.example.com"},
		kubetest.Rule("/", []string{"web", "missing"}, 3, 1)), ""), 10))
	tr := translateGateway(t, objs...)
	name := "k8s.httproute.app.shop.rule0"
	if got := locationsOf(tr.Servers["k8s.shop.example.com"]); strings.Join(got, ",") != "prefix / -> "+name {
		t.Fatalf("locations = %v, want / to %s", got, name)
	}
	b := tr.Backends[name]
	var eps []string
	for _, e := range b.Endpoints {
		eps = append(eps, fmt.Sprintf("%s=%d", e.Address, e.Weight))
	}
	// web's 3 over two endpoints is 1.5 each, the heaviest share, against missing's 1.
	if got, want := fmt.Sprintf("%s error=%d", strings.Join(eps, " "), b.ErrorWeight), "10.0.0.1=1000 10.0.0.2=1000 error=667"; got != want {
		t.Errorf("weighted backend = %s, want %s", got, want)
	}
	if got, want := conditionsOf(tr.Gateway.Routes["HTTPRoute app/shop"]), "Accepted=True/Accepted ResolvedRefs=False/BackendNotFound"; got != want {
		t.Errorf("route conditions = %s, want %s", got, want)
	}
}

// TestGatewayBackendTLSPolicyGRPC: a GRPCRoute's backend of a Service a BackendTLSPolicy
// covers speaks gRPC over TLS (grpcs), verified as the policy asks.
func TestGatewayBackendTLSPolicyGRPC(t *testing.T) {
	objs := append(gatewayBase(), serviceWith("app", "greeter", "10.0.0.1")...)
	port := gatewayv1.PortNumber(80)
	ns := gatewayv1.Namespace("infra")
	r := routeAged(&gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "greet"},
		Spec: gatewayv1.GRPCRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "gw", Namespace: &ns}}},
			Hostnames:       []gatewayv1.Hostname{"grpc.example.com"},
			Rules: []gatewayv1.GRPCRouteRule{{BackendRefs: []gatewayv1.GRPCBackendRef{{BackendRef: gatewayv1.BackendRef{
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: "greeter", Port: &port}}}}}}}}, 10)
	objs = append(objs, r,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "ca"}, Data: map[string]string{"ca.crt": testCAPEM(t, true)}},
		tlsPolicy("greeter", "greeter", "http", "ca", "greeter.internal", 1))
	tr := translateGateway(t, objs...)
	b := tr.Backends["k8s.app.greeter.80.grpc.tls"]
	if b == nil || b.Protocol != api.ProtocolGRPCS || b.UpstreamTLS == nil || b.UpstreamTLS.ServerName != "greeter.internal" {
		t.Fatalf("backend = %+v, want grpcs verified for greeter.internal (backends: %v)", b, keysOf(tr.Backends))
	}
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
