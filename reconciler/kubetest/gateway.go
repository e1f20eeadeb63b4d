package kubetest

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// createGatewayAPI creates a Gateway API object for Create; nil, nil for another kind.
func (c *Cluster) createGatewayAPI(ctx context.Context, o runtime.Object) (runtime.Object, error) {
	opts := metav1.CreateOptions{}
	v1 := c.Gateway.GatewayV1()
	switch o := o.(type) {
	case *gatewayv1.GatewayClass:
		return v1.GatewayClasses().Create(ctx, o, opts)
	case *gatewayv1.Gateway:
		return v1.Gateways(o.Namespace).Create(ctx, o, opts)
	case *gatewayv1.HTTPRoute:
		return v1.HTTPRoutes(o.Namespace).Create(ctx, o, opts)
	case *gatewayv1.GRPCRoute:
		return v1.GRPCRoutes(o.Namespace).Create(ctx, o, opts)
	case *gatewayv1beta1.ReferenceGrant:
		return c.Gateway.GatewayV1beta1().ReferenceGrants(o.Namespace).Create(ctx, o, opts)
	case *gatewayv1.BackendTLSPolicy:
		return v1.BackendTLSPolicies(o.Namespace).Create(ctx, o, opts)
	}
	return nil, nil
}

// GatewayClass returns a GatewayClass of controller.
func GatewayClass(name, controller string) *gatewayv1.GatewayClass {
	return &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: gatewayv1.GatewayClassSpec{ControllerName: gatewayv1.GatewayController(controller)}}
}

// Gateway returns a Gateway of class with the listeners.
func Gateway(ns, name, class string, listeners ...gatewayv1.Listener) *gatewayv1.Gateway {
	return &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: gatewayv1.ObjectName(class), Listeners: listeners}}
}

// Listener returns an HTTP listener on port for hostname ("" for any) that admits routes
// of every namespace.
func Listener(name string, port int32, hostname string) gatewayv1.Listener {
	all := gatewayv1.NamespacesFromAll
	l := gatewayv1.Listener{Name: gatewayv1.SectionName(name), Port: port, Protocol: gatewayv1.HTTPProtocolType,
		AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &all}}}
	if hostname != "" {
		h := gatewayv1.Hostname(hostname)
		l.Hostname = &h
	}
	return l
}

// HTTPSListener is Listener with TLS terminated by the certificate of a Secret of the
// Gateway's namespace.
func HTTPSListener(name string, port int32, hostname, secret string) gatewayv1.Listener {
	l := Listener(name, port, hostname)
	l.Protocol = gatewayv1.HTTPSProtocolType
	l.TLS = &gatewayv1.ListenerTLSConfig{CertificateRefs: []gatewayv1.SecretObjectReference{{Name: gatewayv1.ObjectName(secret)}}}
	return l
}

// HTTPRoute returns an HTTPRoute attached to the Gateway gateway of its namespace, for
// the hostnames, with the rules.
func HTTPRoute(ns, name, gateway string, hostnames []string, rules ...gatewayv1.HTTPRouteRule) *gatewayv1.HTTPRoute {
	r := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	r.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: gatewayv1.ObjectName(gateway)}}
	for _, h := range hostnames {
		r.Spec.Hostnames = append(r.Spec.Hostnames, gatewayv1.Hostname(h))
	}
	r.Spec.Rules = rules
	return r
}

// Rule returns an HTTPRoute rule of a PathPrefix match to the Services' port 80 backends,
// each of weight 1 unless weights are given in order.
func Rule(prefix string, services []string, weights ...int32) gatewayv1.HTTPRouteRule {
	pt := gatewayv1.PathMatchPathPrefix
	rule := gatewayv1.HTTPRouteRule{Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: &pt, Value: &prefix}}}}
	for i, s := range services {
		port := gatewayv1.PortNumber(80)
		b := gatewayv1.HTTPBackendRef{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
			Name: gatewayv1.ObjectName(s), Port: &port}}}
		if i < len(weights) {
			w := weights[i]
			b.Weight = &w
		}
		rule.BackendRefs = append(rule.BackendRefs, b)
	}
	return rule
}
