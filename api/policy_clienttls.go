package api

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Client certificate verification modes, as nginx's ssl_verify_client spells them.
const (
	// VerifyOn refuses a request without a client certificate that chains to the CA.
	VerifyOn = "on"
	// VerifyOptional asks for a certificate; a request without one passes, one with a
	// certificate that does not chain to the CA is refused.
	VerifyOptional = "optional"
	// VerifyOptionalNoCA asks for a certificate and lets every request through; the
	// upstream reads the outcome in ssl-client-verify.
	VerifyOptionalNoCA = "optional_no_ca"
	// VerifyOff asks for no certificate; the ssl-client-* headers still reach the
	// upstream (empty), so that a client can never set them itself.
	VerifyOff = "off"
)

// MaxVerifyDepth bounds the chain a client certificate may present.
const MaxVerifyDepth = 10

// ClientTLSHeaders are the request headers a server with client verification sets on
// every proxied request, as ingress-nginx names them: the outcome ("SUCCESS", "NONE" or
// "FAILED:<reason>"), the subject and issuer DNs and, with PassCertificateToUpstream, the
// URL-escaped PEM certificate.
var ClientTLSHeaders = []string{"ssl-client-verify", "ssl-client-subject-dn", "ssl-client-issuer-dn", "ssl-client-cert"}

// ClientTLS asks the clients of a server for a certificate in the TLS handshake and
// verifies it against a CA (policies). nginx verifies per server block, so it
// lives on the server, and servers that share a hostname must agree on it.
type ClientTLS struct {
	// CACertificate names the caCertificate that client certificates must chain to.
	CACertificate string `json:"caCertificate" example:"shop-clients"`
	// Verify is on (the default), optional, optional_no_ca or off.
	Verify string `json:"verify,omitempty" enums:"on,optional,optional_no_ca,off" example:"on"`
	// Depth is how many intermediate CA certificates may lie between the client's
	// certificate and the CA (OpenSSL's verify depth, nginx's ssl_verify_depth): 1, the
	// default, admits a certificate the CA signed and one signed by one intermediate.
	Depth int `json:"depth,omitempty" minimum:"1" maximum:"10" example:"1"`
	// ErrorPage, when set, redirects (302) a request whose certificate is missing or
	// fails verification to this URL, instead of answering 400.
	ErrorPage string `json:"errorPage,omitempty" example:"https://login.example.com/certificate-needed"`
	// PassCertificateToUpstream sends the client's certificate, PEM and URL-escaped, in
	// the ssl-client-cert header; ssl-client-verify, ssl-client-subject-dn and
	// ssl-client-issuer-dn are always sent.
	PassCertificateToUpstream bool `json:"passCertificateToUpstream,omitempty"`
}

// normalize fills the defaults, so that equal intent gives equal bytes in the history.
func (c *ClientTLS) normalize() {
	if c == nil {
		return
	}
	if c.Verify == "" {
		c.Verify = VerifyOn
	}
	if c.Depth == 0 {
		c.Depth = 1
	}
}

// validateClientTLS checks the server's client verification: a known mode, a depth in
// bounds, an http(s) error page, TLS on the server, and no location that sets one of the
// ssl-client-* headers the proxy sets itself.
func (s *Server) validateClientTLS() error {
	c := s.ClientTLS
	if c == nil {
		return nil
	}
	if s.TLS == nil {
		return Invalid("clientTLS", "client certificate verification needs tls: the certificate is asked for in the TLS handshake")
	}
	if err := ValidName("clientTLS.caCertificate", c.CACertificate); err != nil {
		return err
	}
	switch c.Verify {
	case "", VerifyOn, VerifyOptional, VerifyOptionalNoCA, VerifyOff:
	default:
		return Invalid("clientTLS.verify", "verify must be on, optional, optional_no_ca or off")
	}
	if c.Depth < 0 || c.Depth > MaxVerifyDepth {
		return Invalid("clientTLS.depth", "depth must be 1-%d", MaxVerifyDepth)
	}
	if c.ErrorPage != "" {
		if err := ValidAuthURL("clientTLS.errorPage", c.ErrorPage, true); err != nil {
			return err
		}
	}
	for i, l := range s.Locations {
		for j, h := range l.SetHeaders {
			if isClientTLSHeader(h.Name) {
				return Invalid(fmt.Sprintf("locations[%d].setHeaders[%d].name", i, j), "%s is set by the proxy on a server with clientTLS", h.Name)
			}
		}
		if l.Auth == nil || l.Auth.External == nil {
			continue
		}
		for j, h := range l.Auth.External.ResponseHeaders {
			if isClientTLSHeader(h) {
				return Invalid(fmt.Sprintf("locations[%d].auth.external.responseHeaders[%d]", i, j), "%s is set by the proxy on a server with clientTLS", h)
			}
		}
	}
	return nil
}

func isClientTLSHeader(name string) bool {
	return slices.ContainsFunc(ClientTLSHeaders, func(h string) bool { return strings.EqualFold(h, name) })
}

// SameClientTLS reports whether two servers ask the same of their clients; nil and nil
// are the same.
func SameClientTLS(a, b *ClientTLS) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.normalize()
	y.normalize()
	return x == y
}

// checkClientTLSAgree refuses servers that share a hostname but differ in clientTLS:
// nginx serves a hostname from one server block, which verifies clients one way only.
// Among the claimants first, then against the neighbours that share their hostnames.
func (s *State) checkClientTLSAgree(claimants, neighbours []string) error {
	first := map[string]string{} // hostname -> the first claimant that has it
	for _, name := range claimants {
		srv := s.Servers[name]
		for _, h := range srv.Hostnames {
			other, ok := first[h]
			if !ok {
				first[h] = name
				continue
			}
			if err := blockDiffers(srv, s.Servers[other], h); err != nil {
				return err
			}
		}
	}
	for _, name := range neighbours {
		srv := s.Servers[name]
		for _, h := range srv.Hostnames {
			if c, ok := first[h]; ok {
				if err := blockDiffers(s.Servers[c], srv, h); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func clientTLSDiffers(srv, other *Server, host string) error {
	if SameClientTLS(srv.ClientTLS, other.ClientTLS) {
		return nil
	}
	return &Error{Code: EConflict, Field: "clientTLS", Message: fmt.Sprintf(
		"hostname %q is shared with server %q, which verifies client certificates differently: servers sharing a hostname must have the same clientTLS", host, other.Name)}
}

// checkClientTLSRef verifies that the caCertificate a server's clientTLS names exists.
func (s *State) checkClientTLSRef(srv *Server) error {
	if c := srv.ClientTLS; c != nil && s.CACertificates[c.CACertificate] == nil {
		return Invalid("clientTLS.caCertificate", "caCertificate %q does not exist", c.CACertificate)
	}
	return nil
}

// caCertificateServer returns the first server, by name, whose clientTLS names the CA
// bundle, "" if none does.
func (s *State) caCertificateServer(name string) string {
	for _, n := range slices.Sorted(maps.Keys(s.Servers)) {
		if c := s.Servers[n].ClientTLS; c != nil && c.CACertificate == name {
			return fmt.Sprintf("server %q (clientTLS)", n)
		}
	}
	return ""
}
