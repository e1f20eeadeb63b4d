package e2e

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testListenerNotServed: a listener's Secret holds a certificate of a 512-bit RSA key,
// which restyplane's checks accept and nginx refuses (ee key too small). The apply leaves
// out the servers that present it, the route's among them, and serves the rest of the
// revision: the route gets a NotServed Warning, and the Gateway and its listeners read
// Programmed False, naming the server, the instance and nginx's reason, though the proxy
// serves the Gateway's revision. The listener moved to a good Secret is served, on both
// listeners, and the Gateway is Programmed again.
func testListenerNotServed(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	ki.service("a", k.ns.upstream(t, "a"))
	host := ki.host("weak")
	weak, weakKey := weakCert(t, host)
	good, goodKey := kubetest.SelfSigned(t, host)
	k.c.Create(t, kubetest.TLSSecret(ki.ns, "weak", weak, weakKey), kubetest.TLSSecret(ki.ns, "good", good, goodKey))
	ki.httpGateway(kubetest.HTTPSListener("https", ki.tlsPort(), "", "weak"))
	k.c.Create(t, kubetest.HTTPRoute(ki.ns, "app", "gw", []string{host}, kubetest.Rule("/", []string{"a"})))

	if e := ki.event("app", reconciler.ReasonNotServed); !strings.Contains(e.Message, "ee key too small") {
		t.Errorf("NotServed on the route: %q, want nginx's reason", e.Message)
	}
	programmed := string(gatewayv1.GatewayConditionProgrammed)
	ki.waitUntil("the Gateway and its listeners not Programmed without the HTTPS server", 30*time.Second, func() (bool, string) {
		gw := ki.gateway("gw")
		ok, last := hasCondition(gw.Status.Conditions, programmed, "False", "Invalid", gw.Generation)
		for _, s := range []string{"without server", host, "left out by default", "ee key too small"} {
			ok = ok && strings.Contains(last, s)
		}
		for _, l := range gw.Status.Listeners {
			lok, llast := hasCondition(l.Conditions, programmed, "False", "Invalid", gw.Generation)
			ok, last = ok && lok, last+"; listener "+string(l.Name)+": "+llast
		}
		return ok, last
	})
	t.Logf("Programmed: %s", condMessage(ki.gateway("gw").Status.Conditions, programmed))

	gws := k.c.Gateway.GatewayV1().Gateways(ki.ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		gw, err := gws.Get(context.Background(), "gw", metav1.GetOptions{})
		if err != nil {
			return err
		}
		gw.Spec.Listeners[1].TLS.CertificateRefs[0].Name = "good"
		_, err = gws.Update(context.Background(), gw, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("move the listener to the good Secret: %v", err)
	}
	ki.waitUntil("the Gateway and its listeners Programmed once the HTTPS server is served", 30*time.Second, func() (bool, string) {
		gw := ki.gateway("gw")
		ok, last := hasCondition(gw.Status.Conditions, programmed, "True", "Programmed", gw.Generation)
		for _, l := range gw.Status.Listeners {
			lok, llast := hasCondition(l.Conditions, programmed, "True", "Programmed", gw.Generation)
			ok, last = ok && lok, last+"; listener "+string(l.Name)+": "+llast
		}
		return ok, last
	})
	ki.waitAnswer(host, "/", 200, "a ")
	if code, body := ki.getTLS(host, host, "/"); code != 200 || !strings.HasPrefix(body, "a ") {
		t.Fatalf("GET https://%s/ = %d %q, want 200 from a", host, code, body)
	}
}

// condMessage is the message of the condition of type typ, "" without one.
func condMessage(conds []metav1.Condition, typ string) string {
	for _, c := range conds {
		if c.Type == typ {
			return c.Message
		}
	}
	return ""
}

// weakCert returns a self-signed certificate for host and its key, of 512-bit RSA: Go
// parses it and finds the key belongs to it, and OpenSSL at its default security level
// refuses it (ee key too small). Go makes such a key only when GODEBUG allows it.
func weakCert(t *testing.T, host string) (certPEM, keyPEM []byte) {
	t.Helper()
	t.Setenv("GODEBUG", "rsa1024min=0")
	key, err := rsa.GenerateKey(rand.Reader, 512)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
}
