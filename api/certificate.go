package api

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"time"
)

// MaxPEM bounds a certificate chain or key.
const MaxPEM = 64 << 10

// Certificate is a PEM chain and its private key. The key is write-only: the store keeps
// it, the applier pushes it to OpenResty, and nothing else ever sees it; reads, diffs,
// audit events and logs carry only the fields derived from the chain.
type Certificate struct {
	Name string `json:"name" example:"shop-tls"`
	// Cert is the PEM chain, leaf first.
	Cert string `json:"cert"`
	// Key is the PEM private key. It is accepted on write and never returned.
	Key    string `json:"key,omitempty"`
	Source Source `json:"source"`
	// The fields below are derived from the leaf certificate.
	Subject     string    `json:"subject,omitempty" readonly:"true"`
	DNSNames    []string  `json:"dnsNames,omitempty" readonly:"true"`
	NotAfter    time.Time `json:"notAfter,omitempty" readonly:"true"`
	Fingerprint string    `json:"fingerprint,omitempty" readonly:"true"`
	// KeyMatches says whether the key belongs to the leaf. A mismatch is stored as written
	// and nginx refuses it at apply time; the flag lets a UI warn before that.
	KeyMatches bool  `json:"keyMatches" readonly:"true"`
	Version    int64 `json:"version,omitempty" readonly:"true"`
}

// Validate checks that Cert holds at least one parseable certificate and nothing but PEM
// certificates, and that Key holds one PEM private key, then fills the derived fields.
// requireKey is false for updates that keep the stored key.
func (c *Certificate) Validate(requireKey bool) error {
	if err := ValidName("name", c.Name); err != nil {
		return err
	}
	if len(c.Cert) > MaxPEM || len(c.Key) > MaxPEM {
		return Invalid("cert", "certificate and key must be at most %d bytes each", MaxPEM)
	}
	rest := []byte(c.Cert)
	var leaf *x509.Certificate
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			return Invalid("cert", "cert may hold only CERTIFICATE blocks, found %q", printable(b.Type))
		}
		x, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return Invalid("cert", "certificate does not parse: %v", err)
		}
		if leaf == nil {
			leaf = x
		}
	}
	if leaf == nil || len(trimSpace(rest)) != 0 {
		return Invalid("cert", "cert must be a PEM certificate chain and nothing else")
	}
	if c.Key == "" {
		if requireKey {
			return Invalid("key", "a private key is required")
		}
	} else if err := validKey(c.Key); err != nil {
		return err
	}
	c.Subject = leaf.Subject.String()
	c.DNSNames = leaf.DNSNames
	c.NotAfter = leaf.NotAfter.UTC()
	sum := sha256.Sum256(leaf.Raw)
	c.Fingerprint = hex.EncodeToString(sum[:])
	c.KeyMatches = false
	if c.Key != "" {
		_, err := tls.X509KeyPair([]byte(c.Cert), []byte(c.Key))
		c.KeyMatches = err == nil
	}
	return c.Source.validate()
}

// Redacted returns a copy without the private key: the only form that leaves the store
// for anything but the applier.
func (c Certificate) Redacted() Certificate {
	c.Key = ""
	return c
}

func validKey(k string) error {
	b, rest := pem.Decode([]byte(k))
	if b == nil || len(trimSpace(rest)) != 0 {
		return Invalid("key", "key must be one PEM private key")
	}
	var err error
	switch b.Type {
	case "PRIVATE KEY":
		_, err = x509.ParsePKCS8PrivateKey(b.Bytes)
	case "RSA PRIVATE KEY":
		_, err = x509.ParsePKCS1PrivateKey(b.Bytes)
	case "EC PRIVATE KEY":
		_, err = x509.ParseECPrivateKey(b.Bytes)
	default:
		return Invalid("key", "key block must be PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY")
	}
	if err != nil {
		// The parse error never quotes key material, but keep the message generic anyway.
		return Invalid("key", "private key does not parse")
	}
	return nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// MaxCertificateBytes bounds the certificate chains and keys of a state together. OpenResty
// keeps them in one shared dict that nginx.conf sizes from them with headroom
// (render.SizeDicts); the bound keeps that dict's memory bounded, and a write that would
// take them past it is refused, not left to fail at apply.
const MaxCertificateBytes = 32 << 20

// checkCertificateBytes refuses a state whose certificates would not fit their shared dict.
func (s *State) checkCertificateBytes() error {
	n := 0
	for _, c := range s.Certificates {
		n += len(c.Cert) + len(c.Key)
	}
	if n > MaxCertificateBytes {
		return Invalid("cert", "the certificates would hold %d bytes of PEM, more than the %d that OpenResty's shared dict for certificates may hold", n, MaxCertificateBytes)
	}
	return nil
}
