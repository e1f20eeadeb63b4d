package reconciler

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

const testGatewayController = "restyplane.io/gateway-controller"

// gwSnapshot is snapshotOf with the Gateway API objects among objs in its Gateway part;
// the proxy's own ports are 80 and 443.
func gwSnapshot(objs ...runtime.Object) *Snapshot {
	s := snapshotOf(objs...)
	gs := &GatewaySnapshot{Controller: testGatewayController, HTTPPort: 80, HTTPSPort: 443, GRPCServed: true,
		Address: "10.1.1.1", NamespaceLabels: map[string]map[string]string{}}
	for _, o := range objs {
		switch o := o.(type) {
		case *gatewayv1.GatewayClass:
			gs.Classes = append(gs.Classes, o)
		case *gatewayv1.Gateway:
			gs.Gateways = append(gs.Gateways, o)
		case *gatewayv1.HTTPRoute:
			gs.HTTPRoutes = append(gs.HTTPRoutes, o)
		case *gatewayv1.GRPCRoute:
			gs.GRPCRoutes = append(gs.GRPCRoutes, o)
		case *gatewayv1beta1.ReferenceGrant:
			gs.Grants = append(gs.Grants, o)
		case *corev1.Namespace:
			gs.NamespaceLabels[o.Name] = o.Labels
		case *gatewayv1.BackendTLSPolicy:
			gs.TLSPolicies, gs.TLSPolicyServed = append(gs.TLSPolicies, o), true
		case *corev1.ConfigMap:
			if gs.ConfigMaps == nil {
				gs.ConfigMaps = map[string]*corev1.ConfigMap{}
			}
			gs.ConfigMaps[o.Namespace+"/"+o.Name] = o
		}
	}
	s.Gateway = gs
	return s
}

// routeAged gives a route a creation time minutes after epoch and a generation.
func routeAged[T interface{ GetObjectMeta() metav1.Object }](r T, minutes int) T {
	m := r.GetObjectMeta()
	m.SetCreationTimestamp(metav1.NewTime(epoch.Add(time.Duration(minutes) * time.Minute)))
	m.SetGeneration(1)
	m.SetUID(types.UID("uid-" + m.GetNamespace() + "-" + m.GetName()))
	return r
}

// serviceWith is a Service of port 80 and its EndpointSlice with the addresses on 8080.
func serviceWith(ns, name string, addrs ...string) []runtime.Object {
	return []runtime.Object{kubetest.Service(ns, name, 80), kubetest.EndpointSlice(ns, name, name+"-1", 8080, kubetest.Ready(addrs...)...)}
}

// gatewayBase is a class of restyplane's and a Gateway "gw" in namespace infra with an
// HTTP listener "http" on port 80 that admits every namespace.
func gatewayBase(listeners ...gatewayv1.Listener) []runtime.Object {
	if len(listeners) == 0 {
		listeners = []gatewayv1.Listener{kubetest.Listener("http", 80, "")}
	}
	gw := kubetest.Gateway("infra", "gw", "rp", listeners...)
	gw.Generation = 1
	return []runtime.Object{kubetest.GatewayClass("rp", testGatewayController), gw}
}

// parentOn attaches a route to Gateway infra/gw.
func parentOn(r *gatewayv1.HTTPRoute, section string) *gatewayv1.HTTPRoute {
	ns := gatewayv1.Namespace("infra")
	r.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "gw", Namespace: &ns}}
	if section != "" {
		s := gatewayv1.SectionName(section)
		r.Spec.ParentRefs[0].SectionName = &s
	}
	return r
}

// conditionsOf spells a route's status per parent: "Type=Status/Reason" sorted.
func conditionsOf(rep *RouteReport) string {
	var out []string
	for _, p := range rep.Parents {
		var cs []string
		for _, c := range p.Conditions {
			cs = append(cs, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
		}
		sort.Strings(cs)
		out = append(out, strings.Join(cs, " "))
	}
	return strings.Join(out, " | ")
}

// locationsOf spells a server's locations: "match path -> backend" or "-> return code".
func locationsOf(srv *api.Server) []string {
	if srv == nil {
		return []string{"no server"}
	}
	var out []string
	for _, l := range srv.Locations {
		to := "-> " + l.Backend
		if l.Return != nil {
			to = fmt.Sprintf("-> return %d", l.Return.Code)
		}
		if k := whenKey(l); k != "" {
			to = k + " " + to
		}
		out = append(out, l.Match+" "+l.Path+" "+to)
	}
	return out
}

func translateGateway(t *testing.T, objs ...runtime.Object) *Translation {
	t.Helper()
	tr := Translate(gwSnapshot(objs...), api.NewState())
	if tr.Gateway == nil {
		t.Fatal("no Gateway report")
	}
	return tr
}
