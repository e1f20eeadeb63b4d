package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testRouteIngressTenancy: a hostname held by one namespace's Ingress is refused to
// another namespace's route, and one held by a route to another namespace's Ingress;
// each refused object says why (its status, a Warning Event), and the holder keeps its
// traffic.
func testRouteIngressTenancy(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	a, b := k.ns.upstream(t, "a"), k.ns.upstream(t, "b")
	ki.service("web", a)
	victim := ki.host("victim")
	k.c.Create(t, kubetest.Ingress(ki.ns, "victim", ingressClass, kubetest.Path{Host: victim, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(victim, "a", time.Now(), 30*time.Second)

	other := ki.otherNamespace("b")
	t.Cleanup(func() { k.deleteGatewayObjects(t, other) })
	k.c.Create(t, kubetest.Service(other, "evil", 80), kubetest.EndpointSlice(other, "evil", "evil-1", upstreamPort, ready([]*nsUpstream{b})...),
		kubetest.Gateway(other, "gw", gatewayClass, kubetest.Listener("http", ki.proxyPort(), "")),
		kubetest.HTTPRoute(other, "thief", "gw", []string{victim}, kubetest.Rule("/login", []string{"evil"})))
	msg := ki.routeCondition(other, "thief", "Accepted", "False", "HostClaimed")
	if !strings.Contains(msg, victim) || !strings.Contains(msg, "namespace "+ki.ns) {
		t.Errorf("thief's Accepted message %q names neither %s nor its holder %s", msg, victim, ki.ns)
	}
	if e := ki.eventIn(other, "thief", "HostClaimed"); e.Type != corev1.EventTypeWarning || e.InvolvedObject.Kind != "HTTPRoute" {
		t.Errorf("event on the thief: %s %s on %s; want a Warning on the HTTPRoute", e.Type, e.Reason, e.InvolvedObject.Kind)
	}
	ki.waitSynced()
	ki.wantFrom(victim, "/login", "a")

	// The other way round: the route holds its host first, and a later Ingress of the
	// first namespace is refused it.
	own := ki.host("own")
	k.c.Create(t, kubetest.HTTPRoute(other, "own", "gw", []string{own}, kubetest.Rule("/", []string{"evil"})))
	ki.servedBy(own, "b", time.Now(), 30*time.Second)
	k.c.Create(t, kubetest.Ingress(ki.ns, "late", ingressClass, kubetest.Path{Host: own, Path: "/x", Service: "web", Port: 80}))
	e := ki.event("late", "HostClaimed")
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "namespace "+other) {
		t.Errorf("event on the late Ingress: %s %q; want a Warning naming namespace %s", e.Type, e.Message, other)
	}
	ki.waitSynced()
	ki.wantFrom(own, "/x", "b")
	var v struct {
		Routes []struct {
			Kind, Namespace, Name, Verdict string
		} `json:"routes"`
	}
	ki.call("GET", "/api/v1/kubernetes/ingresses", nil, &v)
	got := map[string]string{}
	for _, r := range v.Routes {
		got[r.Kind+" "+r.Namespace+"/"+r.Name] = r.Verdict
	}
	if got["HTTPRoute "+other+"/thief"] != "refused" || got["HTTPRoute "+other+"/own"] != "served" {
		t.Errorf("verdicts of the routes = %v, want thief refused and own served", got)
	}
}
