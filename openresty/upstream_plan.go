package openresty

import "github.com/restyplane/restyplane/api"

// renderedBackends returns what nginx.conf needs of the backends: those of a protocol
// other than plain HTTP, without their endpoints, and the endpoints of those a server
// passes TLS to (the stream proxy has no balancer to push them to). Everything else in a
// backend is pushed to the balancer, never rendered, and leaving it out keeps an
// endpoint change from costing a render.
func renderedBackends(st *api.State) map[string]*api.Backend {
	out := map[string]*api.Backend{}
	passed := st.PassthroughBackends()
	for name, b := range st.Backends {
		if passed[name] {
			out[name] = &api.Backend{Name: b.Name, Protocol: b.Protocol, UpstreamTLS: b.UpstreamTLS, Version: b.Version, Endpoints: b.Endpoints}
			continue
		}
		if b.Protocol == "" || b.Protocol == api.ProtocolHTTP {
			continue
		}
		out[name] = &api.Backend{Name: b.Name, Protocol: b.Protocol, UpstreamTLS: b.UpstreamTLS, Version: b.Version}
	}
	return out
}

// sameUpstreams reports whether two states speak to their backends alike: the same
// protocol and upstream TLS for every backend that changed, and the same versions of the
// client certificates any backend presents (their files are named by content), and the
// same version of every backend a server passes TLS to (its endpoints are rendered).
func sameUpstreams(a, b *api.State) bool {
	for name := range b.PassthroughBackends() {
		if x, y := a.Backends[name], b.Backends[name]; x == nil || y == nil || x.Version != y.Version {
			return false
		}
	}
	for name, y := range b.Backends {
		x := a.Backends[name]
		switch {
		case x == nil:
			if y.Protocol != "" {
				return false
			}
		case x.Version != y.Version && !api.SameUpstream(x, y):
			return false
		}
		if t := y.UpstreamTLS; t != nil && t.ClientCertificate != "" {
			cx, cy := a.Certificates[t.ClientCertificate], b.Certificates[t.ClientCertificate]
			if cx == nil || cy == nil || cx.Version != cy.Version {
				return false
			}
		}
	}
	return true
}
