package reconciler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestGatewayWeightMovesKeepLocations: a rule of several backendRefs routes to its
// weighted backend whatever their weights, 0 included, and whether each resolves: a
// weight moving between 0 and more, or a ref between resolved and not, changes that
// backend's endpoints and share answered 500 (pushed) and never the rule's location
// (rendered, a reload). A part of weight 0 gets no request; when no part has a weight,
// or none with a weight resolves, every request is answered 500, as the spec asks. A rule
// of one backendRef routes straight to its Service's backend.
func TestGatewayWeightMovesKeepLocations(t *testing.T) {
	split := "k8s.httproute.app.shop.rule0"
	for _, tc := range []struct {
		name     string
		services []string
		weights  []int32
		want     string // the split's endpoints and error weight
		resolved string // the route's ResolvedRefs condition
		split    string // the split the weighted backend records
	}{
		{"both weigh", []string{"web", "canary"}, []int32{10, 10}, "10.0.0.1=1000 10.0.0.2=1000 error=0", "True/ResolvedRefs", "app/web:80=10 app/canary:80=10 unresolved=0"},
		{"canary 0", []string{"web", "canary"}, []int32{10, 0}, "10.0.0.1=1000 error=0", "True/ResolvedRefs", "app/web:80=10 unresolved=0"},
		{"web 0", []string{"web", "canary"}, []int32{0, 10}, "10.0.0.2=1000 error=0", "True/ResolvedRefs", "app/canary:80=10 unresolved=0"},
		{"all 0", []string{"web", "canary"}, []int32{0, 0}, "error=1000", "True/ResolvedRefs", "unresolved=0"},
		{"missing weighs", []string{"web", "missing"}, []int32{10, 10}, "10.0.0.1=1000 error=1000", "False/BackendNotFound", "app/web:80=10 unresolved=10"},
		{"missing 0", []string{"web", "missing"}, []int32{10, 0}, "10.0.0.1=1000 error=0", "False/BackendNotFound", "app/web:80=10 unresolved=0"},
		{"web 0 beside missing", []string{"web", "missing"}, []int32{0, 10}, "error=1000", "False/BackendNotFound", "unresolved=10"},
		{"none resolves", []string{"ghost", "missing"}, []int32{1, 1}, "error=1000", "False/BackendNotFound", "unresolved=2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := append(gatewayBase(), serviceWith("app", "web", "10.0.0.1")...)
			objs = append(objs, serviceWith("app", "canary", "10.0.0.2")...)
			objs = append(objs, routeAged(parentOn(kubetest.HTTPRoute("app", "shop", "", []string{"shop.example.com"},
				kubetest.Rule("/", tc.services, tc.weights...)), ""), 10))
			tr := translateGateway(t, objs...)
			srv := tr.Servers["k8s.shop.example.com"]
			if got, want := locationsOf(srv), []string{"prefix / -> " + split}; !cmp.Equal(got, want) {
				t.Fatalf("locations = %v, want %v", got, want)
			}
			// The whole location, as the nginx.conf renders it, is the one of the rule
			// whose every ref resolves and weighs.
			if d := cmp.Diff(api.Location{Path: "/", Match: api.MatchPrefix, Backend: split}, srv.Locations[0]); d != "" {
				t.Errorf("location (-want +got):\n%s", d)
			}
			b := tr.Backends[split]
			if b == nil {
				t.Fatalf("no backend %s", split)
			}
			var eps []string
			for _, e := range b.Endpoints {
				eps = append(eps, fmt.Sprintf("%s=%d", e.Address, e.Weight))
			}
			if got := strings.TrimSpace(fmt.Sprintf("%s error=%d", strings.Join(eps, " "), b.ErrorWeight)); got != tc.want {
				t.Errorf("weighted backend = %s, want %s", got, tc.want)
			}
			if got := splitOf(b); got != tc.split {
				t.Errorf("weighted backend's split = %s, want %s", got, tc.split)
			}
			if b.Protocol != "" && b.Protocol != api.ProtocolHTTP {
				t.Errorf("weighted backend protocol = %q, want plain HTTP", b.Protocol)
			}
			if got, want := conditionsOf(tr.Gateway.Routes["HTTPRoute app/shop"]), "Accepted=True/Accepted ResolvedRefs="+tc.resolved; got != want {
				t.Errorf("route conditions = %s, want %s", got, want)
			}
		})
	}

	// One backendRef: no weighted backend, its Service's backend; of weight 0, a 500.
	for _, tc := range []struct {
		weights []int32
		want    string
	}{{nil, "prefix / -> k8s.app.web.80"}, {[]int32{0}, "prefix / -> return 500"}} {
		objs := append(gatewayBase(), serviceWith("app", "web", "10.0.0.1")...)
		objs = append(objs, routeAged(parentOn(kubetest.HTTPRoute("app", "shop", "", []string{"shop.example.com"},
			kubetest.Rule("/", []string{"web"}, tc.weights...)), ""), 10))
		tr := translateGateway(t, objs...)
		if got := locationsOf(tr.Servers["k8s.shop.example.com"]); !cmp.Equal(got, []string{tc.want}) {
			t.Errorf("one backendRef of weights %v: locations = %v, want %s", tc.weights, got, tc.want)
		}
		if b := tr.Backends[split]; b != nil {
			t.Errorf("one backendRef of weights %v: a weighted backend %+v", tc.weights, b)
		}
	}
}

