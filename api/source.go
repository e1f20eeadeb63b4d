package api

import "fmt"

// Owners of an object.
const (
	SourceAPI        = "api"
	SourceKubernetes = "kubernetes"
)

// Source records who owns an object. The reconciler only changes what Kubernetes owns, and
// a REST write to a kubernetes-owned object is refused with a pointer to the cluster object.
type Source struct {
	Kind      string `json:"kind,omitempty" enums:"api,kubernetes" example:"api"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	UID       string `json:"uid,omitempty"`
}

// String names the owner for messages, e.g. "kubernetes Ingress shop/web".
func (s Source) String() string {
	if s.Kind == SourceKubernetes {
		return fmt.Sprintf("kubernetes object %s/%s", s.Namespace, s.Name)
	}
	return "the REST API"
}

func (s Source) validate() error {
	switch s.Kind {
	case "", SourceAPI:
		if s.Namespace != "" || s.Name != "" || s.UID != "" {
			return Invalid("source", "namespace, name and uid belong to kubernetes sources only")
		}
	case SourceKubernetes:
		for _, f := range []struct{ n, v string }{{"namespace", s.Namespace}, {"name", s.Name}, {"uid", s.UID}} {
			if err := ValidText("source."+f.n, f.v, 253); err != nil {
				return err
			}
		}
	default:
		return Invalid("source.kind", "must be api or kubernetes")
	}
	return nil
}
