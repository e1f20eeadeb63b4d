package reconciler

import (
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
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
	ports map[gatewayv1.PortNumber]gatewayv1.ProtocolType
	// routes are oldest first, then by kind, namespace and name: the spec's order.
	routes []*routePlan
}

// planGateways checks the snapshot's classes, Gateways and routes; nil without Gateway API.
func planGateways(snap *Snapshot) *gatewayPlan {
	gs := snap.Gateway
	if gs == nil {
		return nil
	}
	gp := &gatewayPlan{snap: gs, whole: snap, secrets: snap.Secrets, address: gs.Address,
		classes: map[string]*classState{}, gateways: map[string]*gatewayState{},
		ports: map[gatewayv1.PortNumber]gatewayv1.ProtocolType{}}
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
	for _, gw := range gws {
		g := gp.planGateway(gw)
		gp.gateways[gw.Namespace+"/"+gw.Name] = g
		gp.gatewayList = append(gp.gatewayList, g)
	}
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

// routeEntry is one location of a route on one server: the server of a host on the
// proxy's own ports, or on a listener's port of its own.
type routeEntry struct {
	// server keys the server in the merge: the host, or host and port.
	server string
	host   string
	port   int
	// tls is the HTTPS listener the server presents the certificate of, or nil.
	tls *listenerState
	// namespace is the Gateway's, whose hostname claims the route's hosts go under.
	namespace string
	loc       api.Location
}

// entries lists the route's locations on each server it reaches: through each listener
// it is attached to that serves, on each host the route and listener share. A plain-HTTP
// listener on a port of its own makes servers of their own; an HTTPS listener serves
// the host's server of the proxy's own plain-HTTP port, with its certificate.
func (rp *routePlan) entries() []routeEntry {
	var out []routeEntry
	seen := map[string]bool{}
	for _, ps := range rp.parents {
		if ps.acceptReason != "" {
			continue
		}
		for _, l := range ps.listeners {
			if !l.serves() {
				continue
			}
			for _, h := range routeHosts(l.spec.Hostname, rp.hostnames) {
				e := routeEntry{server: h, host: h, namespace: ps.gw.obj.Namespace}
				if l.https {
					e.tls = l
				} else if l.port != 0 {
					e.server, e.port = h+" "+strconv.Itoa(l.port), l.port
				}
				// A host reached through an HTTP and an HTTPS listener is one server, which
				// the HTTPS listener's entries give its certificate.
				seenKey := e.server
				if e.tls != nil {
					seenKey += " tls"
				}
				if seen[seenKey] {
					continue
				}
				seen[seenKey] = true
				for _, loc := range rp.locs {
					e.loc = loc
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// claimants are the route's hostnames for the claim rule, one per Gateway namespace.
func (rp *routePlan) claimants() []hostClaimant {
	byNS := map[string][]string{}
	var order []string
	for _, e := range rp.entries() {
		if _, ok := byNS[e.namespace]; !ok {
			order = append(order, e.namespace)
		}
		byNS[e.namespace] = appendOnce(byNS[e.namespace], e.host)
	}
	var out []hostClaimant
	for _, ns := range order {
		out = append(out, hostClaimant{namespace: ns, hosts: byNS[ns], created: rp.meta.CreationTimestamp.Time, key: rp.key()})
	}
	return out
}

// claimants lists every route's claimants.
func (gp *gatewayPlan) claimants() []hostClaimant {
	if gp == nil {
		return nil
	}
	var out []hostClaimant
	for _, rp := range gp.routes {
		if rp.accepted() {
			out = append(out, rp.claimants()...)
		}
	}
	return out
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
