package api

import (
	"fmt"
	"strings"
)

// The protocols a backend's endpoints speak (policies).
const (
	ProtocolHTTP  = "http"
	ProtocolHTTPS = "https"
	ProtocolGRPC  = "grpc"
	ProtocolGRPCS = "grpcs"
)

// UpstreamTLS is how the proxy speaks TLS to a backend of protocol https or grpcs: whether
// it verifies the endpoints' certificate, against which CA bundle and for which name, the
// SNI it sends, and the client certificate it presents for mutual TLS.
type UpstreamTLS struct {
	// Verify checks the endpoint's certificate against CACertificate and ServerName; a
	// failed check answers 502. Off, any certificate is accepted, as in nginx.
	Verify bool `json:"verify,omitempty"`
	// CACertificate names the caCertificate bundle the certificate must chain to; required
	// with Verify.
	CACertificate string `json:"caCertificate,omitempty" example:"internal-ca"`
	// ServerName is the name the certificate must hold and the SNI sent; empty means the
	// Host header sent upstream (the location's upstreamHost, or the request's host).
	ServerName string `json:"serverName,omitempty" example:"api.internal"`
	// SNI sends ServerName in the TLS handshake (nginx's proxy_ssl_server_name).
	SNI bool `json:"sni,omitempty"`
	// ClientCertificate names a certificate (with its key) presented to the endpoints.
	ClientCertificate string `json:"clientCertificate,omitempty" example:"proxy-client"`
}

// TLSProtocol reports whether a protocol speaks TLS to the endpoints.
func TLSProtocol(p string) bool { return p == ProtocolHTTPS || p == ProtocolGRPCS }

// validateUpstream checks a backend's protocol and upstream TLS on their own.
func (b *Backend) validateUpstream() error {
	switch b.Protocol {
	case "", ProtocolHTTP, ProtocolHTTPS, ProtocolGRPC, ProtocolGRPCS:
	default:
		return Invalid("protocol", "must be http, https, grpc or grpcs")
	}
	t := b.UpstreamTLS
	if t == nil {
		return nil
	}
	if !TLSProtocol(b.Protocol) {
		return Invalid("upstreamTLS", "upstreamTLS needs protocol https or grpcs")
	}
	if t.Verify && t.CACertificate == "" {
		return Invalid("upstreamTLS.caCertificate", "verify needs a caCertificate to verify against")
	}
	if t.CACertificate != "" {
		if err := ValidName("upstreamTLS.caCertificate", t.CACertificate); err != nil {
			return err
		}
	}
	if t.ServerName != "" {
		if err := ValidHostname("upstreamTLS.serverName", t.ServerName); err != nil {
			return err
		}
		if strings.Contains(t.ServerName, "*") || t.ServerName == CatchAllHostname {
			return Invalid("upstreamTLS.serverName", "serverName is one name, not a wildcard")
		}
	}
	if t.ClientCertificate != "" {
		return ValidName("upstreamTLS.clientCertificate", t.ClientCertificate)
	}
	return nil
}

// normalizeUpstream stores the default protocol as no protocol, so that backends written
// before protocols existed and those written since with "http" are the same bytes.
func (b *Backend) normalizeUpstream() {
	if b.Protocol == ProtocolHTTP {
		b.Protocol = ""
	}
}

// checkUpstreamRefs verifies that what a backend's upstream TLS names exists, and that its
// canary speaks as it does: the location's proxy_pass or grpc_pass is chosen by the
// backend it names, and the balancer may send any request to the canary's endpoints.
func (s *State) checkUpstreamRefs(b *Backend) error {
	if t := b.UpstreamTLS; t != nil {
		if t.CACertificate != "" && s.CACertificates[t.CACertificate] == nil {
			return Invalid("upstreamTLS.caCertificate", "caCertificate %q does not exist", t.CACertificate)
		}
		if t.ClientCertificate != "" {
			c := s.Certificates[t.ClientCertificate]
			if c == nil {
				return Invalid("upstreamTLS.clientCertificate", "certificate %q does not exist", t.ClientCertificate)
			}
			if !c.KeyMatches {
				return Invalid("upstreamTLS.clientCertificate", "certificate %q has no private key that matches it", t.ClientCertificate)
			}
		}
	}
	if b.Canary != nil {
		if c := s.Backends[b.Canary.Backend]; c != nil && !SameUpstream(b, c) {
			return Invalid("canary.backend", "canary backend %q must have the same protocol and upstreamTLS as %q", c.Name, b.Name)
		}
	}
	return nil
}

// SameUpstream reports whether two backends speak the same protocol with the same TLS.
func SameUpstream(a, b *Backend) bool {
	pa, pb := a.Protocol, b.Protocol
	if pa == "" {
		pa = ProtocolHTTP
	}
	if pb == "" {
		pb = ProtocolHTTP
	}
	if pa != pb || (a.UpstreamTLS == nil) != (b.UpstreamTLS == nil) {
		return false
	}
	return a.UpstreamTLS == nil || *a.UpstreamTLS == *b.UpstreamTLS
}

// upstreamUser returns the backend that names a CA bundle or certificate, "" if none.
func (s *State) upstreamUser(kind, name string) string {
	for _, b := range s.Backends {
		t := b.UpstreamTLS
		if t == nil {
			continue
		}
		if kind == KindCACertificate && t.CACertificate == name || kind == KindCertificate && t.ClientCertificate == name {
			return "backend " + fmt.Sprintf("%q", b.Name)
		}
	}
	return ""
}

// validateUpstream checks a location's upstreamHost and forwardedPrefix, and that neither
// header is also set by setHeaders or an external auth's answer: nginx would send two.
func (l *Location) validateUpstream() error {
	if l.UpstreamHost != "" {
		if err := ValidHostname("upstreamHost", l.UpstreamHost); err != nil {
			return err
		}
		if strings.Contains(l.UpstreamHost, "*") || l.UpstreamHost == CatchAllHostname {
			return Invalid("upstreamHost", "upstreamHost is one name, not a wildcard")
		}
	}
	if l.ForwardedPrefix != "" {
		if err := ValidPath("forwardedPrefix", l.ForwardedPrefix); err != nil {
			return err
		}
	}
	for _, c := range []struct{ field, header, value string }{
		{"upstreamHost", "Host", l.UpstreamHost}, {"forwardedPrefix", "X-Forwarded-Prefix", l.ForwardedPrefix}} {
		if c.value == "" {
			continue
		}
		for _, h := range l.SetHeaders {
			if strings.EqualFold(h.Name, c.header) {
				return Invalid(c.field, "%s is set by setHeaders too; set it in one place", c.header)
			}
		}
		if l.Auth != nil && l.Auth.External != nil {
			for _, h := range l.Auth.External.ResponseHeaders {
				if strings.EqualFold(h, c.header) {
					return Invalid(c.field, "%s is passed from the auth answer too; set it in one place", c.header)
				}
			}
		}
	}
	return nil
}