// TestGatewayGRPCWeightMovesKeepLocations: a GRPCRoute's rule of several backendRefs keeps
// its location and its weighted backend's protocol, gRPC, whatever the weights, also
// when none weighs or none resolves.
func TestGatewayGRPCWeightMovesKeepLocations(t *testing.T) {
	split := "k8s.grpcroute.app.greet.rule0"
	var first []api.Location
	for _, tc := range []struct {
		services []string
		weights  [2]int32
		want     string
	}{
		{[]string{"greeter", "next"}, [2]int32{1, 1}, "10.0.0.1=1000 10.0.0.2=1000 error=0"},
		{[]string{"greeter", "next"}, [2]int32{1, 0}, "10.0.0.1=1000 error=0"},
		{[]string{"greeter", "next"}, [2]int32{0, 0}, "error=1000"},
		{[]string{"ghost", "missing"}, [2]int32{1, 1}, "error=1000"},
	} {
		objs := append(gatewayBase(), serviceWith("app", "greeter", "10.0.0.1")...)
		objs = append(objs, serviceWith("app", "next", "10.0.0.2")...)
		port := gatewayv1.PortNumber(80)
		ns := gatewayv1.Namespace("infra")
		var refs []gatewayv1.GRPCBackendRef
		for i, s := range tc.services {
			refs = append(refs, gatewayv1.GRPCBackendRef{BackendRef: gatewayv1.BackendRef{Weight: &tc.weights[i],
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(s), Port: &port}}})
		}
		objs = append(objs, routeAged(&gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "greet"},
			Spec: gatewayv1.GRPCRouteSpec{
				CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "gw", Namespace: &ns}}},
				Hostnames:       []gatewayv1.Hostname{"grpc.example.com"},
				Rules:           []gatewayv1.GRPCRouteRule{{BackendRefs: refs}}}}, 10))
		tr := translateGateway(t, objs...)
		what := fmt.Sprintf("%v of weights %v", tc.services, tc.weights)
		srv := tr.Servers["k8s.grpc.example.com"]
		if srv == nil {
			t.Fatalf("%s: no server (servers: %v)", what, keysOf(tr.Servers))
		}
		if first == nil {
			first = srv.Locations
		}
		if d := cmp.Diff(first, srv.Locations); d != "" || srv.Locations[0].Backend != split {
			t.Errorf("%s: locations (-first +got):\n%s (backend %s, want %s)", what, d, srv.Locations[0].Backend, split)
		}
		b := tr.Backends[split]
		if b == nil {
			t.Fatalf("%s: no backend %s", what, split)
		}
		var eps []string
		for _, e := range b.Endpoints {
			eps = append(eps, fmt.Sprintf("%s=%d", e.Address, e.Weight))
		}
		if got := strings.TrimSpace(fmt.Sprintf("%s error=%d", strings.Join(eps, " "), b.ErrorWeight)); got != tc.want || b.Protocol != api.ProtocolGRPC {
			t.Errorf("%s: weighted backend = %s, protocol %q; want %s, grpc", what, got, b.Protocol, tc.want)
		}
	}
}

// splitOf spells the split of a weighted backend: "app/web:80=10 app/canary:80=10
// unresolved=0".
func splitOf(b *api.Backend) string {
	if b.Split == nil {
		return "<no split>"
	}
	var s []string
	for _, p := range b.Split.Parts {
		s = append(s, fmt.Sprintf("%s/%s:%d=%d", p.Namespace, p.Service, p.Port, p.Weight))
	}
	return strings.Join(append(s, fmt.Sprintf("unresolved=%d", b.Split.UnresolvedWeight)), " ")
}
