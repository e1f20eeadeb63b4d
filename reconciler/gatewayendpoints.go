package reconciler

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// routeBackends adds to fresh the backends, with their endpoints read again, of the
// Gateway API routes that route to the dirty Services, each route planned again on its
// own (endpointsOnly's part for routes). It reports false when that might differ from what
// a full translation gives: a route of the last translation that routes to a dirty
// Service was not applied whole (refused, a rule left out, a reference not resolved), has
// changed since, or now plans with a problem. A route the last translation did not know
// is not restyplane's, or its own change is still on its way; either way none of its
// backends is in the head.
func (c *cluster) routeBackends(prev *Translation, dirty map[string]bool, snap *Snapshot, fresh map[string]*api.Backend) (bool, error) {
	g := c.gateway.Load()
	if g == nil {
		return true, nil
	}
	if prev.Gateway == nil {
		return false, nil
	}
	var routes []runtime.Object
	seen := map[string]bool{}
	for svc := range dirty {
		for _, ix := range g.routeIndexes {
			objs, err := ix.ByIndex(byService, svc)
			if err != nil {
				return false, fmt.Errorf("routes of service %s: %w", svc, err)
			}
			for _, obj := range objs {
				key := routeKey(obj)
				rr := prev.Gateway.Routes[key]
				if rr == nil || seen[key] {
					continue
				}
				seen[key] = true
				if !rr.Applied || len(rr.Problems) > 0 || specChanged(rr.Route, obj) {
					return false, nil
				}
				routes = append(routes, obj.(runtime.Object))
			}
		}
	}
	if len(routes) == 0 {
		return true, nil
	}
	gs := &GatewaySnapshot{Controller: c.gatewayController}
	if g.grants != nil {
		var err error
		if gs.Grants, err = g.grants.List(labels.Everything()); err != nil {
			return false, fmt.Errorf("list referencegrants: %w", err)
		}
	}
	gp := &gatewayPlan{snap: gs, whole: snap, secrets: snap.Secrets}
	for _, obj := range routes {
		keys, _ := routeServices(obj)
		for _, key := range keys {
			if err := c.addService(snap, key); err != nil {
				return false, err
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
			return false, nil
		}
		for name, b := range rp.backends {
			fresh[name] = b
		}
	}
	return true, nil
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
