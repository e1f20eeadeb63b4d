package api

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"time"
)

// KindCACertificate is a bundle of CA certificates that an upstream's certificate is
// verified against (policies).
const KindCACertificate = "caCertificate"

// MaxCACertificates bounds the certificates of one bundle.
const MaxCACertificates = 100

// CACertificate is a named PEM bundle of CA certificates, trusted to sign the certificate
// an HTTPS or gRPC-over-TLS upstream presents (and, for client certificate verification,
// the certificates clients present). It holds no private key, so it is never redacted: the
// applier writes it to <prefix>/ca/<fingerprint>.pem and nginx.conf names that file.
type CACertificate struct {
	Name string `json:"name" example:"internal-ca"`
	// Cert is one or more PEM CERTIFICATE blocks, each a CA certificate.
	Cert   string `json:"cert"`
	Source Source `json:"source"`
	// Subjects are the subjects of the bundle's certificates, in its order.
	Subjects []string `json:"subjects,omitempty" readonly:"true"`
	// NotAfter is the earliest expiry among the bundle's certificates.
	NotAfter time.Time `json:"notAfter,omitempty" readonly:"true"`
	// Fingerprint is the SHA-256 of Cert; the file nginx reads is named by it.
	Fingerprint string `json:"fingerprint,omitempty" readonly:"true"`
	Version     int64  `json:"version,omitempty" readonly:"true"`
}

// Validate checks that Cert holds nothing but PEM certificates, at least one, each a CA
// (basic constraints with CA:TRUE), and fills the derived fields.
func (c *CACertificate) Validate() error {
	if err := ValidName("name", c.Name); err != nil {
		return err
	}
	if len(c.Cert) > MaxPEM {
		return Invalid("cert", "a CA bundle must be at most %d bytes", MaxPEM)
	}
	rest := []byte(c.Cert)
	var subjects []string
	var notAfter time.Time
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		n := len(subjects) + 1
		if b.Type != "CERTIFICATE" {
			// A private key pasted by mistake is refused without quoting any of it.
			return Invalid("cert", "block %d: a CA bundle holds only CERTIFICATE blocks, found %q", n, printable(b.Type))
		}
		x, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return Invalid("cert", "certificate %d does not parse: %v", n, err)
		}
		if !x.BasicConstraintsValid || !x.IsCA {
			return Invalid("cert", "certificate %d (%s) is not a CA certificate (no basicConstraints CA:TRUE)", n, printable(x.Subject.String()))
		}
		if notAfter.IsZero() || x.NotAfter.Before(notAfter) {
			notAfter = x.NotAfter
		}
		subjects = append(subjects, x.Subject.String())
		if len(subjects) > MaxCACertificates {
			return Invalid("cert", "a CA bundle holds at most %d certificates", MaxCACertificates)
		}
	}
	if len(subjects) == 0 || len(trimSpace(rest)) != 0 {
		return Invalid("cert", "cert must be PEM CA certificates and nothing else")
	}
	c.Subjects = subjects
	c.NotAfter = notAfter.UTC()
	sum := sha256.Sum256([]byte(c.Cert))
	c.Fingerprint = hex.EncodeToString(sum[:])
	return c.Source.validate()
}

// checkCACertificate verifies that a deleted CA bundle is not named by anything.
func (s *State) checkCACertificate(name string) error {
	if s.CACertificates[name] != nil {
		return nil
	}
	if where := s.caCertificateUser(name); where != "" {
		return Errorf(EConflict, "caCertificate %q is used by %s", name, where)
	}
	return nil
}

// caCertificateUser returns what names the CA bundle, "" if nothing does.
func (s *State) caCertificateUser(name string) string {
	if u := s.upstreamUser(KindCACertificate, name); u != "" {
		return u
	}
	return s.caCertificateServer(name) // client certificate verification
}

// CACertificateFile is the name of the file a CA bundle version is written to, under the
// prefix's ca/ directory: its fingerprint, so new contents are a new file.
func CACertificateFile(c *CACertificate) (string, error) {
	if len(c.Fingerprint) != 64 || !isHex(c.Fingerprint) {
		return "", fmt.Errorf("caCertificate %q: no fingerprint", c.Name)
	}
	return c.Fingerprint + ".pem", nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}
