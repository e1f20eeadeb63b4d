package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/internal/rptest"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestFleetGatewayAPI: a control plane without OpenResty of its own reconciles a Gateway,
// an HTTPRoute and a GRPCRoute from a real API server, and three agents, each with its own
// nginx, serve them: a weighted split and a header match through every agent's nginx to
// real upstreams, and a gRPC call over each agent's TLS port. An edit of the HTTPRoute
// reaches every agent, a rollback through the history brings every agent's traffic back,
// and a route refused for a hostname another namespace's Ingress holds is refused on every
// agent alike and said so in its status.
func TestFleetGatewayAPI(t *testing.T) {
	k := newGatewayKube(t)
	ns := k.testNamespace(t)
	cp, secret := startControlPlane(t, "", k.reconcilerArgs(ns)...)
	ki := &kubeInstance{instance: cp, k: k, ns: ns}
	ki.waitLeader()
	t.Cleanup(func() { k.deleteGatewayObjects(t, ns) })
	var agents []*rptest.Agent
	for i := 1; i <= 3; i++ {
		agents = append(agents, rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: cp.API, Token: secret, Name: fmt.Sprintf("edge-%d", i)}))
	}
	a, b, c := k.ns.upstream(t, "a"), k.ns.upstream(t, "b"), k.ns.upstream(t, "c")
	ki.service("a", a)
	ki.service("b", b)
	ki.service("c", c)
	shop, grpcHost := ki.host("shop"), ki.host("grpc")
	ki.echoRoute(grpcHost)
	// The control plane's own ports, which it has no nginx on, stand for every agent's.
	ki.httpGateway(kubetest.HTTPSListener("https", ki.tlsPort(), "", "grpc-tls"))
	k.c.Create(t, kubetest.HTTPRoute(ns, "shop", "gw", []string{shop}, kubetest.Rule("/", []string{"a", "b"}, 3, 1), teamRule("blue")))
	ki.routeCondition(ns, "shop", "Accepted", "True", "Accepted")

	for _, ag := range agents {
		ag.WaitReady(30 * time.Second)
	}
	waitBlueSplit(t, cp, agents, shop, "at first")
	for _, ag := range agents {
		if code, body := proxyGet(ag.Proxy, shop, "/team/x", "X-Team", "red"); code != 200 || !strings.HasPrefix(body, "a ") && !strings.HasPrefix(body, "b ") {
			t.Errorf("GET /team/x with X-Team: red through %s = %d %q, want / (a or b)", ag.Proxy, code, body)
		}
		call := grpcCaller(t, ag.TLS, grpcHost)
		waitFor(t, "a gRPC call through "+ag.TLS, 30*time.Second, func() bool {
			got, err := call(echoMethod)
			return err == nil && got == "one hello"
		})
	}
	ki.waitUntil("the Gateway Programmed once the agents serve it", 20*time.Second, func() (bool, string) {
		gw := ki.gateway("gw")
		return hasCondition(gw.Status.Conditions, "Programmed", "True", "Programmed", gw.Generation)
	})
	before := ki.head()

	// An edit: / goes to b alone, and the header match wants green.
	routes := k.c.Gateway.GatewayV1().HTTPRoutes(ns)
	r, err := routes.Get(context.Background(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the route: %v", err)
	}
	r.Spec.Rules[0].BackendRefs[0].Weight = new(int32)
	r.Spec.Rules[1] = teamRule("green")
	if _, err := routes.Update(context.Background(), r, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("edit the route: %v", err)
	}
	for _, ag := range agents {
		waitFor(t, "the edit through "+ag.Proxy, 30*time.Second, func() bool {
			c1, b1 := proxyGet(ag.Proxy, shop, "/team/x", "X-Team", "green")
			c2, b2 := proxyGet(ag.Proxy, shop, "/team/x", "X-Team", "blue")
			return c1 == 200 && strings.HasPrefix(b1, "c ") && c2 == 200 && strings.HasPrefix(b2, "b ")
		})
	}
	waitAtHead(t, cp, agents)
	for _, ag := range agents {
		if counts := upstreamCounts(t, ag.Proxy, shop, "/", 20); counts["b"] != 20 {
			t.Errorf("20 requests to / through %s after the edit went %v; want b alone", ag.Proxy, counts)
		}
	}

	// A rollback through the history, to the revision before the edit.
	ki.must("POST", fmt.Sprintf("/api/v1/revisions/%d/rollback", before), map[string]any{"message": "e2e: the fleet back to blue"})
	waitBlueSplit(t, cp, agents, shop, "after the rollback")

	// The team puts the route back as the rollback left it, so that the cluster and the
	// history agree again: the next sync, whatever starts it, writes the cluster's state.
	r, err = routes.Get(context.Background(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the route: %v", err)
	}
	three := int32(3)
	r.Spec.Rules[0].BackendRefs[0].Weight = &three
	r.Spec.Rules[1] = teamRule("blue")
	if _, err := routes.Update(context.Background(), r, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("put the route back: %v", err)
	}

	// Another namespace's Ingress holds a host; the route that names it is refused.
	other := ki.otherNamespace("b")
	v := k.ns.upstream(t, "v")
	victim := ki.host("victim")
	k.c.Create(t, kubetest.Service(other, "web", 80), kubetest.EndpointSlice(other, "web", "web-1", upstreamPort, ready([]*nsUpstream{v})...),
		kubetest.Ingress(other, "victim", ingressClass, kubetest.Path{Host: victim, Path: "/", Service: "web", Port: 80}))
	for _, ag := range agents {
		waitFor(t, "the Ingress's host through "+ag.Proxy, 30*time.Second, func() bool {
			code, body := proxyGet(ag.Proxy, victim, "/login")
			return code == 200 && strings.HasPrefix(body, "v ")
		})
	}
	k.c.Create(t, kubetest.HTTPRoute(ns, "thief", "gw", []string{victim}, kubetest.Rule("/login", []string{"c"})))
	if msg := ki.routeCondition(ns, "thief", "Accepted", "False", "HostClaimed"); !strings.Contains(msg, "namespace "+other) {
		t.Errorf("thief's Accepted message %q does not name the holder, namespace %s", msg, other)
	}
	waitAtHead(t, cp, agents)
	for _, ag := range agents {
		if code, body := proxyGet(ag.Proxy, victim, "/login"); code != 200 || !strings.HasPrefix(body, "v ") {
			t.Errorf("GET %s/login through %s = %d %q, want the Ingress's upstream v", victim, ag.Proxy, code, body)
		}
		if code, body := proxyGet(ag.Proxy, shop, "/team/x", "X-Team", "blue"); code != 200 || !strings.HasPrefix(body, "c ") {
			t.Errorf("GET %s/team/x through %s = %d %q after the refusal, want c: one route's refusal stops no other", shop, ag.Proxy, code, body)
		}
	}
	var verdicts struct {
		Routes []struct{ Kind, Namespace, Name, Verdict string } `json:"routes"`
	}
	cp.call("GET", "/api/v1/kubernetes/ingresses", nil, &verdicts)
	got := map[string]string{}
	for _, r := range verdicts.Routes {
		got[r.Kind+" "+r.Namespace+"/"+r.Name] = r.Verdict
	}
	if got["HTTPRoute "+ns+"/thief"] != "refused" || got["HTTPRoute "+ns+"/shop"] != "served" || got["GRPCRoute "+ns+"/echo"] != "served" {
		t.Errorf("verdicts of the routes = %v, want thief refused, shop and echo served", got)
	}
}

// waitBlueSplit waits until every agent sends host's /team/x with X-Team: blue to c and
// serves the head, then checks that / splits 3:1 between a and b through each. A reload's
// old workers may still answer a kept-alive connection until the agent has confirmed the
// new generation: the split is counted once every agent has.
func waitBlueSplit(t *testing.T, cp *instance, agents []*rptest.Agent, host, when string) {
	t.Helper()
	for _, ag := range agents {
		waitFor(t, "the header match "+when+" through "+ag.Proxy, 30*time.Second, func() bool {
			code, body := proxyGet(ag.Proxy, host, "/team/x", "X-Team", "blue")
			return code == 200 && strings.HasPrefix(body, "c ")
		})
	}
	waitAtHead(t, cp, agents)
	for _, ag := range agents {
		if counts := upstreamCounts(t, ag.Proxy, host, "/", 40); !splitThreeToOne(counts, 40) {
			t.Errorf("40 requests to / through %s %s went %v; want a and b by weights 3:1", ag.Proxy, when, counts)
		}
	}
}

// waitAtHead waits until GET /api/v1/instances shows every agent connected and serving the
// head revision.
func waitAtHead(t testing.TB, cp *instance, agents []*rptest.Agent) {
	t.Helper()
	waitFor(t, "every agent at the head", 20*time.Second, func() bool {
		ins := fleetInstances(cp)
		if len(ins) < len(agents) {
			return false
		}
		for _, in := range ins {
			if in["applied"] != in["head"] || in["connected"] != true {
				return false
			}
		}
		return true
	})
}
