package api

import "fmt"

// Passthrough hands a server's TLS connections to a backend without terminating them
// (policies): the proxy reads the name the client asks for in its TLS hello (SNI) and
// copies the connection's bytes both ways, so the client sees the backend's own
// certificate and the backend sees the client's own handshake. Plain-HTTP requests for
// the server's hostnames are still served by its locations. Endpoint changes of a
// passthrough backend need a reload: the stream proxy has no dynamic balancer.
type Passthrough struct {
	// Backend names the backend whose endpoints take the connections, by weight.
	Backend string `json:"backend" example:"argocd-server"`
}

// validatePassthrough checks a server's passthrough: a backend name, no certificate of
// its own (the backend terminates TLS; so no client verification either), and named hostnames, not
// the catch-all, since a TLS hello without a known name goes to the terminating listener.
func (s *Server) validatePassthrough() error {
	p := s.Passthrough
	if p == nil {
		return nil
	}
	if err := ValidName("passthrough.backend", p.Backend); err != nil {
		return err
	}
	if s.TLS != nil {
		return Invalid("passthrough", "a passthrough server has no tls of its own: the backend terminates TLS with its certificate")
	}
	for i, h := range s.Hostnames {
		if h == CatchAllHostname {
			return Invalid(fmt.Sprintf("hostnames[%d]", i), "a passthrough server names its hostnames: TLS connections are routed by the name the client sends")
		}
	}
	return nil
}

// checkPassthroughRef verifies that the backend a server's passthrough names exists.
func (s *State) checkPassthroughRef(srv *Server) error {
	if p := srv.Passthrough; p != nil && s.Backends[p.Backend] == nil {
		return Invalid("passthrough.backend", "backend %q does not exist", p.Backend)
	}
	if srv.Passthrough != nil && len(s.Settings.RealIPFrom) > 0 {
		return Invalid("passthrough", "passthrough is not available with the realIPFrom setting: the terminating listener then takes the client address from the passthrough router, not from a trusted proxy's header")
	}
	return nil
}

// passthroughDiffers refuses a server that shares a hostname with a passthrough server
// unless both pass the same way: every TLS connection for the hostname goes to the
// passthrough backend, so another server's certificate would never be presented.
func passthroughDiffers(srv, other *Server, host string) error {
	a, b := srv.Passthrough, other.Passthrough
	if a == nil && b == nil || a != nil && b != nil && *a == *b {
		return nil
	}
	return &Error{Code: EConflict, Field: "passthrough", Message: fmt.Sprintf(
		"hostname %q is shared with server %q, which passes TLS connections differently: servers sharing a hostname must have the same passthrough", host, other.Name)}
}

// PassthroughBackends lists the backends that passthrough servers name: their endpoints
// are written into nginx.conf, not pushed.
func (s *State) PassthroughBackends() map[string]bool {
	out := map[string]bool{}
	for _, srv := range s.Servers {
		if srv.Passthrough != nil {
			out[srv.Passthrough.Backend] = true
		}
	}
	return out
}

// blockDiffers refuses two servers that share a hostname but would need different server
// blocks for it: nginx serves a hostname from one block, which verifies clients one way
// and passes TLS one way. Servers at different addresses have blocks of their own.
func blockDiffers(srv, other *Server, host string) error {
	if srv.Address != other.Address {
		return nil
	}
	if err := clientTLSDiffers(srv, other, host); err != nil {
		return err
	}
	if err := portsDiffer(srv, other, host); err != nil {
		return err
	}
	return passthroughDiffers(srv, other, host)
}
