package reconciler

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// listenerConditions spells a listener's status: its conditions, sorted, and
// attachedRoutes and whether it may be programmed.
func listenerConditions(l ListenerReport) string {
	var cs []string
	for _, c := range l.Status.Conditions {
		cs = append(cs, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
	}
	sort.Strings(cs)
	return fmt.Sprintf("%s attached=%d programmable=%t", strings.Join(cs, " "), l.Status.AttachedRoutes, l.Programmable)
}

// TestGatewayListenerStatus: each listener's conditions carry the spec's reasons for what
// cannot be served, and the Gateway is accepted while one listener is.
func TestGatewayListenerStatus(t *testing.T) {
	tcp := kubetest.Listener("tcp", 9000, "")
	tcp.Protocol = gatewayv1.TCPProtocolType
	onTLSPort := kubetest.Listener("plain-on-443", 443, "plain.example.com")
	badKind := kubetest.Listener("kinds", 80, "kinds.example.com")
	badKind.AllowedRoutes.Kinds = []gatewayv1.RouteGroupKind{{Kind: "TCPRoute"}, {Kind: "HTTPRoute"}}
	foreign := kubetest.HTTPSListener("foreign", 443, "foreign.example.com", "cert")
	certNS := gatewayv1.Namespace("other")
	foreign.TLS.CertificateRefs[0].Namespace = &certNS
	missing := kubetest.HTTPSListener("missing", 443, "missing.example.com", "nope")
	dup1, dup2 := kubetest.Listener("dup1", 8081, "dup.example.com"), kubetest.Listener("dup2", 8081, "dup.example.com")
	objs := gatewayBase(kubetest.Listener("http", 80, ""), tcp, onTLSPort, badKind, foreign, missing, dup1, dup2)
	objs = append(objs, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "cert"}, Type: corev1.SecretTypeTLS})
	tr := translateGateway(t, objs...)
	g := tr.Gateway.Gateways[0]
	got := map[string]string{}
	for _, l := range g.Listeners {
		got[string(l.Status.Name)] = listenerConditions(l)
	}
	ok := "Accepted=True/Accepted Conflicted=False/NoConflicts ResolvedRefs=True/ResolvedRefs attached=0 programmable=true"
	want := map[string]string{
		"http":         ok,
		"tcp":          "Accepted=False/UnsupportedProtocol Conflicted=False/NoConflicts ResolvedRefs=True/ResolvedRefs attached=0 programmable=false",
		"plain-on-443": "Accepted=False/PortUnavailable Conflicted=False/NoConflicts ResolvedRefs=True/ResolvedRefs attached=0 programmable=false",
		"kinds":        "Accepted=True/Accepted Conflicted=False/NoConflicts ResolvedRefs=False/InvalidRouteKinds attached=0 programmable=true",
		"foreign":      "Accepted=True/Accepted Conflicted=False/NoConflicts ResolvedRefs=False/RefNotPermitted attached=0 programmable=false",
		"missing":      "Accepted=True/Accepted Conflicted=False/NoConflicts ResolvedRefs=False/InvalidCertificateRef attached=0 programmable=false",
		"dup1":         "Accepted=True/Accepted Conflicted=True/HostnameConflict ResolvedRefs=True/ResolvedRefs attached=0 programmable=false",
		"dup2":         "Accepted=True/Accepted Conflicted=True/HostnameConflict ResolvedRefs=True/ResolvedRefs attached=0 programmable=false",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("listener %s: %s\n want %s", name, got[name], w)
		}
	}
	if kinds := g.Listeners[3].Status.SupportedKinds; len(kinds) != 1 || kinds[0].Kind != "HTTPRoute" {
		t.Errorf("supportedKinds of the listener asking for TCPRoute and HTTPRoute = %v, want HTTPRoute alone", kinds)
	}
	if g.Accepted.Status != metav1.ConditionTrue || g.Accepted.Reason != string(gatewayv1.GatewayReasonListenersNotValid) || !g.Programmable {
		t.Errorf("Gateway accepted = %s/%s programmable %t, want True/ListenersNotValid and programmable", g.Accepted.Status, g.Accepted.Reason, g.Programmable)
	}
	if c := tr.Gateway.Classes[0].Conditions; c[0].Type != "Accepted" || c[0].Status != metav1.ConditionTrue || c[1].Type != "SupportedVersion" {
		t.Errorf("class conditions = %v, want Accepted and SupportedVersion true", c)
	}
}

// TestGatewayRouteStatus: a route's Accepted condition says, per parentRef, why it is not
// attached: no listener of that sectionName or port (NoMatchingParent), none admitting its
// namespace (NotAllowedByListeners), none with a hostname it shares
// (NoMatchingListenerHostname); ResolvedRefs says why a backend is not resolved.
func TestGatewayRouteStatus(t *testing.T) {
	same := kubetest.Listener("same", 80, "same.example.com")
	from := gatewayv1.NamespacesFromSame
	same.AllowedRoutes.Namespaces.From = &from
	objs := gatewayBase(kubetest.Listener("http", 80, "*.example.com"), same)
	objs = append(objs, serviceWith("app", "web", "10.0.0.1")...)
	route := func(name, section string, hosts []string, rules ...gatewayv1.HTTPRouteRule) *gatewayv1.HTTPRoute {
		if len(rules) == 0 {
			rules = append(rules, kubetest.Rule("/", []string{"web"}))
		}
		return routeAged(parentOn(kubetest.HTTPRoute("app", name, "", hosts, rules...), section), 1)
	}
	badKind := kubetest.Rule("/", []string{"web"})
	kind := gatewayv1.Kind("ConfigMap")
	badKind.BackendRefs[0].Kind = &kind
	objs = append(objs,
		route("nosection", "nope", nil),
		route("notallowed", "same", []string{"same.example.com"}),
		route("nohost", "http", []string{"shop.other.com"}),
		route("missing", "http", []string{"a.example.com"}, kubetest.Rule("/", []string{"ghost"})),
		route("kind", "http", []string{"b.example.com"}, badKind),
		route("good", "http", []string{"c.example.com"}))
	tr := translateGateway(t, objs...)
	for name, want := range map[string]string{
		"nosection":  "Accepted=False/NoMatchingParent ResolvedRefs=True/ResolvedRefs",
		"notallowed": "Accepted=False/NotAllowedByListeners ResolvedRefs=True/ResolvedRefs",
		"nohost":     "Accepted=False/NoMatchingListenerHostname ResolvedRefs=True/ResolvedRefs",
		"missing":    "Accepted=True/Accepted ResolvedRefs=False/BackendNotFound",
		"kind":       "Accepted=True/Accepted ResolvedRefs=False/InvalidKind",
		"good":       "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs",
	} {
		r := tr.Gateway.Routes["HTTPRoute app/"+name]
		if got := conditionsOf(r); got != want {
			t.Errorf("%s: %s\n want %s", name, got, want)
		}
		if c := r.Parents[0].Conditions[0]; c.ObservedGeneration != 1 || r.Parents[0].ControllerName != testGatewayController {
			t.Errorf("%s: observedGeneration %d, controller %s", name, c.ObservedGeneration, r.Parents[0].ControllerName)
		}
	}
	if got := locationsOf(tr.Servers["k8s.a.example.com"]); len(got) != 1 || got[0] != "prefix / -> return 500" {
		t.Errorf("a route to a missing Service: %v, want its rule to answer 500", got)
	}
	if got := tr.Gateway.Gateways[0].Listeners[0].Status.AttachedRoutes; got != 3 {
		t.Errorf("attachedRoutes of http = %d, want 3 (missing, kind and good; nohost shares no hostname)", got)
	}
}
