package reconciler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestGatewayRoutesServed: HTTPRoutes become locations of the servers of their hosts,
// with weighted backends balancing several Services by their weights; of two routes
// claiming one location the older keeps it and the younger is told; a Service of another
// namespace is used only with a ReferenceGrant, and without one its rule answers 500.
func TestGatewayRoutesServed(t *testing.T) {
	objs := gatewayBase()
	objs = append(objs, serviceWith("app", "web", "10.0.0.1")...)
	objs = append(objs, serviceWith("app", "canary", "10.0.0.2", "10.0.0.3")...)
	objs = append(objs, serviceWith("backend", "shared", "10.0.1.1")...)
	exact := kubetest.Rule("/exact", []string{"web"})
	pt := gatewayv1.PathMatchExact
	exact.Matches[0].Path.Type = &pt
	shop := routeAged(parentOn(kubetest.HTTPRoute("app", "shop", "", []string{"shop.example.com"},
		kubetest.Rule("/", []string{"web", "canary"}, 90, 10), kubetest.Rule("/api", []string{"web"}), exact), ""), 10)
	late := routeAged(parentOn(kubetest.HTTPRoute("app", "late", "", []string{"shop.example.com"},
		kubetest.Rule("/api", []string{"canary"}), kubetest.Rule("/late", []string{"canary"})), ""), 20)
	crossRule := kubetest.Rule("/", []string{"shared"})
	ns := gatewayv1.Namespace("backend")
	crossRule.BackendRefs[0].Namespace = &ns
	cross := routeAged(parentOn(kubetest.HTTPRoute("app", "cross", "", []string{"cross.example.com"}, crossRule), ""), 30)
	granted := routeAged(parentOn(kubetest.HTTPRoute("app", "granted", "", []string{"granted.example.com"}, crossRule), ""), 40)
	objs = append(objs, shop, late, cross, granted)

	// Without a grant, neither cross-namespace route reaches backend/shared.
	tr := translateGateway(t, objs...)
	if got := locationsOf(tr.Servers["k8s.granted.example.com"]); !cmp.Equal(got, []string{"prefix / -> return 500"}) {
		t.Errorf("granted.example.com without a grant: %v, want a 500", got)
	}
	// With one from HTTPRoutes of app, granted's and cross's rules reach it.
	tr = translateGateway(t, append(objs, grant("backend", gatewayGroup, "HTTPRoute", "app", "Service", "shared"))...)
	split := "k8s.httproute.app.shop.rule0"
	want := map[string][]string{
		"k8s.shop.example.com":    {"prefix / -> " + split, "prefix /api -> k8s.app.web.80", "exact /exact -> k8s.app.web.80", "prefix /late -> k8s.app.canary.80"},
		"k8s.cross.example.com":   {"prefix / -> k8s.backend.shared.80"},
		"k8s.granted.example.com": {"prefix / -> k8s.backend.shared.80"},
	}
	got := map[string][]string{}
	for n, s := range tr.Servers {
		got[n] = locationsOf(s)
		if s.Source.Object != api.ObjectHTTPRoute || s.Source.Namespace != "app" {
			t.Errorf("server %s source = %+v, want an HTTPRoute of app", n, s.Source)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("servers (-want +got):\n%s", d)
	}
	var eps []string
	for _, e := range tr.Backends[split].Endpoints {
		eps = append(eps, fmt.Sprintf("%s=%d", e.Address, e.Weight))
	}
	if got, want := strings.Join(eps, " "), "10.0.0.1=1000 10.0.0.2=56 10.0.0.3=56"; got != want {
		t.Errorf("weighted backend %s = %s, want %s (90 to web's one endpoint, 10 to canary's two)", split, got, want)
	}
	if r := tr.Gateway.Routes["HTTPRoute app/late"]; !r.Applied || !hasProblem(r.Problems, ReasonConflict, "HTTPRoute app/shop") {
		t.Errorf("late route: applied %t, problems %v; want applied, told that app/shop keeps /api", r.Applied, r.Problems)
	}
	for key, want := range map[string]string{
		"HTTPRoute app/shop":    "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs",
		"HTTPRoute app/granted": "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs",
	} {
		if got := conditionsOf(tr.Gateway.Routes[key]); got != want {
			t.Errorf("%s conditions = %s, want %s", key, got, want)
		}
	}
	tr = translateGateway(t, objs...)
	if got, want := conditionsOf(tr.Gateway.Routes["HTTPRoute app/cross"]), "Accepted=True/Accepted ResolvedRefs=False/RefNotPermitted"; got != want {
		t.Errorf("cross route without a grant: %s, want %s", got, want)
	}
	if l := tr.Gateway.Gateways[0].Listeners[0].Status; l.AttachedRoutes != 4 {
		t.Errorf("listener attachedRoutes = %d, want 4", l.AttachedRoutes)
	}
}

// TestGatewayRouteTenancy: a hostname held by one namespace's Ingress is refused to a
// route through a Gateway of another namespace, and the other way round; the refused one
// says why, and the others are served.
func TestGatewayRouteTenancy(t *testing.T) {
	objs := append(gatewayBase(), serviceWith("infra", "web", "10.0.0.1")...)
	objs = append(objs, serviceWith("team", "web", "10.0.0.2")...)
	held := aged(kubetest.Ingress("team", "held", "", kubetest.Path{Host: "held.example.com", Path: "/", Service: "web", Port: 80}), 1)
	thief := routeAged(parentOn(kubetest.HTTPRoute("infra", "thief", "", []string{"held.example.com"}, kubetest.Rule("/login", []string{"web"})), ""), 2)
	own := routeAged(parentOn(kubetest.HTTPRoute("infra", "own", "", []string{"own.example.com"}, kubetest.Rule("/", []string{"web"})), ""), 3)
	late := aged(kubetest.Ingress("team", "late", "", kubetest.Path{Host: "own.example.com", Path: "/x", Service: "web", Port: 80}), 4)
	tr := translateGateway(t, append(objs, held, thief, own, late)...)
	r := tr.Gateway.Routes["HTTPRoute infra/thief"]
	if r.Applied || !strings.Contains(conditionsOf(r), "Accepted=False/HostClaimed") || !hasProblem(r.Problems, ReasonHostClaimed, "held by namespace team") {
		t.Errorf("thief: applied %t, %s, %v; want refused as HostClaimed naming namespace team", r.Applied, conditionsOf(r), r.Problems)
	}
	if got := locationsOf(tr.Servers["k8s.held.example.com"]); !cmp.Equal(got, []string{"prefix / -> k8s.team.web.80"}) {
		t.Errorf("held.example.com = %v, want the Ingress's / alone", got)
	}
	if rep := tr.Reports["team/late"]; rep.Applied || !hasProblem(rep.Problems, ReasonHostClaimed, "held by namespace infra") {
		t.Errorf("late Ingress: applied %t, %v; want refused, the host being infra's", rep.Applied, rep.Problems)
	}
	if got := locationsOf(tr.Servers["k8s.own.example.com"]); !cmp.Equal(got, []string{"prefix / -> k8s.infra.web.80"}) {
		t.Errorf("own.example.com = %v, want the route's /", got)
	}
	if l := tr.Gateway.Gateways[0].Listeners[0].Status; l.AttachedRoutes != 1 {
		t.Errorf("attachedRoutes = %d, want 1: a refused route is not attached", l.AttachedRoutes)
	}
}

func hasProblem(ps []Problem, reason, text string) bool {
	for _, p := range ps {
		if p.Reason == reason && strings.Contains(p.Message, text) {
			return true
		}
	}
	return false
}

var _ = runtime.Object(nil)

// withHeader adds a header match to every match of the route's rules.
func withHeader(r *gatewayv1.HTTPRoute, name, value string) *gatewayv1.HTTPRoute {
	for i := range r.Spec.Rules {
		for j := range r.Spec.Rules[i].Matches {
			m := &r.Spec.Rules[i].Matches[j]
			m.Headers = append(m.Headers, gatewayv1.HTTPHeaderMatch{Name: gatewayv1.HTTPHeaderName(name), Value: value})
		}
	}
	return r
}

// TestGatewayPrecedence: locations of one path that differ in their conditions share the
// path, listed in the spec's order of routes (oldest first, then namespace and name) and
// of rules and matches, which decides between conditions that tie; two with the same
// conditions are one claim, the older route's.
func TestGatewayPrecedence(t *testing.T) {
	objs := append(gatewayBase(), serviceWith("app", "a", "10.0.0.1")...)
	objs = append(objs, serviceWith("app", "b", "10.0.0.2")...)
	h := []string{"p.example.com"}
	get := gatewayv1.HTTPMethodGet
	method := kubetest.Rule("/", []string{"b"})
	method.Matches[0].Method = &get
	objs = append(objs,
		routeAged(parentOn(kubetest.HTTPRoute("app", "plain", "", h, kubetest.Rule("/", []string{"b"})), ""), 30),
		routeAged(parentOn(withHeader(kubetest.HTTPRoute("app", "zeta", "", h, kubetest.Rule("/", []string{"a"})), "X-V", "1"), ""), 10),
		// Created in the same second as zeta, alpha sorts first by name: it keeps the claim.
		routeAged(parentOn(withHeader(kubetest.HTTPRoute("app", "alpha", "", h, kubetest.Rule("/", []string{"b"})), "X-V", "1"), ""), 10),
		routeAged(parentOn(kubetest.HTTPRoute("app", "method", "", h, method, kubetest.Rule("/", []string{"a"})), ""), 20))
	tr := translateGateway(t, objs...)
	got := locationsOf(tr.Servers["k8s.p.example.com"])
	want := []string{
		`prefix / {"headers":[{"name":"X-V","type":"exact","value":"1"}]} -> k8s.app.b.80`,
		`prefix / {"method":"GET"} -> k8s.app.b.80`,
		"prefix / -> k8s.app.a.80",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("locations (-want +got):\n%s", d)
	}
	if r := tr.Gateway.Routes["HTTPRoute app/zeta"]; r.Applied || !hasProblem(r.Problems, ReasonConflict, "HTTPRoute app/alpha") {
		t.Errorf("zeta: applied %t, %v; want its one location lost to alpha", r.Applied, r.Problems)
	}
	if r := tr.Gateway.Routes["HTTPRoute app/plain"]; r.Applied || !hasProblem(r.Problems, ReasonConflict, "HTTPRoute app/method") {
		t.Errorf("plain: applied %t, %v; want / without conditions lost to the older route method's second rule", r.Applied, r.Problems)
	}
}

// TestGatewayListenerServers: a route through an HTTP and an HTTPS listener of the
// proxy's own ports is one server with the HTTPS listener's certificate; through an HTTP
// listener on a port of its own, a server of that port.
func TestGatewayListenerServers(t *testing.T) {
	host := "tls.example.com"
	cert, key := kubetest.SelfSigned(t, host)
	objs := gatewayBase(kubetest.Listener("http", 80, ""), kubetest.HTTPSListener("https", 443, "", "cert"), kubetest.Listener("alt", 8081, ""))
	objs = append(objs, kubetest.TLSSecret("infra", "cert", cert, key))
	objs = append(objs, serviceWith("infra", "web", "10.0.0.1")...)
	objs = append(objs, routeAged(parentOn(kubetest.HTTPRoute("infra", "r", "", []string{host}, kubetest.Rule("/", []string{"web"})), ""), 1))
	tr := translateGateway(t, objs...)
	srv := tr.Servers["k8s.tls.example.com"]
	if srv == nil || srv.TLS == nil || srv.TLS.Certificate != "k8s.infra.cert" || srv.Port != 0 || srv.TLS.Port != 0 {
		t.Fatalf("server of the proxy's ports = %+v, want TLS with certificate k8s.infra.cert", srv)
	}
	if tr.Certificates["k8s.infra.cert"] == nil {
		t.Errorf("certificate k8s.infra.cert is not in the translation")
	}
	alt := tr.Servers["k8s.tls.example.com_8081"]
	if alt == nil || alt.Port != 8081 || alt.TLS != nil || len(alt.Locations) != 1 || alt.Hostnames[0] != host {
		t.Fatalf("server of port 8081 = %+v, want %s on 8081 without TLS", alt, host)
	}
}

// TestGatewayRouteBudget: a route counts as an Ingress in its namespace's budget; the
// newest over it is not applied and says why, the others are.
func TestGatewayRouteBudget(t *testing.T) {
	objs := append(gatewayBase(), serviceWith("app", "web", "10.0.0.1")...)
	objs = append(objs, aged(kubetest.Ingress("app", "ing", "", kubetest.Path{Host: "i.example.com", Path: "/", Service: "web", Port: 80}), 1))
	for i, name := range []string{"first", "second"} {
		objs = append(objs, routeAged(parentOn(kubetest.HTTPRoute("app", name, "", []string{name + ".example.com"}, kubetest.Rule("/", []string{"web"})), ""), 2+i))
	}
	snap := gwSnapshot(objs...)
	snap.Budgets = Budgets{Ingresses: 2}
	tr := Translate(snap, api.NewState())
	if tr.Servers["k8s.first.example.com"] == nil || tr.Servers["k8s.i.example.com"] == nil {
		t.Fatalf("servers %v, want the Ingress's and the first route's", len(tr.Servers))
	}
	r := tr.Gateway.Routes["HTTPRoute app/second"]
	if r.Applied || !strings.Contains(conditionsOf(r), "Accepted=False/LimitExceeded") || !hasProblem(r.Problems, ReasonLimitExceeded, "budget of 2 Ingresses") {
		t.Errorf("second route: applied %t, %s, %v; want refused over the budget", r.Applied, conditionsOf(r), r.Problems)
	}
}

// TestGatewayRouteBesideIngress: an Ingress and a route of one namespace share a host;
// a path both route goes to the Ingress (its paths are claimed first) and the route is
// told, and the host's server holds each path once.
func TestGatewayRouteBesideIngress(t *testing.T) {
	objs := append(gatewayBase(), serviceWith("infra", "web", "10.0.0.1")...)
	objs = append(objs, serviceWith("infra", "api", "10.0.0.2")...)
	ing := aged(kubetest.Ingress("infra", "ing", "", kubetest.Path{Host: "both.example.com", Path: "/api", Service: "web", Port: 80}), 5)
	r := routeAged(parentOn(kubetest.HTTPRoute("infra", "r", "", []string{"both.example.com"},
		kubetest.Rule("/api", []string{"api"}), kubetest.Rule("/", []string{"api"})), ""), 1)
	tr := translateGateway(t, append(objs, ing, r)...)
	got := locationsOf(tr.Servers["k8s.both.example.com"])
	if want := []string{"prefix / -> k8s.infra.api.80", "prefix /api -> k8s.infra.web.80"}; !cmp.Equal(got, want) {
		t.Errorf("both.example.com = %v, want %v", got, want)
	}
	if rr := tr.Gateway.Routes["HTTPRoute infra/r"]; !rr.Applied || !hasProblem(rr.Problems, ReasonConflict, "Ingress infra/ing") {
		t.Errorf("route: applied %t, %v; want /api lost to the Ingress, / applied", rr.Applied, rr.Problems)
	}
}

// TestGatewayPortsTheModelRefuses: what the store would refuse for the whole history is
// refused to the one listener or route that asks it: a port a REST server serves with the
// other protocol (PortUnavailable), and the catch-all's HTTPS on a port of its own beside
// the proxy's plain-HTTP port (served without it, the route told).
func TestGatewayPortsTheModelRefuses(t *testing.T) {
	cert, key := kubetest.SelfSigned(t, "x.example.com")
	objs := gatewayBase(kubetest.Listener("http", 80, ""), kubetest.Listener("on-rest-tls", 9443, "r.example.com"),
		kubetest.HTTPSListener("alt-tls", 8443, "", "cert"))
	objs = append(objs, kubetest.TLSSecret("infra", "cert", cert, key))
	objs = append(objs, serviceWith("infra", "web", "10.0.0.1")...)
	objs = append(objs, routeAged(parentOn(kubetest.HTTPRoute("infra", "all", "", nil, kubetest.Rule("/", []string{"web"})), ""), 1))
	head := api.NewState()
	head.Certificates["rest-cert"] = &api.Certificate{Name: "rest-cert", Source: api.Source{Kind: api.SourceAPI}}
	head.Servers["rest"] = &api.Server{Name: "rest", Hostnames: []string{"rest.example.com"}, Source: api.Source{Kind: api.SourceAPI},
		TLS: &api.ServerTLS{Certificate: "rest-cert", Port: 9443}, Port: 9080}
	tr := Translate(gwSnapshot(objs...), head)
	for _, l := range tr.Gateway.Gateways[0].Listeners {
		if l.Status.Name == "on-rest-tls" && !strings.Contains(listenerConditions(l), "Accepted=False/PortUnavailable") {
			t.Errorf("listener on the REST server's HTTPS port: %s, want PortUnavailable", listenerConditions(l))
		}
	}
	srv := tr.Servers["k8s._default"]
	if srv == nil || srv.TLS != nil || srv.Port != 0 {
		t.Fatalf("catch-all server = %+v, want it on the proxy's plain port without TLS", srv)
	}
	if r := tr.Gateway.Routes["HTTPRoute infra/all"]; !hasProblem(r.Problems, ReasonConflict, "HTTPS of the catch-all") {
		t.Errorf("route problems %v, want the catch-all's HTTPS refused", r.Problems)
	}
}

// TestGatewayCatchAllCertificate: an HTTPS listener without a hostname answers every
// name, those no route serves too (404): the catch-all presents its certificate, or a
// client asking for another name met the proxy's self-signed one and never got the 404.
func TestGatewayCatchAllCertificate(t *testing.T) {
	cert, key := kubetest.SelfSigned(t, "example.org")
	objs := gatewayBase(kubetest.HTTPSListener("https", 443, "", "cert"))
	objs = append(objs, kubetest.TLSSecret("infra", "cert", cert, key))
	objs = append(objs, serviceWith("infra", "web", "10.0.0.1")...)
	objs = append(objs, routeAged(parentOn(kubetest.HTTPRoute("infra", "r", "", []string{"example.org"}, kubetest.Rule("/", []string{"web"})), ""), 1))
	tr := translateGateway(t, objs...)
	srv := tr.Servers["k8s._default"]
	if srv == nil || srv.TLS == nil || srv.TLS.Certificate != "k8s.infra.cert" || len(srv.Locations) != 0 {
		t.Fatalf("catch-all server = %+v, want TLS with the listener's certificate k8s.infra.cert and no location", srv)
	}
	if got := srv.Source.String(); got != "kubernetes Gateway infra/gw" {
		t.Errorf("catch-all source = %s, want the Gateway", got)
	}
}
