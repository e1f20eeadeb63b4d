package reconciler

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// pooledGateway is a Gateway of class rp in infra, aged minutes, listening on port 80,
// asking for addrs (an IPAddress each, "" for any) and with status.addresses status.
func pooledGateway(name string, minutes int, addrs []string, status string) *gatewayv1.Gateway {
	gw := routeAged(kubetest.Gateway("infra", name, "rp", kubetest.Listener("http", 80, "")), minutes)
	for _, a := range addrs {
		gw.Spec.Addresses = append(gw.Spec.Addresses, gatewayv1.GatewaySpecAddress{Value: a})
	}
	if status != "" {
		t := gatewayv1.IPAddressType
		gw.Status.Addresses = []gatewayv1.GatewayStatusAddress{{Type: &t, Value: status}}
	}
	return gw
}

// translatePooled translates objs with Gateways' addresses from pool.
func translatePooled(t *testing.T, pool string, objs ...runtime.Object) *Translation {
	t.Helper()
	p, err := ParseAddressPool(pool, "127.214.1.1")
	if err != nil {
		t.Fatal(err)
	}
	snap := gwSnapshot(objs...)
	snap.Gateway.Pool = p
	tr := Translate(snap, api.NewState())
	if tr.Gateway == nil {
		t.Fatal("no Gateway report")
	}
	return tr
}

// gatewaysSaid spells each Gateway's report: "name address Programmable/reason".
func gatewaysSaid(tr *Translation) map[string]string {
	out := map[string]string{}
	for _, g := range tr.Gateway.Gateways {
		prog := "programmable"
		if !g.Programmable {
			prog = g.ProgramReason
		}
		if g.Accepted.Status != "True" {
			prog = "not accepted " + g.Accepted.Reason
		}
		out[g.Gateway.Name] = g.Address + " " + prog
	}
	return out
}

// TestGatewayAddressPerGateway: with a pool, two Gateways' routes for one host, path and
// port become two servers, one at each Gateway's address; a route attached to both is
// served at both.
func TestGatewayAddressPerGateway(t *testing.T) {
	objs := []runtime.Object{kubetest.GatewayClass("rp", testGatewayController),
		pooledGateway("one", 1, nil, ""), pooledGateway("two", 2, nil, "")}
	objs = append(objs, serviceWith("infra", "v1", "10.0.0.1")...)
	objs = append(objs, serviceWith("infra", "v2", "10.0.0.2")...)
	objs = append(objs, serviceWith("infra", "v3", "10.0.0.3")...)
	ns := gatewayv1.Namespace("infra")
	shared := routeAged(kubetest.HTTPRoute("infra", "shared", "", nil, kubetest.Rule("/shared", []string{"v1"})), 10)
	shared.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "one", Namespace: &ns}, {Name: "two", Namespace: &ns}}
	one := routeAged(kubetest.HTTPRoute("infra", "one", "", nil, kubetest.Rule("/", []string{"v2"})), 11)
	one.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "one"}}
	two := routeAged(kubetest.HTTPRoute("infra", "two", "", nil, kubetest.Rule("/", []string{"v3"})), 12)
	two.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "two"}}
	objs = append(objs, shared, one, two)

	tr := translatePooled(t, "127.214.1.0/24", objs...)
	said := gatewaysSaid(tr)
	addrOne, addrTwo := tr.Gateway.Gateways[0].Address, tr.Gateway.Gateways[1].Address
	if addrOne == "" || addrTwo == "" || addrOne == addrTwo {
		t.Fatalf("Gateways: %v, want an address of its own for each", said)
	}
	got := map[string][]string{}
	for n, s := range tr.Servers {
		got[n+" @"+s.Address] = locationsOf(s)
	}
	want := map[string][]string{
		"k8s._default_at_" + addrOne + " @" + addrOne: {"prefix / -> k8s.infra.v2.80", "prefix /shared -> k8s.infra.v1.80"},
		"k8s._default_at_" + addrTwo + " @" + addrTwo: {"prefix / -> k8s.infra.v3.80", "prefix /shared -> k8s.infra.v1.80"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("servers (-want +got):\n%s", d)
	}
	// The next sync gives the same addresses; so does one after a restart, with only the
	// Gateways' status to go by, even when older Gateways have gone meanwhile.
	again := translatePooled(t, "127.214.1.0/24", objs...)
	if d := cmp.Diff(said, gatewaysSaid(again)); d != "" {
		t.Errorf("a second sync moved addresses (-first +second):\n%s", d)
	}
	kept := translatePooled(t, "127.214.1.0/24", kubetest.GatewayClass("rp", testGatewayController),
		pooledGateway("two", 2, nil, "127.214.1.77"))
	if got := gatewaysSaid(kept)["two"]; got != "127.214.1.77 programmable" {
		t.Errorf("Gateway two with status address 127.214.1.77: %s, want it kept", got)
	}
}

// TestGatewayAddressProblems: an address the Gateway asks for is honoured when the pool
// holds it; one outside the pool, the proxy's own or held by an older Gateway leaves that
// Gateway unprogrammed (AddressNotUsable), a full pool leaves the youngest without one
// (AddressNotAssigned), and an address of another type is not accepted
// (UnsupportedAddress); the other Gateways are served.
func TestGatewayAddressProblems(t *testing.T) {
	hostname := gatewayv1.HostnameAddressType
	named := pooledGateway("named", 7, nil, "")
	named.Spec.Addresses = []gatewayv1.GatewaySpecAddress{{Type: &hostname, Value: "gw.example.com"}}
	objs := []runtime.Object{kubetest.GatewayClass("rp", testGatewayController),
		pooledGateway("static", 1, []string{"127.214.1.2"}, ""),
		pooledGateway("outside", 2, []string{"10.9.9.9"}, ""),
		pooledGateway("taken", 3, []string{"127.214.1.2"}, ""),
		pooledGateway("own", 4, []string{"127.214.1.1"}, ""),
		pooledGateway("two", 5, []string{"127.214.1.2", "127.214.1.3"}, ""),
		pooledGateway("empty", 6, []string{""}, ""),
		named,
		pooledGateway("full", 8, nil, ""),
	}
	tr := translatePooled(t, "127.214.1.0/29", objs...)
	said := gatewaysSaid(tr)
	for _, n := range []string{"empty", "full"} {
		var addr string
		if _, err := fmt.Sscanf(said[n], "%s programmable", &addr); err != nil || addr == "127.214.1.2" || addr == "127.214.1.1" {
			t.Errorf("Gateway %s: %q, want programmable at a free address", n, said[n])
		}
		said[n] = "free programmable"
	}
	want := map[string]string{
		"static":  "127.214.1.2 programmable",
		"outside": " AddressNotUsable",
		"taken":   " AddressNotUsable",
		"own":     " AddressNotUsable",
		"two":     " AddressNotAssigned",
		"empty":   "free programmable",
		"named":   " not accepted UnsupportedAddress",
		"full":    "free programmable",
	}
	if d := cmp.Diff(want, said); d != "" {
		t.Errorf("Gateways (-want +got):\n%s", d)
	}
	// A /30 holds .1, the proxy's own, and .2, which "static" has: the others that ask
	// for any address get none.
	said = gatewaysSaid(translatePooled(t, "127.214.1.0/30", objs...))
	for n, want := range map[string]string{"static": "127.214.1.2 programmable", "empty": " AddressNotAssigned", "full": " AddressNotAssigned"} {
		if said[n] != want {
			t.Errorf("Gateway %s in a /30: %q, want %q", n, said[n], want)
		}
	}
}
