package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/internal/rptest"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// The Ingresses view lists each Ingress of restyplane's class with its verdict and its
// annotations' (honoured, refused with why, ignored), from a real kube-apiserver that a
// real restyplane reconciles: the verdicts come from the reconciler, so nothing cheaper
// than a cluster gives them.
func TestIngressesShowsEachAnnotationsVerdict(t *testing.T) {
	c := kubetest.StartT(t)
	c.Create(t, kubetest.IngressClass("restyplane", reconciler.DefaultController, false))
	ns := c.Namespace(t, "webui")
	svc := kubetest.Service(ns, "shop", 80)
	safe := kubetest.Ingress(ns, "safe", "restyplane", kubetest.Path{Host: "safe.example.com", Path: "/", Service: "shop", Port: 80})
	safe.Annotations = map[string]string{"nginx.ingress.kubernetes.io/ssl-redirect": "false", "nginx.ingress.kubernetes.io/enable-influxdb": "true"}
	locked := kubetest.Ingress(ns, "locked", "restyplane", kubetest.Path{Host: "locked.example.com", Path: "/", Service: "shop", Port: 80})
	// auth-url is honoured; auth-keepalive is an annotation no policy branch implements.
	locked.Annotations = map[string]string{"nginx.ingress.kubernetes.io/auth-keepalive": "10"}
	other := kubetest.Ingress(ns, "elsewhere", "nginx", kubetest.Path{Host: "other.example.com", Path: "/", Service: "shop", Port: 80})
	c.Create(t, svc, safe, locked, other)

	p := rptest.Start(t, rptest.Options{Token: adminSecret, Reason: "browser test setup",
		Args: []string{"--kubeconfig", c.Kubeconfig(t), "--lease-namespace", ns, "--lease-identity", "web"}})
	rp := &restyplane{Process: p, t: t}
	deadline := time.Now().Add(30 * time.Second)
	for {
		l, err := c.Client.CoordinationV1().Leases(ns).Get(context.Background(), "restyplane-reconciler", metav1.GetOptions{})
		if err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity == "web" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reconciler did not take its Lease within 30s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(rp.token("vera", "viewer"))
	b.route("#/ingresses", tid("ingresses"))
	b.waitFor("two Ingresses", `document.querySelectorAll('[data-testid="ingress-row"]').length === 2`)
	row := func(name string) string {
		return b.text(`[data-testid="ingress-row"][data-name="` + ns + `/` + name + `"]`)
	}
	locks := row("locked")
	for _, want := range []string{"refused", "auth-keepalive"} {
		if !strings.Contains(locks, want) {
			t.Errorf("the locked Ingress's row %q lacks %q", locks, want)
		}
	}
	safes := row("safe")
	for _, want := range []string{"served", "ssl-redirect", "honoured", "enable-influxdb", "ignored"} {
		if !strings.Contains(safes, want) {
			t.Errorf("the safe Ingress's row %q lacks %q", safes, want)
		}
	}
	b.waitFor("the auth-keepalive annotation refused", `!!document.querySelector('[data-testid="ingress-row"][data-name="`+ns+`/locked"] [data-testid="annotation"][data-verdict="refused"]')`)
	b.noHorizontalScroll("ingresses")

	// Another class's Ingress shows only when asked for, judged as if it moved over.
	b.click(tid("ingresses-class"))
	b.waitFor("three Ingresses with every class", `document.querySelectorAll('[data-testid="ingress-row"]').length === 3`)
	if got := row("elsewhere"); !strings.Contains(got, "nginx") || !strings.Contains(got, "other") {
		t.Errorf("the other class's row = %q, want its class marked as another", got)
	}
}

// Without a cluster the view says so instead of failing.
func TestIngressesWithoutAClusterSaysSo(t *testing.T) {
	rp := startRestyplane(t)
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(rp.token("vera", "viewer"))
	b.route("#/ingresses", tid("ingresses-no-cluster"))
	if got := b.text(tid("ingresses-no-cluster")); !strings.Contains(got, "without a Kubernetes cluster") {
		t.Errorf("no-cluster state = %q", got)
	}
}
