package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// nginxPids returns the pid of the nginx master that runs under the instance's data dir
// and the pids of its workers, read from /proc: a reload replaces the workers, a dynamic
// update does not. See nginxOf.
func (in *instance) nginxPids() (master int, workers []int) {
	in.t.Helper()
	return nginxOf(in.DataDir)
}

// selfSigned returns a certificate for host and its key, as PEM.
func selfSigned(t testing.TB, host string, serial int64) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, _ := x509.MarshalPKCS8PrivateKey(key)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}))
}

// servedCert returns the SHA-256 fingerprint of the certificate the proxy presents for sni.
func (in *instance) servedCert(sni string) string {
	in.t.Helper()
	conn, err := tls.Dial("tcp", in.TLS, &tls.Config{ServerName: sni, InsecureSkipVerify: true})
	if err != nil {
		in.t.Fatalf("TLS handshake for %s: %v", sni, err)
	}
	defer conn.Close()
	sum := sha256.Sum256(conn.ConnectionState().PeerCertificates[0].Raw)
	return hex.EncodeToString(sum[:])
}

func fingerprint(t testing.TB, certPEM string) string {
	t.Helper()
	b, _ := pem.Decode([]byte(certPEM))
	sum := sha256.Sum256(b.Bytes)
	return hex.EncodeToString(sum[:])
}
