package reconciler

import (
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/api"
)

// TestHeldReportsNameHeldCertificates: an Ingress whose TLS Secret's certificate a
// rollback holds hears it, as it hears of its held server or backend: a renewed
// certificate that a rollback took back is the Ingress's concern too. An Ingress that
// names nothing held hears nothing.
func TestHeldReportsNameHeldCertificates(t *testing.T) {
	ing := func(name, secret string) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
			Spec: networkingv1.IngressSpec{
				TLS:   []networkingv1.IngressTLS{{Hosts: []string{name + ".example.com"}, SecretName: secret}},
				Rules: []networkingv1.IngressRule{{Host: name + ".example.com"}}}}
	}
	reports := map[string]*Report{
		"shop/web":  {Ingress: ing("web", "web-tls"), Ours: true, Applied: true},
		"shop/cart": {Ingress: ing("cart", "cart-tls"), Ours: true, Applied: true},
	}
	cert := api.Ref{Kind: api.KindCertificate, Name: certificateName("shop", "web-tls")}
	out := heldReports(reports, map[api.Ref]api.Hold{cert: {Kind: cert.Kind, Name: cert.Name, Revision: 7}})
	web := out["shop/web"]
	if len(web.Problems) != 1 || web.Problems[0].Reason != ReasonRolledBack || !strings.Contains(web.Problems[0].Message, "certificate "+cert.Name) ||
		!strings.Contains(web.Problems[0].Message, "revision 7") {
		t.Fatalf("web's problems = %+v, want a RolledBack Warning naming certificate %s and revision 7", web.Problems, cert.Name)
	}
	if len(out["shop/cart"].Problems) != 0 || len(reports["shop/web"].Problems) != 0 {
		t.Fatalf("cart's problems = %+v, the cached report's = %+v; want none of either", out["shop/cart"].Problems, reports["shop/web"].Problems)
	}
}
