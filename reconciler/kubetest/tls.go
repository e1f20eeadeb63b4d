package kubetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// SelfSigned returns a PEM certificate for the hosts, valid for a day, and its PEM key.
func SelfSigned(tb testing.TB, hosts ...string) (certPEM, keyPEM []byte) {
	tb.Helper()
	return selfSigned(tb, false, time.Now().Add(24*time.Hour), hosts)
}

// SelfSignedUntil is SelfSigned with a certificate that expires at notAfter.
func SelfSignedUntil(tb testing.TB, notAfter time.Time, hosts ...string) (certPEM, keyPEM []byte) {
	tb.Helper()
	return selfSigned(tb, false, notAfter, hosts)
}

// CA returns a self-signed PEM CA certificate named name, valid for a day, and its PEM key.
func CA(tb testing.TB, name string) (certPEM, keyPEM []byte) {
	tb.Helper()
	return selfSigned(tb, true, time.Now().Add(24*time.Hour), []string{name})
}

func selfSigned(tb testing.TB, isCA bool, notAfter time.Time, hosts []string) (certPEM, keyPEM []byte) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("generate key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: hosts[0]},
		DNSNames:     hosts,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if isCA {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatalf("create certificate: %v", err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatalf("marshal key: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
}
