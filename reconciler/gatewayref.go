package reconciler

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

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
