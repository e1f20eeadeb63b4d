package reconciler

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/restyplane/restyplane/api"
)

func testCAPEM(t *testing.T, isCA bool) string {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "team ca"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: isCA, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestCASecrets: a ca.crt of a TLS or Opaque Secret of the Ingress's own namespace becomes
// a kubernetes-owned caCertificate; another namespace's Secret is refused unless a
// ReferenceGrant of that namespace lets the Ingress's use it.
func TestCASecrets(t *testing.T) {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", Annotations: map[string]string{
		nginxPrefix + "proxy-ssl-secret": "team-a/upstream-ca", ownPrefix + "auth-tls-secret": "team-b/theirs"}}}
	if got := strings.Join(caSecretKeys(ing), " "); got != "team-a/upstream-ca team-b/theirs" {
		t.Fatalf("caSecretKeys = %v", got)
	}
	key, err := secretAnnotation(ing, "auth-tls-secret")
	if err != nil || key != "team-b/theirs" {
		t.Fatalf("secretAnnotation = %q %v", key, err)
	}
	granted := NewSnapshot()
	granted.Gateway = &GatewaySnapshot{Grants: []*gatewayv1beta1.ReferenceGrant{grant("team-b", networkingGroup, "Ingress", "team-a", "Secret", "theirs")}}
	for _, c := range []struct {
		name string
		snap *Snapshot
		ok   bool
	}{{"no Gateway API", NewSnapshot(), false}, {"no grant", &Snapshot{Gateway: &GatewaySnapshot{}}, false}, {"a grant", granted, true}} {
		err := secretPermitted(ing, "auth-tls-secret", key, c.snap)
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "another namespace") {
			t.Errorf("%s: secretPermitted = %v, want permitted %t", c.name, err, c.ok)
		}
	}
	snap := NewSnapshot()
	ca := testCAPEM(t, true)
	for _, typ := range []corev1.SecretType{corev1.SecretTypeTLS, corev1.SecretTypeOpaque} {
		snap.Secrets["team-a/upstream-ca"] = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "upstream-ca", UID: "u1"},
			Type: typ, Data: map[string][]byte{"ca.crt": []byte(ca)}}
		p := &plan{ing: ing}
		name, err := p.caCertificateFor(snap, "team-a/upstream-ca")
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		c := p.caCertificates[name]
		if c == nil || c.Cert != ca || c.Source.Kind != api.SourceKubernetes || c.Source.Namespace != "team-a" || !strings.Contains(name, "team-a") {
			t.Fatalf("%s: %s = %+v", typ, name, c)
		}
	}
	for _, tc := range []struct {
		data map[string][]byte
		want string
	}{
		{map[string][]byte{"tls.crt": []byte(ca)}, "no ca.crt key"},
		{map[string][]byte{"ca.crt": []byte(testCAPEM(t, false))}, "not a CA certificate"},
	} {
		snap.Secrets["team-a/upstream-ca"] = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "upstream-ca"}, Data: tc.data}
		if _, err := (&plan{ing: ing}).caCertificateFor(snap, "team-a/upstream-ca"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
}
