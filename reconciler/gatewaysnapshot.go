package reconciler

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// GatewaySnapshot is the Gateway API part of a snapshot: the GatewayClasses of
// restyplane's controller, their Gateways, the routes whose parentRefs name one of them
// (or whose status still has a parent of restyplane's),
// the ReferenceGrants, and the namespaces' labels. The Services and Secrets they reference
// are in the Snapshot's maps beside the Ingresses'.
type GatewaySnapshot struct {
	// Controller is the GatewayClass controllerName restyplane answers to.
	Controller string
	Classes    []*gatewayv1.GatewayClass
	Gateways   []*gatewayv1.Gateway
	HTTPRoutes []*gatewayv1.HTTPRoute
	GRPCRoutes []*gatewayv1.GRPCRoute
	Grants     []*gatewayv1beta1.ReferenceGrant
	// NamespaceLabels holds every namespace's labels, for allowedRoutes' selectors.
	NamespaceLabels map[string]map[string]string
	// HTTPPort and HTTPSPort are the proxy's own ports (Options.HTTPPort, HTTPSPort).
	HTTPPort, HTTPSPort int32
	// Address is where the proxy serves its Gateways (Options.GatewayAddress).
	Address string
	// GRPCServed says whether the cluster serves GRPCRoute.
	GRPCServed bool
}

// gatewaySnapshot reads the Gateway API objects of controller from g's caches into snap,
// and the Services and Secrets they reference.
func (c *cluster) gatewaySnapshot(g *gatewayCluster, controller string, snap *Snapshot) error {
	gs := &GatewaySnapshot{Controller: controller, NamespaceLabels: map[string]map[string]string{}, GRPCServed: g.grpcRoutes != nil}
	classes, err := g.classes.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list gatewayclasses: %w", err)
	}
	ours := map[string]bool{}
	for _, gc := range classes {
		if string(gc.Spec.ControllerName) == controller {
			gs.Classes = append(gs.Classes, gc)
			ours[gc.Name] = true
		}
	}
	gws, err := g.gateways.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list gateways: %w", err)
	}
	parents := map[string]bool{}
	for _, gw := range gws {
		if !ours[string(gw.Spec.GatewayClassName)] {
			continue
		}
		gs.Gateways = append(gs.Gateways, gw)
		parents[gw.Namespace+"/"+gw.Name] = true
		for _, key := range gatewaySecretKeys(gw) {
			if err := c.addAnySecret(snap, key); err != nil {
				return err
			}
		}
	}
	hrs, err := g.httpRoutes.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list httproutes: %w", err)
	}
	for _, r := range hrs {
		if namesParent(r.Namespace, r.Spec.ParentRefs, parents) || saidBy(r.Status.Parents, controller) {
			gs.HTTPRoutes = append(gs.HTTPRoutes, r)
		}
	}
	if g.grpcRoutes != nil {
		grs, err := g.grpcRoutes.List(labels.Everything())
		if err != nil {
			return fmt.Errorf("list grpcroutes: %w", err)
		}
		for _, r := range grs {
			if namesParent(r.Namespace, r.Spec.ParentRefs, parents) || saidBy(r.Status.Parents, controller) {
				gs.GRPCRoutes = append(gs.GRPCRoutes, r)
			}
		}
	}
	for _, key := range gs.serviceKeys() {
		if err := c.addService(snap, key); err != nil {
			return err
		}
	}
	if g.grants != nil {
		if gs.Grants, err = g.grants.List(labels.Everything()); err != nil {
			return fmt.Errorf("list referencegrants: %w", err)
		}
	}
	nss, err := g.namespaces.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list namespaces: %w", err)
	}
	for _, ns := range nss {
		gs.NamespaceLabels[ns.Name] = ns.Labels
	}
	snap.Gateway = gs
	return nil
}

// addAnySecret puts the Secret key ("namespace/name") into snap from either cache, the TLS
// Secrets' or the Opaque ones': a certificateRef to an Opaque Secret is refused by name.
func (c *cluster) addAnySecret(snap *Snapshot, key string) error {
	ns, name, _ := strings.Cut(key, "/")
	s, err := c.secrets.Secrets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		s, err = c.authSecrets.Secrets(ns).Get(name)
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("get secret %s: %w", key, err)
	}
	if s != nil {
		snap.Secrets[key] = s
	}
	return nil
}

// namesParent reports whether one of a route's parentRefs names a Gateway of parents.
func namesParent(ns string, refs []gatewayv1.ParentReference, parents map[string]bool) bool {
	for _, ref := range refs {
		if isGatewayRef(ref) && parents[refNamespace(ref.Namespace, ns)+"/"+string(ref.Name)] {
			return true
		}
	}
	return false
}

// saidBy reports whether a route's status holds a parent of controller: a route that
// no longer names a Gateway of restyplane's is still read, so that its status loses them.
func saidBy(parents []gatewayv1.RouteParentStatus, controller string) bool {
	for _, p := range parents {
		if string(p.ControllerName) == controller {
			return true
		}
	}
	return false
}

// isGatewayRef reports whether a parentRef names a Gateway (its default kind).
func isGatewayRef(ref gatewayv1.ParentReference) bool {
	return (ref.Group == nil || *ref.Group == gatewayv1.GroupName) && (ref.Kind == nil || *ref.Kind == "Gateway")
}

// refNamespace is a reference's namespace, its object's own when it names none.
func refNamespace(ns *gatewayv1.Namespace, own string) string {
	if ns == nil || *ns == "" {
		return own
	}
	return string(*ns)
}

// serviceKeys lists the Services the snapshot's routes name, for the snapshot's maps.
func (gs *GatewaySnapshot) serviceKeys() []string {
	var keys []string
	for _, r := range gs.HTTPRoutes {
		keys = append(keys, httpRouteServiceKeys(r)...)
	}
	for _, r := range gs.GRPCRoutes {
		keys = append(keys, grpcRouteServiceKeys(r)...)
	}
	return keys
}
