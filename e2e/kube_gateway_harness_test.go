package e2e

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// gatewayClass is the GatewayClass the Gateway API tests' Gateways name; its controller
// is the one restyplane answers to by default.
const gatewayClass = "restyplane"

// newGatewayKube is newKube on an API server that serves Gateway API's CRDs, with
// restyplane's GatewayClass.
func newGatewayKube(t testing.TB) *kube {
	t.Helper()
	k := &kube{ns: newNetns(t), c: kubetest.StartGatewayAPIT(t)}
	k.kubeconfig = k.c.Kubeconfig(t)
	k.c.Create(t, kubetest.IngressClass(ingressClass, reconciler.DefaultController, false),
		kubetest.GatewayClass(gatewayClass, reconciler.DefaultGatewayController))
	return k
}

// serveGateway is serve for the Gateway API tests: it deletes the test namespace's
// Gateways and routes when the test ends, as serve does its Ingresses.
func (k *kube) serveGateway(t *testing.T, extra ...string) *kubeInstance {
	t.Helper()
	ki := k.serveWith(t, extra...)
	t.Cleanup(func() { k.deleteGatewayObjects(t, ki.ns) })
	return ki
}

// deleteGatewayObjects deletes the Gateways and routes of namespace ns.
func (k *kube) deleteGatewayObjects(t testing.TB, ns string) {
	ctx, all := context.Background(), metav1.ListOptions{}
	v1 := k.c.Gateway.GatewayV1()
	for what, del := range map[string]func() error{
		"HTTPRoutes": func() error { return v1.HTTPRoutes(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, all) },
		"GRPCRoutes": func() error { return v1.GRPCRoutes(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, all) },
		"Gateways":   func() error { return v1.Gateways(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, all) },
	} {
		if err := del(); err != nil {
			t.Errorf("delete the %s of %s: %v", what, ns, err)
		}
	}
}

// proxyPort is the port of restyplane's own plain-HTTP listener, and tlsPort its HTTPS one:
// a Gateway listener on them is served there.
func (ki *kubeInstance) proxyPort() int32 {
	u, err := url.Parse(ki.Proxy)
	if err != nil {
		ki.t.Fatalf("proxy address %q: %v", ki.Proxy, err)
	}
	p, _ := strconv.Atoi(u.Port())
	return int32(p)
}

func (ki *kubeInstance) tlsPort() int32 { return int32(portOf(ki.t, ki.TLS)) }

// portOf is the port of a host:port address.
func portOf(t testing.TB, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	n, err2 := strconv.Atoi(p)
	if err != nil || err2 != nil {
		t.Fatalf("no port in address %q", addr)
	}
	return n
}

// freePort returns a loopback port nothing listens on now.
func freePort(t testing.TB) int32 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return int32(l.Addr().(*net.TCPAddr).Port)
}

// gateway reads a Gateway of the test's namespace.
func (ki *kubeInstance) gateway(name string) *gatewayv1.Gateway {
	ki.t.Helper()
	gw, err := ki.k.c.Gateway.GatewayV1().Gateways(ki.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		ki.t.Fatalf("get Gateway %s/%s: %v", ki.ns, name, err)
	}
	return gw
}

// httpRoute reads an HTTPRoute of namespace ns.
func (ki *kubeInstance) httpRoute(ns, name string) *gatewayv1.HTTPRoute {
	ki.t.Helper()
	r, err := ki.k.c.Gateway.GatewayV1().HTTPRoutes(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		ki.t.Fatalf("get HTTPRoute %s/%s: %v", ns, name, err)
	}
	return r
}
