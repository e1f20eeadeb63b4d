package reconciler

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
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
	// TLSPolicies are the BackendTLSPolicies, and ConfigMaps (by "namespace/name") those
	// their caCertificateRefs name.
	TLSPolicies []*gatewayv1.BackendTLSPolicy
	ConfigMaps  map[string]*corev1.ConfigMap
	// NamespaceLabels holds every namespace's labels, for allowedRoutes' selectors.
	NamespaceLabels map[string]map[string]string
	// HTTPPort and HTTPSPort are the proxy's own ports (Options.HTTPPort, HTTPSPort).
	HTTPPort, HTTPSPort int32
	// Address is where the proxy serves its Gateways (Options.GatewayAddress) without a
	// Pool; with one (Options.GatewayAddresses), each Gateway gets its own from it.
	Address string
	Pool    *AddressPool
	// GRPCServed says whether the cluster serves GRPCRoute, TLSPolicyServed whether
	// BackendTLSPolicy.
	GRPCServed, TLSPolicyServed bool
	// RetryServed says whether the cluster's HTTPRoute keeps rules[].retry, which only
	// Gateway API's experimental channel has: elsewhere the API server drops it.
	RetryServed bool
}

// gatewaySnapshot reads the Gateway API objects of controller from g's caches into snap,
// and the Services and Secrets they reference.
func (c *cluster) gatewaySnapshot(g *gatewayCluster, controller string, snap *Snapshot) error {
	gs := &GatewaySnapshot{Controller: controller, NamespaceLabels: map[string]map[string]string{}, GRPCServed: g.grpcRoutes != nil,
		TLSPolicyServed: g.tlsPolicies != nil, RetryServed: g.retrySchema().served}
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
	if err := gs.readTLSPolicies(g); err != nil {
		return err
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

// readTLSPolicies reads the BackendTLSPolicies and the ConfigMaps they name.
func (gs *GatewaySnapshot) readTLSPolicies(g *gatewayCluster) error {
	if g.tlsPolicies == nil {
		return nil
	}
	ps, err := g.tlsPolicies.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list backendtlspolicies: %w", err)
	}
	gs.TLSPolicies, gs.ConfigMaps = ps, map[string]*corev1.ConfigMap{}
	for _, p := range ps {
		keys, _ := policyConfigMaps(p)
		for _, key := range keys {
			ns, name, _ := strings.Cut(key, "/")
			cm, err := g.configMaps.ConfigMaps(ns).Get(name)
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return fmt.Errorf("get configmap %s: %w", key, err)
			}
			gs.ConfigMaps[key] = cm
		}
	}
	return nil
}
