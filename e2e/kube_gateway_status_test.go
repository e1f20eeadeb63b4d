package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testGatewayStatus: the class, the Gateway, its listeners and the routes get the
// conditions the spec asks, with its reasons: a listener whose certificate is missing or
// whose protocol is not served is not programmed and says why, the others are once the
// proxy serves them; a route to a missing Service is accepted with ResolvedRefs false and
// answers 500; one naming no listener is not accepted.
func testGatewayStatus(t *testing.T, k *kube) {
	ki := k.serveGateway(t, "--gateway-address", "127.0.0.1")
	a := k.ns.upstream(t, "a")
	ki.service("a", a)
	tcp := kubetest.Listener("tcp", 9999, "")
	tcp.Protocol = gatewayv1.TCPProtocolType
	ki.httpGateway(kubetest.HTTPSListener("secure", ki.tlsPort(), "", "missing"), tcp)
	ok, ghost := ki.host("ok"), ki.host("ghost")
	lost := kubetest.HTTPRoute(ki.ns, "lost", "gw", nil, kubetest.Rule("/", []string{"a"}))
	nope := gatewayv1.SectionName("nope")
	lost.Spec.ParentRefs[0].SectionName = &nope
	http := gatewayv1.SectionName("http")
	okRoute := kubetest.HTTPRoute(ki.ns, "ok", "gw", []string{ok}, kubetest.Rule("/", []string{"a"}))
	ghostRoute := kubetest.HTTPRoute(ki.ns, "ghost", "gw", []string{ghost}, kubetest.Rule("/", []string{"ghost"}))
	okRoute.Spec.ParentRefs[0].SectionName, ghostRoute.Spec.ParentRefs[0].SectionName = &http, &http
	k.c.Create(t, okRoute, ghostRoute, lost)

	ki.routeCondition(ki.ns, "ok", "ResolvedRefs", "True", "ResolvedRefs")
	ki.routeCondition(ki.ns, "ok", "Accepted", "True", "Accepted")
	if msg := ki.routeCondition(ki.ns, "ghost", "ResolvedRefs", "False", "BackendNotFound"); !strings.Contains(msg, ki.ns+"/ghost") {
		t.Errorf("ghost's ResolvedRefs message %q does not name Service %s/ghost", msg, ki.ns)
	}
	ki.routeCondition(ki.ns, "ghost", "Accepted", "True", "Accepted")
	ki.routeCondition(ki.ns, "lost", "Accepted", "False", "NoMatchingParent")
	ki.waitAnswer(ok, "/", 200, "a ")
	ki.waitAnswer(ghost, "/", 500, "")

	ki.waitUntil("the Gateway's status", 20*time.Second, func() (bool, string) {
		gw := ki.gateway("gw")
		gen := gw.Generation
		for _, c := range []struct {
			typ, status, reason string
		}{{"Accepted", "True", "ListenersNotValid"}, {"Programmed", "True", "Programmed"}} {
			if ok, last := hasCondition(gw.Status.Conditions, c.typ, metav1.ConditionStatus(c.status), c.reason, gen); !ok {
				return false, last
			}
		}
		if len(gw.Status.Addresses) != 1 || gw.Status.Addresses[0].Value != "127.0.0.1" || *gw.Status.Addresses[0].Type != gatewayv1.IPAddressType {
			return false, fmt.Sprintf("addresses %+v", gw.Status.Addresses)
		}
		want := map[string][][3]string{
			"http":   {{"Accepted", "True", "Accepted"}, {"ResolvedRefs", "True", "ResolvedRefs"}, {"Programmed", "True", "Programmed"}, {"Conflicted", "False", "NoConflicts"}},
			"secure": {{"ResolvedRefs", "False", "InvalidCertificateRef"}, {"Programmed", "False", "Invalid"}},
			"tcp":    {{"Accepted", "False", "UnsupportedProtocol"}, {"Programmed", "False", "Invalid"}},
		}
		for _, l := range gw.Status.Listeners {
			for _, c := range want[string(l.Name)] {
				if ok, last := hasCondition(l.Conditions, c[0], metav1.ConditionStatus(c[1]), c[2], gen); !ok {
					return false, "listener " + string(l.Name) + ": " + last
				}
			}
			if l.Name == "http" && (l.AttachedRoutes != 2 || len(l.SupportedKinds) == 0) {
				return false, fmt.Sprintf("listener http: attachedRoutes %d, supportedKinds %v", l.AttachedRoutes, l.SupportedKinds)
			}
			delete(want, string(l.Name))
		}
		return len(want) == 0, fmt.Sprintf("listeners missing from the status: %v", want)
	})
	gc, err := k.c.Gateway.GatewayV1().GatewayClasses().Get(context.Background(), gatewayClass, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get GatewayClass: %v", err)
	}
	for _, typ := range []string{"Accepted", "SupportedVersion"} {
		if ok, last := hasCondition(gc.Status.Conditions, typ, "True", typ, gc.Generation); !ok {
			t.Errorf("GatewayClass: %s", last)
		}
	}
	if !slices.ContainsFunc(gc.Status.SupportedFeatures, func(f gatewayv1.SupportedFeature) bool { return f.Name == "HTTPRoute" }) {
		t.Errorf("GatewayClass supportedFeatures = %v, want HTTPRoute among them", gc.Status.SupportedFeatures)
	}
}
