package reconciler

import (
	"strconv"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// heldServices are the Services ("namespace/name") of the held backends that no Ingress
// or route names any more: a rollback made them again for the servers it held. Their
// EndpointSlices are followed as if an Ingress named them (sliceChanged), so that a held
// backend never pins Pods that are gone.
func (c *cluster) setHeld(head *api.State, holds map[api.Ref]api.Hold) {
	m := map[string]bool{}
	for ref := range holds {
		if b := head.Backends[ref.Name]; ref.Kind == api.KindBackend && b != nil && b.Source.Kind == api.SourceKubernetes {
			m[b.Source.Namespace+"/"+b.Source.Name] = true
		}
	}
	c.heldServices.Store(&m)
}

// isHeldService reports whether key is the Service of a held backend.
func (c *cluster) isHeldService(key string) bool {
	m := c.heldServices.Load()
	return m != nil && (*m)[key]
}

// serviceEndpoints returns the ready endpoints of the Service port that backend b of
// head was made of, read from the caches: what a held backend that no Ingress or route
// names any more follows. A backend whose name does not spell its port (a name shortened
// by a hash, a Gateway API backend's variant), or whose Service or port is gone, gives
// false: it keeps what it had.
func (c *cluster) serviceEndpoints(head *api.State) func(name string) ([]api.Endpoint, bool) {
	return func(name string) ([]api.Endpoint, bool) {
		b := head.Backends[name]
		if b == nil || b.Source.Kind != api.SourceKubernetes {
			return nil, false
		}
		port, ok := strings.CutPrefix(name, backendName(b.Source.Namespace, b.Source.Name, ""))
		if !ok || port == "" {
			return nil, false
		}
		ref := &networkingv1.IngressServiceBackend{Name: b.Source.Name, Port: networkingv1.ServiceBackendPort{Name: port}}
		if n, err := strconv.Atoi(port); err == nil {
			ref.Port = networkingv1.ServiceBackendPort{Number: int32(n)}
		}
		snap := NewSnapshot()
		if err := c.addService(snap, b.Source.Namespace+"/"+b.Source.Name); err != nil {
			return nil, false
		}
		fresh, warning, err := backendFor(b.Source.Namespace, ref, snap)
		if err != nil || warning != "" {
			return nil, false
		}
		return fresh.Endpoints, true
	}
}
