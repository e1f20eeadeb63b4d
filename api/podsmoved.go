package api

import "reflect"

// OnlyPodsMoved reports whether the only change from running to head is to the endpoints
// of the backends of Kubernetes Services, and of the backends of Gateway API rules that
// split among them as before (the same Split): their Pods moved, as in a rollout. Those
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
		if r.Source.Kind != SourceKubernetes || b.Source.Kind != SourceKubernetes {
			return false
		}
		x, y := *r, *b
		x.Version, y.Version, x.Endpoints, y.Endpoints = 0, 0, nil, nil
		switch {
		case x.Split != nil && y.Split != nil:
			// A Gateway API rule's own backend: the route's weights are its Split, and the
			// share answered 500 scales with the number of endpoints.
			x.ErrorWeight, y.ErrorWeight = 0, 0
		case x.Source.Object != "" || y.Source.Object != "":
			// A rule's backend without a Split weighs its endpoints by weights known
			// nowhere else: a change of them may be the route's.
			return false
		}
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
