package reconciler

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// routeBackends adds to fresh the backends, with their endpoints read again, of the
// Gateway API routes that route to the dirty Services or were edited, each route planned
// again on its own (endpointsOnly's part for routes), and to ports the endpoints of the
// Service ports their backendRefs resolve to, and returns the report of the
// routes with the edited ones at their new generation. It reports false when that might
// differ from what a full translation gives: such a route of the last translation was not
// applied whole (refused, a rule left out, a reference not resolved), one of the dirty
// Services' has changed since, or one now plans with a problem, or an edited one with
// other locations, hostnames or parents, or other backends than before (a backendRef
// more or less). A route that routes to a dirty Service and that the last
// translation did not know is not restyplane's, or its own change is still on its way;
// either way none of its backends is in the head.
func (c *cluster) routeBackends(prev *Translation, dirty, edited map[string]bool, snap *Snapshot, fresh map[string]*api.Backend, ports map[refPort][]api.Endpoint) (*GatewayReport, bool, error) {
	g := c.gateway.Load()
	if g == nil {
		return prev.Gateway, len(edited) == 0, nil
	}
	if prev.Gateway == nil || prev.gw == nil {
		return nil, false, nil
	}
	routes := map[string]runtime.Object{}
	for key := range edited {
		obj := g.route(key)
		rr, old := prev.Gateway.Routes[key], prev.gw.route(key)
		if obj == nil || rr == nil || old == nil || !rr.Applied || len(rr.Problems) > 0 {
			return nil, false, nil
		}
		routes[key] = obj
	}
	for svc := range dirty {
		for _, ix := range g.routeIndexes {
			objs, err := ix.ByIndex(byService, svc)
			if err != nil {
				return nil, false, fmt.Errorf("routes of service %s: %w", svc, err)
			}
			for _, obj := range objs {
				key := routeKey(obj)
				rr := prev.Gateway.Routes[key]
				if rr == nil || routes[key] != nil {
					continue
				}
				if !rr.Applied || len(rr.Problems) > 0 || specChanged(rr.Route, obj) {
					return nil, false, nil
				}
				routes[key] = obj.(runtime.Object)
			}
		}
	}
	if len(routes) == 0 {
		return prev.Gateway, true, nil
	}
	gs := &GatewaySnapshot{Controller: c.gatewayController}
	if g.grants != nil {
		var err error
		if gs.Grants, err = g.grants.List(labels.Everything()); err != nil {
			return nil, false, fmt.Errorf("list referencegrants: %w", err)
		}
	}
	// The policies too: a Service a BackendTLSPolicy covers has a TLS backend of its own.
	if err := gs.readTLSPolicies(g); err != nil {
		return nil, false, err
	}
	gp := &gatewayPlan{snap: gs, whole: snap, secrets: snap.Secrets}
	gp.planTLSPolicies()
	report := prev.Gateway
	for key, obj := range routes {
		keys, _ := routeServices(obj)
		for _, svc := range keys {
			if err := c.addService(snap, svc); err != nil {
				return nil, false, err
			}
		}
		var rp *routePlan
		switch r := obj.(type) {
		case *gatewayv1.HTTPRoute:
			rp = gp.planHTTPRoute(r)
		case *gatewayv1.GRPCRoute:
			rp = gp.planGRPCRoute(r)
		}
		if rp == nil || len(rp.problems) > 0 || len(rp.invalid) > 0 || rp.refsReason != "" {
			return nil, false, nil
		}
		if edited[key] {
			if !sameShape(prev.gw.route(key), rp) {
				return nil, false, nil
			}
			report = report.withGeneration(key, rp)
		}
		for name, b := range rp.backends {
			fresh[name] = b
		}
		maps.Copy(ports, rp.refPorts)
	}
	return report, true, nil
}

// sameShape reports whether a route planned again routes what it did, by the same
// locations and backends' names, on the same hosts and parents: what it changes then is
// the backends' endpoints and weights alone.
func sameShape(old, rp *routePlan) bool {
	return reflect.DeepEqual(old.locs, rp.locs) && reflect.DeepEqual(old.hostnames, rp.hostnames) &&
		reflect.DeepEqual(old.parentRefs, rp.parentRefs) && slices.Equal(slices.Sorted(maps.Keys(old.backends)), slices.Sorted(maps.Keys(rp.backends)))
}

// route is the plan of the route named key ("Kind namespace/name"), nil if none.
func (gp *gatewayPlan) route(key string) *routePlan {
	for _, rp := range gp.routes {
		if rp.key() == key {
			return rp
		}
	}
	return nil
}

// withGeneration is the report with the route of key told at rp's object and generation,
// as a full translation of the same plan would tell it; the report itself is not changed.
func (r *GatewayReport) withGeneration(key string, rp *routePlan) *GatewayReport {
	out := *r
	out.Routes = maps.Clone(r.Routes)
	rr := *r.Routes[key]
	rr.Route, rr.Meta = rp.obj, rp.meta
	rr.Parents = make([]gatewayv1.RouteParentStatus, len(r.Routes[key].Parents))
	for i, p := range r.Routes[key].Parents {
		p.Conditions = slices.Clone(p.Conditions)
		for j := range p.Conditions {
			p.Conditions[j].ObservedGeneration = rp.meta.Generation
		}
		rr.Parents[i] = p
	}
	out.Routes[key] = &rr
	return &out
}

// route is the route named key ("Kind namespace/name") in the caches, nil if none.
func (g *gatewayCluster) route(key string) runtime.Object {
	kind, nsName, _ := strings.Cut(key, " ")
	ns, name, _ := strings.Cut(nsName, "/")
	switch {
	case kind == api.ObjectHTTPRoute:
		if r, err := g.httpRoutes.HTTPRoutes(ns).Get(name); err == nil {
			return r
		}
	case kind == api.ObjectGRPCRoute && g.grpcRoutes != nil:
		if r, err := g.grpcRoutes.GRPCRoutes(ns).Get(name); err == nil {
			return r
		}
	}
	return nil
}

// routeKey names a route as a GatewayReport does: "Kind namespace/name".
func routeKey(obj any) string {
	switch r := obj.(type) {
	case *gatewayv1.HTTPRoute:
		return api.ObjectHTTPRoute + " " + r.Namespace + "/" + r.Name
	case *gatewayv1.GRPCRoute:
		return api.ObjectGRPCRoute + " " + r.Namespace + "/" + r.Name
	}
	return ""
}
