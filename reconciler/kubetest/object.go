package kubetest

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Path is one Ingress path and the Service port it routes to.
type Path struct {
	Host string
	Path string
	// Type is Prefix when empty.
	Type    networkingv1.PathType
	Service string
	Port    int32
}

// IngressClass returns an IngressClass of controller, the cluster default if isDefault.
func IngressClass(name, controller string, isDefault bool) *networkingv1.IngressClass {
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.IngressClassSpec{Controller: controller}}
	if isDefault {
		ic.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	}
	return ic
}

// Ingress returns an Ingress of class (none if empty) with one rule per host, in the order
// the paths first name them.
func Ingress(ns, name, class string, paths ...Path) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if class != "" {
		ing.Spec.IngressClassName = &class
	}
	rules := map[string]int{}
	for _, p := range paths {
		i, ok := rules[p.Host]
		if !ok {
			i = len(ing.Spec.Rules)
			rules[p.Host] = i
			ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{Host: p.Host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{}}})
		}
		pt := p.Type
		if pt == "" {
			pt = networkingv1.PathTypePrefix
		}
		ing.Spec.Rules[i].HTTP.Paths = append(ing.Spec.Rules[i].HTTP.Paths, networkingv1.HTTPIngressPath{
			Path: p.Path, PathType: &pt, Backend: ServiceBackend(p.Service, p.Port)})
	}
	return ing
}

// ServiceBackend returns an Ingress backend for a Service port given by number.
func ServiceBackend(service string, port int32) networkingv1.IngressBackend {
	return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
		Name: service, Port: networkingv1.ServiceBackendPort{Number: port}}}
}

// Service returns a ClusterIP Service without selector (its EndpointSlices are written by
// the test) with one TCP port named "http" per port given.
func Service(ns, name string, ports ...int32) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for i, p := range ports {
		n := "http"
		if i > 0 {
			n = fmt.Sprintf("http-%d", i)
		}
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: n, Port: p, Protocol: corev1.ProtocolTCP})
	}
	return svc
}

// Endpoint is one address in an EndpointSlice.
type Endpoint struct {
	Address string
	// NotReady marks the endpoint as not ready: it must receive no traffic.
	NotReady bool
}

// EndpointSlice returns an IPv4 EndpointSlice of the Service with the endpoints listening
// on port, under the port name "http".
func EndpointSlice(ns, service, name string, port int32, eps ...Endpoint) *discoveryv1.EndpointSlice {
	pn, proto := "http", corev1.ProtocolTCP
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: service}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &pn, Port: &port, Protocol: &proto}},
	}
	for _, e := range eps {
		ready := !e.NotReady
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{e.Address},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
	}
	return s
}

// Ready returns ready endpoints at the addresses.
func Ready(addrs ...string) []Endpoint {
	out := make([]Endpoint, len(addrs))
	for i, a := range addrs {
		out[i] = Endpoint{Address: a}
	}
	return out
}

// TLSSecret returns a kubernetes.io/tls Secret holding a certificate and key.
func TLSSecret(ns, name string, certPEM, keyPEM []byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM}}
}

// Create creates the objects in order and returns them as the API server stored them.
func (c *Cluster) Create(tb testing.TB, objs ...runtime.Object) []runtime.Object {
	tb.Helper()
	ctx := context.Background()
	opts := metav1.CreateOptions{}
	out := make([]runtime.Object, 0, len(objs))
	for _, o := range objs {
		var got runtime.Object
		var err error
		switch o := o.(type) {
		case *networkingv1.IngressClass:
			got, err = c.Client.NetworkingV1().IngressClasses().Create(ctx, o, opts)
		case *networkingv1.Ingress:
			got, err = c.Client.NetworkingV1().Ingresses(o.Namespace).Create(ctx, o, opts)
		case *corev1.Service:
			got, err = c.Client.CoreV1().Services(o.Namespace).Create(ctx, o, opts)
		case *discoveryv1.EndpointSlice:
			got, err = c.Client.DiscoveryV1().EndpointSlices(o.Namespace).Create(ctx, o, opts)
		case *corev1.Secret:
			got, err = c.Client.CoreV1().Secrets(o.Namespace).Create(ctx, o, opts)
		case *corev1.ConfigMap:
			got, err = c.Client.CoreV1().ConfigMaps(o.Namespace).Create(ctx, o, opts)
		case *corev1.Namespace:
			got, err = c.Client.CoreV1().Namespaces().Create(ctx, o, opts)
		default:
			if got, err = c.createGatewayAPI(ctx, o); got != nil || err != nil {
				break
			}
			tb.Fatalf("kubetest: Create does not know %T", o)
		}
		if err != nil {
			tb.Fatalf("create %T: %v", o, err)
		}
		out = append(out, got)
	}
	return out
}

// Events returns the Events about one object, oldest first.
func (c *Cluster) Events(tb testing.TB, ns, name string) []corev1.Event {
	tb.Helper()
	l, err := c.Client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
	if err != nil {
		tb.Fatalf("list events of %s/%s: %v", ns, name, err)
	}
	return l.Items
}
