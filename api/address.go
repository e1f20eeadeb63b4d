package api

import "net/netip"

// A server's Address (a Gateway's own address) puts its server blocks on sockets of their
// own: nginx picks a block among those of the socket a connection came to, so two servers
// may name one hostname and path at two addresses and each answers its own. A server with
// an address is the default server of its sockets when it holds the catch-all hostname.
// The www redirect and TLS passthrough answer on the instance's own sockets only.

// ValidListenAddress checks an address nginx is to listen on: an IP literal, IPv4 or
// IPv6 without a zone, that is one address (not the unspecified 0.0.0.0 or ::, which is
// every address and would take the instance's own sockets) and not multicast.
func ValidListenAddress(field, s string) error {
	a, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return Invalid(field, "address %q is not an IP address", printable(s))
	case a.Zone() != "":
		return Invalid(field, "address must not carry an IPv6 zone")
	case a.Is4In6():
		return Invalid(field, "address %q is an IPv4-mapped IPv6 address: give the IPv4 address", s)
	case a.IsUnspecified() || a.IsMulticast():
		return Invalid(field, "address %q is not one unicast address", s)
	case a.String() != s:
		return Invalid(field, "address %q is not in its canonical form %q", s, a.String())
	}
	return nil
}

// validateAddress checks a server's address and what it excludes.
func (s *Server) validateAddress() error {
	if s.Address == "" {
		return nil
	}
	if err := ValidListenAddress("address", s.Address); err != nil {
		return err
	}
	switch {
	case s.WWWRedirect:
		return Invalid("wwwRedirect", "the www redirect answers on the instance's own sockets; a server at an address of its own cannot have one")
	case s.Passthrough != nil:
		return Invalid("passthrough", "passthrough routes TLS on the instance's own HTTPS socket; a server at an address of its own cannot pass through")
	}
	return nil
}
