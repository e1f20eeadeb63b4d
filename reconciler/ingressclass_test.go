package reconciler_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestOtherClassesCauseNoSync: in a cluster shared with another controller, its Ingresses,
// and the Services and EndpointSlices that only they route to, cause no sync; an Ingress
// that leaves restyplane's class is taken out, and one that joins it is applied.
func TestOtherClassesCauseNoSync(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cl := f.c.Client
	other := f.ns + "-other"
	f.c.Create(t, kubetest.IngressClass(other, "k8s.io/ingress-nginx", false),
		kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.4.0.1")...),
		kubetest.Service(f.ns, "theirs", 80), kubetest.EndpointSlice(f.ns, "theirs", "theirs-1", 8080, kubetest.Ready("10.4.1.1")...),
		kubetest.Ingress(f.ns, "web", f.class, kubetest.Path{Host: "web.example.com", Path: "/", Service: "web", Port: 80}))
	r, _ := f.run(t, f.store, "one")
	served := func(host string) bool { return f.store.Head().Servers["k8s."+host] != nil }
	waitFor(t, 5*time.Second, "web applied", func() bool { return served("web.example.com") })
	rest(t, r)

	// Each step changes the other controller's objects, then one of restyplane's through
	// the same informer's handler, which sees them in order: once the marker's sync is
	// done, the other's changes were seen, and they must have added no sync of their own.
	step := func(what string, theirs, marker func()) {
		t.Helper()
		before := r.Stats().Syncs
		theirs()
		marker()
		waitFor(t, 5*time.Second, what+": the marker's sync", func() bool { return r.Stats().Syncs > before })
		rest(t, r)
		if got := r.Stats().Syncs - before; got != 1 {
			t.Fatalf("%s: %d syncs, want 1 (the marker's)", what, got)
		}
	}
	theirsIngress := func(name, host string) func() {
		return func() {
			f.c.Create(t, kubetest.Ingress(f.ns, name, other, kubetest.Path{Host: host, Path: "/", Service: "theirs", Port: 80}))
		}
	}
	mark := 0
	ourIngress := func() {
		mark++
		name := "mark-" + string(rune('a'+mark))
		f.c.Create(t, kubetest.Ingress(f.ns, name, f.class, kubetest.Path{Host: name + ".example.com", Path: "/", Service: "web", Port: 80}))
	}
	step("their IngressClass created", func() {
		f.c.Create(t, kubetest.IngressClass(other+"-more", "k8s.io/ingress-nginx", false))
	}, func() { f.c.Create(t, kubetest.IngressClass(f.class+"-ours", f.controller, false)) })
	step("their Ingresses created", func() {
		theirsIngress("theirs-a", "a.theirs.example.com")()
		theirsIngress("theirs-b", "b.theirs.example.com")()
	}, ourIngress)
	step("their Ingress changed", func() {
		ing, err := cl.NetworkingV1().Ingresses(f.ns).Get(ctx, "theirs-a", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get: %v", err)
		}
		ing.Annotations = map[string]string{"nginx.ingress.kubernetes.io/proxy-read-timeout": "30"}
		if _, err := cl.NetworkingV1().Ingresses(f.ns).Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update: %v", err)
		}
	}, ourIngress)
	step("their Ingress deleted", func() {
		if err := cl.NetworkingV1().Ingresses(f.ns).Delete(ctx, "theirs-b", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}
	}, ourIngress)
	label := func(name string) func() {
		return func() {
			svc, err := cl.CoreV1().Services(f.ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("get service: %v", err)
			}
			svc.Labels = map[string]string{"touched": time.Now().Format("150405.000000")}
			if _, err := cl.CoreV1().Services(f.ns).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("update service: %v", err)
			}
		}
	}
	step("their Service changed", label("theirs"), label("web"))
	scale := func(slice, svc, addr string) func() {
		return func() {
			s, err := cl.DiscoveryV1().EndpointSlices(f.ns).Get(ctx, slice, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("get slice: %v", err)
			}
			s.Endpoints = append(s.Endpoints, kubetest.EndpointSlice(f.ns, svc, slice, 8080, kubetest.Ready(addr)...).Endpoints...)
			if _, err := cl.DiscoveryV1().EndpointSlices(f.ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("update slice: %v", err)
			}
		}
	}
	step("their EndpointSlice changed", scale("theirs-1", "theirs", "10.4.1.2"), scale("web-1", "web", "10.4.0.2"))

	// Moves between the classes count both ways.
	move := func(name, class string) {
		t.Helper()
		ing, err := cl.NetworkingV1().Ingresses(f.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get: %v", err)
		}
		ing.Spec.IngressClassName = &class
		if _, err := cl.NetworkingV1().Ingresses(f.ns).Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update: %v", err)
		}
	}
	move("web", other)
	waitFor(t, 5*time.Second, "web taken out after it left the class", func() bool { return !served("web.example.com") })
	move("theirs-a", f.class)
	waitFor(t, 5*time.Second, "theirs-a applied after it joined the class", func() bool { return served("a.theirs.example.com") })
	if served("b.theirs.example.com") {
		t.Fatalf("the other class's deleted Ingress is served")
	}
}
