package e2e

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testGatewayAddresses: with --gateway-addresses each Gateway gets an address of its
// own, which its status says; two Gateways' routes for one host and path are served
// there by different backends, and neither at the proxy's own address. After a restart of
// restyplane each Gateway keeps its address and is still served there.
func testGatewayAddresses(t *testing.T, k *kube) {
	pool := fmt.Sprintf("127.216.%d.0/28", os.Getpid()%250)
	ki := k.serveGateway(t, "--gateway-addresses", pool)
	a, b := k.ns.upstream(t, "a"), k.ns.upstream(t, "b")
	ki.service("a", a)
	ki.service("b", b)
	port := ki.proxyPort()
	for _, gw := range []string{"gw-a", "gw-b"} {
		k.c.Create(t, kubetest.Gateway(ki.ns, gw, gatewayClass, kubetest.Listener("http", port, "")))
	}
	host := ki.host("shop")
	k.c.Create(t, kubetest.HTTPRoute(ki.ns, "to-a", "gw-a", []string{host}, kubetest.Rule("/", []string{"a"})),
		kubetest.HTTPRoute(ki.ns, "to-b", "gw-b", []string{host}, kubetest.Rule("/", []string{"b"})))
	addrs := map[string]string{}
	for _, gw := range []string{"gw-a", "gw-b"} {
		addrs[gw] = ki.gatewayAddress(gw)
	}
	if addrs["gw-a"] == addrs["gw-b"] {
		t.Fatalf("both Gateways at %s, want an address each", addrs["gw-a"])
	}
	ki.waitVia(addrs["gw-a"], port, host, "a ")
	ki.waitVia(addrs["gw-b"], port, host, "b ")
	if code, body := ki.get(host, "/"); code != 404 {
		t.Errorf("GET %s/ at the proxy's own address = %d %q, want 404: the routes are the Gateways'", host, code, body)
	}

	ki.Kill()
	ki.instance = &instance{Process: ki.Restart(t), t: t}
	ki.waitLeader()
	ki.waitSynced()
	for gw, want := range addrs {
		if got := ki.gatewayAddress(gw); got != want {
			t.Errorf("Gateway %s after the restart at %s, want %s as before", gw, got, want)
		}
	}
	ki.waitVia(addrs["gw-a"], port, host, "a ")
	ki.waitVia(addrs["gw-b"], port, host, "b ")
}

// gatewayAddress waits until the Gateway is Programmed with one address in its status,
// and returns it.
func (ki *kubeInstance) gatewayAddress(name string) string {
	ki.t.Helper()
	addr := ""
	ki.waitUntil("Gateway "+name+" Programmed with an address", 30*time.Second, func() (bool, string) {
		gw := ki.gateway(name)
		ok, last := hasCondition(gw.Status.Conditions, string(gatewayv1.GatewayConditionProgrammed), "True", "Programmed", gw.Generation)
		if len(gw.Status.Addresses) != 1 {
			return false, fmt.Sprintf("addresses %v; %s", gw.Status.Addresses, last)
		}
		addr = gw.Status.Addresses[0].Value
		return ok, last
	})
	return addr
}

// waitVia waits until GET host / at addr:port answers 200 with a body starting prefix.
func (ki *kubeInstance) waitVia(addr string, port int32, host, prefix string) {
	ki.t.Helper()
	base := "http://" + net.JoinHostPort(addr, strconv.Itoa(int(port)))
	ki.waitUntil("GET "+host+"/ at "+base, 30*time.Second, func() (bool, string) {
		code, body := proxyGet(base, host, "/")
		return code == 200 && len(body) >= len(prefix) && body[:len(prefix)] == prefix, fmt.Sprintf("%d %q", code, body)
	})
}
