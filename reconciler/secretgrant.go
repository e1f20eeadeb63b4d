package reconciler

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// secretPermitted refuses a Secret of another namespace than the Ingress's, which one of
// its annotations names (key "namespace/name"), unless a ReferenceGrant in that
// namespace lets Ingresses of the Ingress's namespace use it: Gateway API's handshake,
// by which a team gives another the use of one of its Secrets. Without it, one team
// would make another's CA or passwords its own.
func secretPermitted(ing *networkingv1.Ingress, annotation, key string, snap *Snapshot) error {
	ns, name, _ := strings.Cut(key, "/")
	if ns == ing.Namespace {
		return nil
	}
	var grants []*gatewayv1beta1.ReferenceGrant
	if snap.Gateway != nil {
		grants = snap.Gateway.Grants
	}
	if permits(grants, ingressFrom(ing), grantTo{"", "Secret", ns, name}) {
		return nil
	}
	return fmt.Errorf("%w: annotation %s names Secret %s of another namespace; an Ingress may use another namespace's Secret only when a ReferenceGrant (gateway.networking.k8s.io/v1beta1) in namespace %s lets Ingresses (networking.k8s.io) of namespace %s use it",
		errRefusedAnnotation, annotation, key, ns, ing.Namespace)
}

// ingressFrom is an Ingress as the referring side of a ReferenceGrant.
func ingressFrom(ing *networkingv1.Ingress) grantFrom {
	return grantFrom{networkingGroup, "Ingress", ing.Namespace}
}

// secretGranted reports whether the Ingress may read Secret name of namespace ns: one of
// its own namespace, or of another whose ReferenceGrant lets it. The reconciler reads no
// other namespace's Secret without one.
func (c *cluster) secretGranted(ing *networkingv1.Ingress, ns, name string) bool {
	if ns == ing.Namespace {
		return true
	}
	g := c.gateway.Load()
	if g == nil || g.grants == nil {
		return false
	}
	grants, err := g.grants.ReferenceGrants(ns).List(labels.Everything())
	return err == nil && permits(grants, ingressFrom(ing), grantTo{"", "Secret", ns, name})
}
