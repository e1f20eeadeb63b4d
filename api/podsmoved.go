package api

import "reflect"

// OnlyPodsMoved reports whether the only change from running to head is to the endpoints
// of the backends of Kubernetes Services: their Pods moved, as in a rollout. Those
// endpoints follow the cluster. A rollback of them would point the proxy at Pods that are
// gone or going, and the cluster's next EndpointSlice change would bring them back, so the
// automatic rollback leaves such a revision alone.
func OnlyPodsMoved(running, head *State) bool {
	if running == nil || running.Settings.Version != head.Settings.Version ||
		!sameVersions(running.Servers, head.Servers, func(s *Server) int64 { return s.Version }) ||
		!sameVersions(running.Certificates, head.Certificates, func(c *Certificate) int64 { return c.Version }) ||
		!sameVersions(running.Htpasswds, head.Htpasswds, func(h *Htpasswd) int64 { return h.Version }) ||
		!sameVersions(running.CACertificates, head.CACertificates, func(c *CACertificate) int64 { return c.Version }) ||
		len(running.Backends) != len(head.Backends) {
		return false
	}
	moved := false
	for name, b := range head.Backends {
		r := running.Backends[name]
		if r == nil {
			return false
		}
		if r.Version == b.Version {
			continue
		}
		// A Gateway API rule's own backend (Source.Object a route kind) weighs its
		// endpoints by the route's backendRefs: a change of them is the route's.
		if r.Source.Kind != SourceKubernetes || b.Source.Kind != SourceKubernetes || r.Source.Object != "" || b.Source.Object != "" {
			return false
		}
		x, y := *r, *b
		x.Version, y.Version, x.Endpoints, y.Endpoints = 0, 0, nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
		moved = true
	}
	return moved
}

// sameVersions reports whether a and b hold the same names at the same versions.
func sameVersions[T any](a, b map[string]*T, version func(*T) int64) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		y := b[name]
		if y == nil || version(x) != version(y) {
			return false
		}
	}
	return true
}
