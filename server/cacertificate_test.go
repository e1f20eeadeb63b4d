package server_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// testCA returns a fresh self-signed CA certificate, PEM.
func testCA(tb testing.TB, cn string) string {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("generate key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatalf("create certificate: %v", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func TestCACertificates(t *testing.T) {
	e := newEnv(t)
	bundle := testCA(t, "one") + testCA(t, "two")
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/caCertificates", token: e.editor,
		body: api.CACertificate{Name: "internal", Cert: bundle}})
	var got api.CACertificate
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/caCertificates/internal", token: e.viewer}).into(t, &got)
	if got.Cert != bundle || len(got.Subjects) != 2 || got.Subjects[1] != "CN=two" || len(got.Fingerprint) != 64 || got.Version == 0 {
		t.Fatalf("got %+v", got)
	}
	var list struct{ Items []api.CACertificate }
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/caCertificates", token: e.viewer}).into(t, &list)
	if len(list.Items) != 1 || list.Items[0].Name != "internal" {
		t.Fatalf("list = %+v", list.Items)
	}
	// A whole config carries the bundles and sends them back unchanged.
	var cfg api.Config
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/config", token: e.viewer}).into(t, &cfg)
	if len(cfg.CACertificates) != 1 || cfg.CACertificates[0].Cert != bundle {
		t.Fatalf("config caCertificates = %+v", cfg.CACertificates)
	}

	leaf, key := selfSigned(t, "leaf.example.com")
	revs := e.revisions()
	for _, c := range []struct{ name, cert, want string }{
		{"leaf", leaf, "not a CA certificate"},
		{"with-key", bundle + key, "only CERTIFICATE blocks"},
		{"empty", "", "PEM CA certificates"},
		{"junk", bundle + "junk", "nothing else"},
	} {
		res := e.must(http.StatusBadRequest, req{method: "POST", path: "/api/v1/caCertificates", token: e.editor,
			body: api.CACertificate{Name: c.name, Cert: c.cert}})
		if !strings.Contains(string(res.body), c.want) || !strings.Contains(string(res.body), `"cert"`) {
			t.Errorf("%s: %s, want the field and %q", c.name, res.body, c.want)
		}
		if strings.Contains(string(res.body), "PRIVATE KEY-----") {
			t.Errorf("%s: the error quotes the key: %s", c.name, res.body)
		}
	}
	if e.revisions() != revs {
		t.Fatalf("a refused write made a revision")
	}
	e.must(http.StatusForbidden, req{method: "DELETE", path: "/api/v1/caCertificates/internal", token: e.viewer})
	e.must(http.StatusOK, req{method: "DELETE", path: "/api/v1/caCertificates/internal", token: e.editor})
	e.must(http.StatusNotFound, req{method: "GET", path: "/api/v1/caCertificates/internal", token: e.viewer})
}
