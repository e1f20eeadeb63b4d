package reconciler

import (
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// grantFrom is the side of a cross-namespace reference that refers: an object's group, kind
// and namespace ("" is the core group).
type grantFrom struct{ group, kind, namespace string }

// grantTo is the object referred to: its group, kind, namespace and name.
type grantTo struct{ group, kind, namespace, name string }

// Groups of the objects that refer across namespaces.
const (
	gatewayGroup    = "gateway.networking.k8s.io"
	networkingGroup = "networking.k8s.io"
)

// permits reports whether a reference from one namespace to an object of another is
// allowed by a ReferenceGrant, Gateway API's handshake: the namespace referred to holds
// a grant whose from names the referring kind and namespace and whose to names the kind
// and, when it names one, the object. A reference within one namespace needs none.
func permits(grants []*gatewayv1beta1.ReferenceGrant, from grantFrom, to grantTo) bool {
	if from.namespace == to.namespace {
		return true
	}
	for _, g := range grants {
		if g.Namespace != to.namespace {
			continue
		}
		fromOK := false
		for _, f := range g.Spec.From {
			if coreGroup(string(f.Group)) == coreGroup(from.group) && string(f.Kind) == from.kind && string(f.Namespace) == from.namespace {
				fromOK = true
				break
			}
		}
		if !fromOK {
			continue
		}
		for _, t := range g.Spec.To {
			if coreGroup(string(t.Group)) == coreGroup(to.group) && string(t.Kind) == to.kind && (t.Name == nil || string(*t.Name) == to.name) {
				return true
			}
		}
	}
	return false
}

// coreGroup spells the core group one way: "" (a reference may write it "core").
func coreGroup(g string) string {
	if g == "core" {
		return ""
	}
	return g
}
