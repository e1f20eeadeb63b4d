package reconciler

import (
	"github.com/restyplane/restyplane/api"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// Snapshot is the cluster as one sync sees it: the Ingresses of restyplane's classes and the
// objects they reference, read from the informers' caches. Its objects belong to those
// caches and are never modified.
type Snapshot struct {
	Ingresses []*networkingv1.Ingress
	// Services and Secrets are keyed "namespace/name"; Slices by their Service's key.
	Services map[string]*corev1.Service
	Slices   map[string][]*discoveryv1.EndpointSlice
	Secrets  map[string]*corev1.Secret
	// AllowExternalName lets Ingresses route to ExternalName Services.
	AllowExternalName bool
	// DefaultBackend, when set, answers what no Ingress routes (see DefaultBackend).
	DefaultBackend *DefaultBackend
	// Budgets bound each namespace's share of the proxy (see Budgets).
	Budgets Budgets
	// Gateway is the Gateway API part, nil in a cluster that does not serve it.
	Gateway *GatewaySnapshot
	// Claims are the stored hostname claims, by hostname.
	Claims map[string]api.HostnameClaim
	// cache, when set, remembers translations from one sync to the next.
	cache *translationCache
}

// NewSnapshot returns an empty snapshot.
func NewSnapshot() *Snapshot {
	return &Snapshot{
		Services: map[string]*corev1.Service{},
		Slices:   map[string][]*discoveryv1.EndpointSlice{},
		Secrets:  map[string]*corev1.Secret{},
		Claims:   map[string]api.HostnameClaim{},
	}
}
