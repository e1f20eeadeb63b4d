package reconciler

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// grant returns a ReferenceGrant in ns from kind of group in fromNS to toKind (named
// name, any when empty) of the core group.
func grant(ns, group, kind, fromNS, toKind, name string) *gatewayv1beta1.ReferenceGrant {
	g := &gatewayv1beta1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "g"},
		Spec: gatewayv1beta1.ReferenceGrantSpec{
			From: []gatewayv1beta1.ReferenceGrantFrom{{Group: gatewayv1.Group(group), Kind: gatewayv1.Kind(kind), Namespace: gatewayv1.Namespace(fromNS)}},
			To:   []gatewayv1beta1.ReferenceGrantTo{{Group: "", Kind: gatewayv1.Kind(toKind)}}}}
	if name != "" {
		n := gatewayv1.ObjectName(name)
		g.Spec.To[0].Name = &n
	}
	return g
}

// TestPermits: a reference across namespaces needs a ReferenceGrant in the namespace
// referred to, from the referring kind and namespace, to the kind (and name, when it
// names one); within one namespace it needs none.
func TestPermits(t *testing.T) {
	route := grantFrom{gatewayGroup, "HTTPRoute", "app"}
	svc := grantTo{"", "Service", "backend", "web"}
	for _, c := range []struct {
		name   string
		grants []*gatewayv1beta1.ReferenceGrant
		from   grantFrom
		to     grantTo
		want   bool
	}{
		{"same namespace", nil, route, grantTo{"", "Service", "app", "web"}, true},
		{"no grant", nil, route, svc, false},
		{"grant of every Service", []*gatewayv1beta1.ReferenceGrant{grant("backend", gatewayGroup, "HTTPRoute", "app", "Service", "")}, route, svc, true},
		{"grant of that Service", []*gatewayv1beta1.ReferenceGrant{grant("backend", gatewayGroup, "HTTPRoute", "app", "Service", "web")}, route, svc, true},
		{"grant of another Service", []*gatewayv1beta1.ReferenceGrant{grant("backend", gatewayGroup, "HTTPRoute", "app", "Service", "db")}, route, svc, false},
		{"grant in the wrong namespace", []*gatewayv1beta1.ReferenceGrant{grant("app", gatewayGroup, "HTTPRoute", "app", "Service", "")}, route, svc, false},
		{"grant from another namespace", []*gatewayv1beta1.ReferenceGrant{grant("backend", gatewayGroup, "HTTPRoute", "other", "Service", "")}, route, svc, false},
		{"grant from another kind", []*gatewayv1beta1.ReferenceGrant{grant("backend", gatewayGroup, "GRPCRoute", "app", "Service", "")}, route, svc, false},
		{"grant to another kind", []*gatewayv1beta1.ReferenceGrant{grant("backend", gatewayGroup, "HTTPRoute", "app", "Secret", "")}, route, svc, false},
		{"Ingress to a Secret", []*gatewayv1beta1.ReferenceGrant{grant("certs", networkingGroup, "Ingress", "app", "Secret", "ca")},
			grantFrom{networkingGroup, "Ingress", "app"}, grantTo{"", "Secret", "certs", "ca"}, true},
	} {
		if got := permits(c.grants, c.from, c.to); got != c.want {
			t.Errorf("%s: permits = %t, want %t", c.name, got, c.want)
		}
	}
}
