package api

import (
	"fmt"
	"maps"
	"slices"
)

// validatePorts checks a server's own ports: 1-65535 or 0 for the instance's, a plain
// port apart from the HTTPS one, and nothing that only the instance's own ports serve
// (the www redirect's blocks, the passthrough router). A catch-all server on ports of its
// own names both, so that it is the default server of its sockets only.
func (s *Server) validatePorts() error {
	tls := 0
	if s.TLS != nil {
		tls = s.TLS.Port
	}
	if err := s.validateAddress(); err != nil {
		return err
	}
	if s.Port == 0 && tls == 0 {
		return nil
	}
	if s.Port != 0 {
		if err := ValidPort("port", s.Port); err != nil {
			return err
		}
	}
	if tls != 0 {
		if err := ValidPort("tls.port", tls); err != nil {
			return err
		}
	}
	switch {
	case s.Port == tls:
		return Invalid("tls.port", "the HTTPS port must differ from the plain-HTTP port %d", s.Port)
	case s.WWWRedirect:
		return Invalid("wwwRedirect", "the www redirect answers on the instance's own ports; a server on ports of its own cannot have one")
	case s.Passthrough != nil:
		return Invalid("passthrough", "passthrough routes TLS on the instance's own HTTPS port; a server on ports of its own cannot pass through")
	case s.Address == "" && slices.Contains(s.Hostnames, CatchAllHostname) && (s.Port == 0 || s.TLS != nil && tls == 0):
		return Invalid("port", "a catch-all server on ports of its own names both its port and, with tls, its tls.port: it is the default server of those ports only")
	}
	return nil
}

// ports are the plain and HTTPS ports of a server, 0 for the instance's own; tls is -1
// without TLS.
func (s *Server) ports() (plain, tls int) {
	if s.TLS == nil {
		return s.Port, -1
	}
	return s.Port, s.TLS.Port
}

// portsDiffer refuses two servers sharing a hostname that nginx could not serve apart:
// servers on one plain port share a server block, which has one HTTPS port; servers on
// different plain ports have blocks of their own, which may not both serve the hostname
// on one HTTPS port.
func portsDiffer(srv, other *Server, host string) error {
	if srv.Address != other.Address {
		return nil // different sockets: different blocks
	}
	p1, t1 := srv.ports()
	p2, t2 := other.ports()
	if t1 < 0 || t2 < 0 || (p1 == p2) == (t1 == t2) {
		return nil
	}
	msg := "serves it on port %d with HTTPS on port %d: servers sharing a hostname on one port share its HTTPS port"
	if p1 != p2 {
		msg = "serves it on port %d with HTTPS on port %d too: servers sharing a hostname on different ports need different HTTPS ports"
	}
	return &Error{Code: EConflict, Field: "tls.port", Message: fmt.Sprintf("hostname %q is shared with server %q, which "+msg, host, other.Name, p2, t2)}
}

// checkPortKinds refuses a server whose own plain port is another server's own HTTPS
// port at the same address, or the other way round: nginx listens on a socket for HTTPS
// or for plain HTTP, not both. Only servers on ports of their own are looked at, so that other writes cost
// nothing.
func (s *State) checkPortKinds(srv *Server) error {
	p, t := srv.ports()
	if p == 0 && t <= 0 {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(s.Servers)) {
		op, ot := s.Servers[name].ports()
		switch {
		case name == srv.Name, s.Servers[name].Address != srv.Address:
		case p != 0 && p == ot:
			return &Error{Code: EConflict, Field: "port", Message: fmt.Sprintf("port %d is server %q's HTTPS port", p, name)}
		case t > 0 && t == op:
			return &Error{Code: EConflict, Field: "tls.port", Message: fmt.Sprintf("port %d is server %q's plain-HTTP port", t, name)}
		}
	}
	return nil
}
