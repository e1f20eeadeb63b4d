package reconciler

import (
	"maps"
	"slices"
	"sort"

	"github.com/restyplane/restyplane/api"
	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// gatewayPlan is the Gateway API part of one translation: the classes, Gateways and
// routes of restyplane's controller, each checked on its own, before the routes meet the
// Ingresses (gatewaymerge.go).
type gatewayPlan struct {
	snap    *GatewaySnapshot
	whole   *Snapshot
	secrets map[string]*corev1.Secret
	address string
	classes map[string]*classState
	// gateways are by "namespace/name"; gatewayList holds them oldest first.
	gateways    map[string]*gatewayState
	gatewayList []*gatewayState
	// ports are the protocols the Gateways serve their ports with, the oldest's first.
	ports map[gatewayPort]gatewayv1.ProtocolType
	// restPorts are the ports of their own the REST API's servers listen on, and which
	// server: nginx serves a port with one protocol.
	restPorts map[restPort]string
	// routes are oldest first, then by kind, namespace and name: the spec's order.
	routes []*routePlan
	// tlsPolicies are the BackendTLSPolicies by the targets each holds; tlsPolicyList
	// all of them, oldest first.
	tlsPolicies   map[policyTarget]*tlsPolicyState
	tlsPolicyList []*tlsPolicyState
}

// restPort is a port of a REST server's own: plain HTTP or HTTPS.
type restPort struct {
	port  int
	plain bool
}

// planGateways checks the snapshot's classes, Gateways and routes; nil without Gateway API.
func planGateways(snap *Snapshot, head *api.State) *gatewayPlan {
	gs := snap.Gateway
	if gs == nil {
		return nil
	}
	gp := &gatewayPlan{snap: gs, whole: snap, secrets: snap.Secrets, address: gs.Address,
		classes: map[string]*classState{}, gateways: map[string]*gatewayState{},
		ports: map[gatewayPort]gatewayv1.ProtocolType{}, restPorts: map[restPort]string{}}
	for _, n := range slices.Sorted(maps.Keys(head.Servers)) {
		if srv := head.Servers[n]; srv.Source.Kind != api.SourceKubernetes {
			if srv.Port != 0 {
				gp.restPorts[restPort{srv.Port, true}] = n
			}
			if srv.TLS != nil && srv.TLS.Port != 0 {
				gp.restPorts[restPort{srv.TLS.Port, false}] = n
			}
		}
	}
	for _, gc := range gs.Classes {
		gp.classes[gc.Name] = planClass(gc)
	}
	gws := append([]*gatewayv1.Gateway(nil), gs.Gateways...)
	sort.Slice(gws, func(i, j int) bool {
		a, b := gws[i], gws[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	addrs := gp.assignAddresses(gws)
	for _, gw := range gws {
		g := gp.planGateway(gw, addrs[gw])
		gp.gateways[gw.Namespace+"/"+gw.Name] = g
		gp.gatewayList = append(gp.gatewayList, g)
	}
	gp.planTLSPolicies()
	for _, r := range gs.HTTPRoutes {
		gp.routes = append(gp.routes, gp.planHTTPRoute(r))
	}
	for _, r := range gs.GRPCRoutes {
		gp.routes = append(gp.routes, gp.planGRPCRoute(r))
	}
	sort.Slice(gp.routes, func(i, j int) bool {
		a, b := gp.routes[i].meta, gp.routes[j].meta
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		if a.Namespace+"/"+a.Name != b.Namespace+"/"+b.Name {
			return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
		}
		return gp.routes[i].kind < gp.routes[j].kind
	})
	for _, rp := range gp.routes {
		gp.attach(rp)
	}
	return gp
}
