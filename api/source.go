package api

import "fmt"

// Owners of an object.
const (
	SourceAPI        = "api"
	SourceKubernetes = "kubernetes"
)

// The cluster objects a kubernetes source may name in Object. An Ingress's objects leave
// Object empty, as they did before routes existed, so that their history does not change.
const (
	ObjectIngress   = "Ingress"
	ObjectHTTPRoute = "HTTPRoute"
	ObjectGRPCRoute = "GRPCRoute"
	ObjectGateway   = "Gateway"
	// ObjectBackendTLSPolicy owns the CA bundle a BackendTLSPolicy's ConfigMaps make.
	ObjectBackendTLSPolicy = "BackendTLSPolicy"
)

// Source records who owns an object. The reconciler only changes what Kubernetes owns, and
// a REST write to a kubernetes-owned object is refused with a pointer to the cluster object.
type Source struct {
	Kind string `json:"kind,omitempty" enums:"api,kubernetes" example:"api"`
	// Object is the kind of the cluster object behind a kubernetes source: a Gateway API
	// route (HTTPRoute, GRPCRoute), a Gateway for the catch-all server its HTTPS listener
	// without a hostname makes, or a BackendTLSPolicy for its CA bundle; empty for an
	// Ingress, a Service or a Secret.
	Object    string `json:"object,omitempty" enums:"HTTPRoute,GRPCRoute,Gateway,BackendTLSPolicy" example:"HTTPRoute"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	UID       string `json:"uid,omitempty"`
}

// String names the owner for messages, e.g. "kubernetes HTTPRoute shop/web".
func (s Source) String() string {
	if s.Kind == SourceKubernetes {
		if s.Object != "" {
			return fmt.Sprintf("kubernetes %s %s/%s", s.Object, s.Namespace, s.Name)
		}
		return fmt.Sprintf("kubernetes object %s/%s", s.Namespace, s.Name)
	}
	return "the REST API"
}

func (s Source) validate() error {
	switch s.Kind {
	case "", SourceAPI:
		if s.Namespace != "" || s.Name != "" || s.UID != "" || s.Object != "" {
			return Invalid("source", "object, namespace, name and uid belong to kubernetes sources only")
		}
	case SourceKubernetes:
		for _, f := range []struct{ n, v string }{{"namespace", s.Namespace}, {"name", s.Name}, {"uid", s.UID}} {
			if err := ValidText("source."+f.n, f.v, 253); err != nil {
				return err
			}
		}
		switch s.Object {
		case "", ObjectHTTPRoute, ObjectGRPCRoute, ObjectGateway, ObjectBackendTLSPolicy:
		default:
			return Invalid("source.object", "must be HTTPRoute, GRPCRoute, Gateway or BackendTLSPolicy, or empty")
		}
	default:
		return Invalid("source.kind", "must be api or kubernetes")
	}
	return nil
}
