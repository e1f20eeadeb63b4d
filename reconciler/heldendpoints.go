package reconciler

import (
	"strconv"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// setHeld notes what the holds need of the informers: heldServices are the Services whose
// EndpointSlices are followed, when no Ingress or route names them, as if one did
// (sliceChanged): while anything is held, those of every kubernetes-owned backend of head.
// A backend that nothing in the cluster names is in head only because a hold keeps it
// (held, or named by a held server: followKept), because a REST object uses it, or until
// the sync that deletes it; so that a backend a hold keeps never pins Pods that are gone,
// a change of its Service's Pods syncs. It also schedules the sync that lets go a
// certificate a hold keeps served, before it expires (nextHoldExpiry).
func (c *cluster) setHeld(head *api.State, holds map[api.Ref]api.Hold) {
	m := map[string]bool{}
	if len(holds) > 0 {
		for _, b := range head.Backends {
			if b.Source.Kind == api.SourceKubernetes {
				m[b.Source.Namespace+"/"+b.Source.Name] = true
			}
		}
	}
	c.heldServices.Store(&m)
	c.expiry.set(nextHoldExpiry(head, holds, time.Now()))
}

// isHeldService reports whether key is the Service of a backend a hold may keep.
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
