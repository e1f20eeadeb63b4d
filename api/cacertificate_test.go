package api

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

func caPEM(t *testing.T) string {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestCACertificateFeed: a CA bundle travels to agents in snapshots and deltas, and its
// deletion too.
func TestCACertificateFeed(t *testing.T) {
	old := NewState()
	cur := old.Clone()
	ca := &CACertificate{Name: "internal", Cert: caPEM(t)}
	if err := ca.Validate(); err != nil {
		t.Fatal(err)
	}
	ca.Version = 2
	cur.CACertificates["internal"] = ca
	d := Delta(old, cur)
	if d.Empty() || len(d.CACertificates) != 1 {
		t.Fatalf("delta = %+v", d)
	}
	got := d.ApplyTo(old)
	if got.CACertificates["internal"] == nil || got.CACertificates["internal"].Cert != ca.Cert {
		t.Fatalf("applied = %+v", got.CACertificates)
	}
	if s := Snapshot(cur).ApplyTo(nil); s.CACertificates["internal"] == nil {
		t.Fatal("snapshot lost the bundle")
	}
	gone := Delta(cur, old)
	if len(gone.DeletedCACertificates) != 1 || gone.ApplyTo(cur).CACertificates["internal"] != nil {
		t.Fatalf("delete delta = %+v", gone)
	}
	if f, err := CACertificateFile(ca); err != nil || f != ca.Fingerprint+".pem" {
		t.Fatalf("file = %q, %v", f, err)
	}
	if _, err := CACertificateFile(&CACertificate{Name: "x", Fingerprint: "../etc"}); err == nil {
		t.Fatal("a bad fingerprint names a file")
	}
}
