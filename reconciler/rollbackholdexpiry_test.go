package reconciler_test

import (
	"context"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestRollbackHoldLetsExpiringCertificatesGo: a rollback that brings back certificates
// close to their expiry holds them only until a day before it, and then, in a cluster where
// nothing changes, the cluster's are served: shop's renewed certificate, which the rollback
// took back to the old one, and for cart, whose Ingress moved to another Secret, the
// server as the cluster asks with that Secret's certificate (the one the rollback made
// again goes). Before, the release ran only in a sync, and nothing asked for one at that
// time; and a server naming a certificate made again was never let go.
func TestRollbackHoldLetsExpiringCertificatesGo(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const shop, cart = "shop.example.com", "cart.example.com"
	f.c.Create(t, kubetest.Service(f.ns, "a", 80), kubetest.EndpointSlice(f.ns, "a", "a-1", 8080, kubetest.Ready("10.7.0.2")...))
	r, _ := f.run(t, f.store, "one")

	// The old certificates come within a day of their expiry some seconds from now: time
	// for the setup below on a machine busy with other tests too.
	const margin = 24 * time.Hour
	soon := time.Now().Add(margin + 15*time.Second)
	oldShop, oldShopKey := kubetest.SelfSignedUntil(t, soon, shop)
	newShop, newShopKey := kubetest.SelfSignedUntil(t, time.Now().Add(90*margin), shop)
	oldCart, oldCartKey := kubetest.SelfSignedUntil(t, soon, cart)
	newCart, newCartKey := kubetest.SelfSignedUntil(t, time.Now().Add(90*margin), cart)
	withTLS := func(ing *networkingv1.Ingress, host, secret string) *networkingv1.Ingress {
		ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: secret}}
		return ing
	}
	ingress := func(name, host, secret string) *networkingv1.Ingress {
		return withTLS(kubetest.Ingress(f.ns, name, f.class, kubetest.Path{Host: host, Path: "/", Service: "a", Port: 80}), host, secret)
	}
	certName := func(secret string) string { return "k8s." + f.ns + "." + secret }
	cert := func(secret string) string {
		if c := f.store.Head().Certificates[certName(secret)]; c != nil {
			return c.Cert
		}
		return ""
	}
	presents := func(host string) string {
		if s := f.store.Head().Servers["k8s."+host]; s != nil && s.TLS != nil {
			return s.TLS.Certificate
		}
		return ""
	}
	f.c.Create(t, kubetest.TLSSecret(f.ns, "shop-tls", oldShop, oldShopKey), kubetest.TLSSecret(f.ns, "cart-tls", oldCart, oldCartKey),
		kubetest.TLSSecret(f.ns, "cart-tls-2", newCart, newCartKey), ingress("shop", shop, "shop-tls"), ingress("cart", cart, "cart-tls"))
	waitFor(t, 5*time.Second, "shop and cart on the old certificates", func() bool {
		return cert("shop-tls") == string(oldShop) && presents(cart) == certName("cart-tls") && cert("cart-tls") == string(oldCart)
	})
	good := f.store.Head().Revision

	// shop's certificate renewed; cart moved to another Secret, its old certificate deleted.
	secret, err := f.c.Client.CoreV1().Secrets(f.ns).Get(ctx, "shop-tls", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get secret: %v", err)
	}
	secret.Data = kubetest.TLSSecret(f.ns, "shop-tls", newShop, newShopKey).Data
	if _, err := f.c.Client.CoreV1().Secrets(f.ns).Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("renew shop's certificate: %v", err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ing, err := f.c.Client.NetworkingV1().Ingresses(f.ns).Get(ctx, "cart", metav1.GetOptions{})
		if err != nil {
			return err
		}
		ing.Spec = ingress("cart", cart, "cart-tls-2").Spec
		_, err = f.c.Client.NetworkingV1().Ingresses(f.ns).Update(ctx, ing, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("move cart to secret cart-tls-2: %v", err)
	}
	waitFor(t, 5*time.Second, "shop and cart on the new certificates", func() bool {
		return cert("shop-tls") == string(newShop) && presents(cart) == certName("cart-tls-2") && cert("cart-tls") == ""
	})

	// The rollback brings the old ones back, and holds them.
	if _, err := f.store.Rollback(ctx, api.Meta{Actor: api.ActorApplier, Message: "automatic rollback: 5xx"}, good); err != nil {
		t.Fatalf("rollback to %d: %v", good, err)
	}
	held := func(kind, name string) bool {
		_, ok := f.store.Holds()[api.Ref{Kind: kind, Name: name}]
		return ok
	}
	rest(t, r)
	deadline := f.store.Head().Certificates[certName("shop-tls")].NotAfter.Add(-margin)
	if time.Now().After(deadline) {
		t.Fatalf("the test's setup outlasted the old certificates' margin (until %v): the machine is too slow for it", deadline)
	}
	if cert("shop-tls") != string(oldShop) || !held(api.KindCertificate, certName("shop-tls")) ||
		presents(cart) != certName("cart-tls") || !held(api.KindServer, "k8s."+cart) || !held(api.KindCertificate, certName("cart-tls")) {
		t.Fatalf("after the rollback, %v before the old certificates' margin, holds %v; want shop's old certificate and cart's server held",
			time.Until(deadline).Round(time.Millisecond), f.store.Holds())
	}

	// Nothing changes in the cluster: a day before the old certificates expire, the
	// cluster's are served.
	waitFor(t, time.Until(deadline)+5*time.Second, "the cluster's certificates served a day before the old ones expire", func() bool {
		return cert("shop-tls") == string(newShop) && presents(cart) == certName("cart-tls-2") && cert("cart-tls-2") == string(newCart) &&
			cert("cart-tls") == ""
	})
	rest(t, r)
	for _, ref := range []api.Ref{{Kind: api.KindCertificate, Name: certName("shop-tls")}, {Kind: api.KindServer, Name: "k8s." + cart},
		{Kind: api.KindCertificate, Name: certName("cart-tls")}, {Kind: api.KindCertificate, Name: certName("cart-tls-2")}} {
		if held(ref.Kind, ref.Name) {
			t.Errorf("%s %s is still held", ref.Kind, ref.Name)
		}
	}
}
