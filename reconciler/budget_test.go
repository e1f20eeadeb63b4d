package reconciler

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestNamespaceBudgets: one namespace that goes over its budget (Ingresses, locations or
// certificate bytes) loses its newest Ingresses alone, each refused with why; its older
// Ingresses and every other namespace are served. The proxy-wide certificate budget,
// which the store would otherwise enforce by refusing the whole sync, refuses the
// Ingresses that would go over it, newest first, the same way.
func TestNamespaceBudgets(t *testing.T) {
	certOf := func(host string) (cert, key []byte) { return kubetest.SelfSigned(t, host) }
	ingress := func(ns string, i, minutes int, paths int) []runtime.Object {
		host := fmt.Sprintf("h%d.%s.example.com", i, ns)
		var ps []kubetest.Path
		for j := range paths {
			ps = append(ps, kubetest.Path{Host: host, Path: fmt.Sprintf("/p%d", j), Service: "web", Port: 80})
		}
		ing := aged(kubetest.Ingress(ns, fmt.Sprintf("i%d", i), "restyplane", ps...), minutes)
		secret := fmt.Sprintf("tls%d", i)
		c, k := certOf(host)
		return []runtime.Object{withTLS(ing, secret, host), kubetest.TLSSecret(ns, secret, c, k)}
	}
	objs := []runtime.Object{kubetest.Service("big", "web", 80), kubetest.Service("small", "web", 80),
		kubetest.EndpointSlice("big", "web", "web-1", 8080, kubetest.Endpoint{Address: "10.0.0.2"}),
		kubetest.EndpointSlice("small", "web", "web-1", 8080, kubetest.Endpoint{Address: "10.0.0.3"})}
	for i := range 6 {
		objs = append(objs, ingress("big", i, i, 2)...)
	}
	objs = append(objs, ingress("small", 0, 100, 1)...)
	oneCert := func() int64 {
		c, k := certOf("x.example.com")
		return int64(len(c) + len(k))
	}()

	for _, c := range []struct {
		name    string
		budgets Budgets
		served  int // of big's six, oldest first
		reason  string
	}{
		{"ingresses", Budgets{Ingresses: 4}, 4, "namespace big is at its budget of 4 Ingresses"},
		{"locations", Budgets{Locations: 7}, 3, "namespace big is at its budget of 7 locations"},
		{"certificate bytes", Budgets{CertificateBytes: 2*oneCert + oneCert/2}, 2, "namespace big is at its budget of"},
		{"proxy-wide certificate bytes", Budgets{TotalCertificateBytes: 5*oneCert + oneCert/2}, 5, "the proxy's certificates are at their budget of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			snap := snapshotOf(objs...)
			snap.Budgets = c.budgets
			tr := Translate(snap, nil)
			for i := range 6 {
				rep := tr.Reports[fmt.Sprintf("big/i%d", i)]
				switch {
				case i < c.served && !rep.Applied:
					t.Errorf("big/i%d (older) not applied: %v", i, rep.Problems)
				case i >= c.served && (rep.Applied || !strings.Contains(fmt.Sprint(rep.Problems), c.reason)):
					t.Errorf("big/i%d (newer): applied %v, problems %v; want refused with %q", i, rep.Applied, rep.Problems, c.reason)
				}
			}
			if c.budgets.TotalCertificateBytes == 0 && !tr.Reports["small/i0"].Applied {
				t.Errorf("namespace small's Ingress not applied: %v", tr.Reports["small/i0"].Problems)
			}
		})
	}
}
