// Package deploy holds the manifests that run restyplane in a cluster: the namespace, the
// RBAC with the fewest verbs that work, the IngressClass, the control plane (one replica on
// a volume), the data planes (restyplane agent with OpenResty, several replicas and a
// PodDisruptionBudget), and the Services of the proxy and the API. compose.yaml runs the
// same fleet on one machine with docker compose.
package deploy

import (
	"embed"
	"io/fs"
)

//go:embed *.yaml
var manifests embed.FS

// Manifests returns the YAML files of this directory.
func Manifests() fs.FS { return manifests }

// Files lists the manifests in the order they apply: the namespace first, since the others
// live in it.
func Files() []string {
	return []string{"namespace.yaml", "rbac.yaml", "ingressclass.yaml", "controlplane.yaml", "dataplane.yaml", "service.yaml"}
}
