package reconciler_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestIngressLifecycle follows one Ingress from creation through an EndpointSlice scale-up
// to deletion, one revision each, against a real API server and a real store.
func TestIngressLifecycle(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const host = "shop.example.com"
	f.c.Create(t, kubetest.Service(f.ns, "web", 80),
		kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Endpoint{Address: "10.1.0.2"}, kubetest.Endpoint{Address: "10.1.0.3", NotReady: true}))
	r, _ := f.run(t, f.store, "one")

	start := time.Now()
	f.c.Create(t, kubetest.Ingress(f.ns, "web", f.class, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	backend := "k8s." + f.ns + ".web.80"
	waitFor(t, 5*time.Second, "the Ingress in the store", func() bool { return f.store.Head().Servers["k8s."+host] != nil })
	t.Logf("Ingress created to revision written: %v", time.Since(start))
	head := f.store.Head()
	if got, want := endpoints(head.Backends[backend]), "10.1.0.2:8080"; got != want {
		t.Fatalf("endpoints = %q, want %q (ready ones only)", got, want)
	}
	if got, want := head.Servers["k8s."+host].Source, (api.Source{Kind: api.SourceKubernetes, Namespace: f.ns, Name: "web", UID: head.Servers["k8s."+host].Source.UID}); got != want || got.UID == "" {
		t.Fatalf("server source = %+v, want %+v with a UID", got, want)
	}
	rev, err := f.store.Revision(ctx, head.Revision)
	if err != nil {
		t.Fatalf("revision: %v", err)
	}
	if got, want := rev.Actor, api.ActorKubernetes; got != want {
		t.Fatalf("actor = %q, want %q", got, want)
	}
	if got, want := rev.Message, "from the cluster: Ingress "+f.ns+"/web (server k8s."+host+" created); Service "+f.ns+"/web (backend "+backend+" created)"; got != want {
		t.Fatalf("message = %q, want %q", got, want)
	}
	if e := f.event(t, "web", "Applied"); e.Type != corev1.EventTypeNormal {
		t.Fatalf("Applied event type = %q, want Normal", e.Type)
	}
	waitFor(t, 5*time.Second, "status.loadBalancer", func() bool {
		ing, err := f.c.Client.NetworkingV1().Ingresses(f.ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && len(ing.Status.LoadBalancer.Ingress) == 1 && ing.Status.LoadBalancer.Ingress[0].IP == "127.0.0.1"
	})

	// A change that translates to the same objects writes nothing.
	count := revisions(t, f.store)
	syncs := r.Stats().Syncs
	ing, err := f.c.Client.NetworkingV1().Ingresses(f.ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get ingress: %v", err)
	}
	ing.Annotations = map[string]string{"team": "checkout"}
	if _, err := f.c.Client.NetworkingV1().Ingresses(f.ns).Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update ingress: %v", err)
	}
	waitFor(t, 5*time.Second, "a sync after the annotation change", func() bool { return r.Stats().Syncs > syncs })
	if got, want := revisions(t, f.store), count; got != want {
		t.Fatalf("revisions after an irrelevant change = %d, want %d", got, want)
	}

	// Scaling the EndpointSlice changes the backend only.
	slice, err := f.c.Client.DiscoveryV1().EndpointSlices(f.ns).Get(ctx, "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get slice: %v", err)
	}
	slice.Endpoints = kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.1.0.2", "10.1.0.3", "10.1.0.4")...).Endpoints
	start = time.Now()
	if _, err := f.c.Client.DiscoveryV1().EndpointSlices(f.ns).Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update slice: %v", err)
	}
	waitFor(t, 5*time.Second, "the scaled backend", func() bool {
		return endpoints(f.store.Head().Backends[backend]) == "10.1.0.2:8080,10.1.0.3:8080,10.1.0.4:8080"
	})
	t.Logf("EndpointSlice updated to revision written: %v", time.Since(start))
	if got, want := revisions(t, f.store), count+1; got != want {
		t.Fatalf("revisions after scaling = %d, want %d", got, want)
	}
	rev, _ = f.store.Revision(ctx, f.store.Head().Revision)
	if got, want := rev.Message, "from the cluster: Service "+f.ns+"/web (backend "+backend+" updated)"; got != want {
		t.Fatalf("message = %q, want %q", got, want)
	}

	// Deleting the Ingress removes its objects in one revision.
	if err := f.c.Client.NetworkingV1().Ingresses(f.ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete ingress: %v", err)
	}
	waitFor(t, 5*time.Second, "the Ingress's objects gone", func() bool { return len(f.store.Head().Servers) == 0 })
	head = f.store.Head()
	if got, want := len(head.Backends), 0; got != want {
		t.Fatalf("backends left = %d, want %d", got, want)
	}
	if got, want := revisions(t, f.store), count+2; got != want {
		t.Fatalf("revisions after deleting = %d, want %d", got, want)
	}
	rev, _ = f.store.Revision(ctx, head.Revision)
	if got, want := len(rev.Changes), 2; got != want {
		t.Fatalf("changes in the deleting revision = %d, want %d", got, want)
	}
}

// TestBadIngressesAreReported: a bad annotation and a snippet give Warning Events and
// leave the good Ingress applied.
func TestBadIngressesAreReported(t *testing.T) {
	f := newFixture(t)
	f.c.Create(t, kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.1.0.2")...))
	good := kubetest.Ingress(f.ns, "good", f.class, kubetest.Path{Host: "good.example.com", Path: "/", Service: "web", Port: 80})
	bad := kubetest.Ingress(f.ns, "bad", f.class, kubetest.Path{Host: "bad.example.com", Path: "/", Service: "web", Port: 80})
	bad.Annotations = map[string]string{"nginx.ingress.kubernetes.io/load-balance": "least_conn"}
	snippet := kubetest.Ingress(f.ns, "snippet", f.class, kubetest.Path{Host: "snippet.example.com", Path: "/", Service: "web", Port: 80})
	snippet.Annotations = map[string]string{"nginx.ingress.kubernetes.io/configuration-snippet": "include /etc/passwd;"}
	f.c.Create(t, good, bad, snippet)
	// The same host and path, created later: the older Ingress keeps it.
	time.Sleep(1100 * time.Millisecond) // creationTimestamp has a resolution of one second
	f.c.Create(t, kubetest.Ingress(f.ns, "copy", f.class, kubetest.Path{Host: "good.example.com", Path: "/", Service: "web", Port: 80}))
	f.run(t, f.store, "one")

	e := f.event(t, "bad", "Skipped")
	if got, want := e.Type, corev1.EventTypeWarning; got != want {
		t.Fatalf("event type = %q, want %q", got, want)
	}
	if !strings.Contains(e.Message, "load-balance") {
		t.Fatalf("event message %q does not name the annotation", e.Message)
	}
	if e := f.event(t, "snippet", "RefusedSnippet"); !strings.Contains(e.Message, "configuration-snippet") {
		t.Fatalf("event message %q does not name the snippet", e.Message)
	}
	f.event(t, "good", "Applied")
	e = f.event(t, "copy", "Conflict")
	if want := "older Ingress " + f.ns + "/good routes it"; !strings.Contains(e.Message, want) {
		t.Fatalf("conflict message %q does not say %q", e.Message, want)
	}
	head := f.store.Head()
	if head.Servers["k8s.good.example.com"] == nil || !reconciler.Held(head.Servers["k8s.bad.example.com"]) || !reconciler.Held(head.Servers["k8s.snippet.example.com"]) {
		t.Fatalf("servers = %v, want only the good Ingress's routing, the refused ones' paths held", keys(head.Servers))
	}
}

// TestOwnership: a REST edit of a kubernetes-owned backend is a conflict that says where
// to edit it, and an Ingress naming a hostname a REST server holds is refused whole: REST
// and Kubernetes servers never share a hostname.
func TestOwnership(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rest := api.Meta{Actor: "ci", Source: api.SourceAPI, Message: "rest"}
	_, err := f.store.Write(ctx, rest, []api.Mutation{
		{Kind: api.KindBackend, Backend: &api.Backend{Name: "pool", Endpoints: []api.Endpoint{{Address: "127.0.0.9", Port: 80}}}},
		{Kind: api.KindServer, Server: &api.Server{Name: "rest-shop", Hostnames: []string{"shop.example.com"},
			Locations: []api.Location{{Path: "/", Backend: "pool"}}}},
	})
	if err != nil {
		t.Fatalf("REST write: %v", err)
	}
	f.c.Create(t, kubetest.Service(f.ns, "web", 80),
		kubetest.Ingress(f.ns, "web", f.class, kubetest.Path{Host: "k8s.example.com", Path: "/", Service: "web", Port: 80}),
		kubetest.Ingress(f.ns, "shop", f.class, kubetest.Path{Host: "shop.example.com", Path: "/k8s", Service: "web", Port: 80}))
	f.run(t, f.store, "one")

	e := f.event(t, "shop", "HostClaimed")
	if !strings.Contains(e.Message, `held by the REST API (server "rest-shop")`) {
		t.Fatalf("HostClaimed message = %q", e.Message)
	}
	backend := "k8s." + f.ns + ".web.80"
	waitFor(t, 5*time.Second, "the Ingress's backend", func() bool { return f.store.Head().Backends[backend] != nil })
	if srv := f.store.Head().Servers["k8s.shop.example.com"]; srv != nil {
		t.Fatalf("kubernetes server for the REST hostname = %+v, want none", srv)
	}

	edit := *f.store.Head().Backends[backend]
	edit.Endpoints = []api.Endpoint{{Address: "127.0.0.66", Port: 80}}
	edit.Source = api.Source{}
	_, err = f.store.Write(ctx, rest, []api.Mutation{{Kind: api.KindBackend, Backend: &edit}})
	if got, want := api.ErrorCode(err), api.EConflict; got != want {
		t.Fatalf("REST edit of a kubernetes backend: code %q (%v), want %q", got, err, want)
	}
	if !strings.Contains(err.Error(), "edit the Kubernetes object") || !strings.Contains(err.Error(), f.ns+"/web") {
		t.Fatalf("REST edit error %q does not say where to edit", err)
	}
}

// TestDefaultIngressClass: Ingresses without a class belong to restyplane only when its
// class is the default; those of other classes never do.
func TestDefaultIngressClass(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.c.Create(t, kubetest.Service(f.ns, "web", 80),
		kubetest.Ingress(f.ns, "classless", "", kubetest.Path{Host: "classless.example.com", Path: "/", Service: "web", Port: 80}),
		kubetest.Ingress(f.ns, "other", "other-class", kubetest.Path{Host: "other.example.com", Path: "/", Service: "web", Port: 80}),
		kubetest.Ingress(f.ns, "mine", f.class, kubetest.Path{Host: "mine.example.com", Path: "/", Service: "web", Port: 80}))
	f.run(t, f.store, "one")
	waitFor(t, 5*time.Second, "the class's Ingress", func() bool { return f.store.Head().Servers["k8s.mine.example.com"] != nil })
	if got := keys(f.store.Head().Servers); len(got) != 1 {
		t.Fatalf("servers = %v, want the class's Ingress only", got)
	}

	ic, err := f.c.Client.NetworkingV1().IngressClasses().Get(ctx, f.class, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get class: %v", err)
	}
	ic.Annotations = map[string]string{"ingressclass.kubernetes.io/is-default-class": "true"}
	if ic, err = f.c.Client.NetworkingV1().IngressClasses().Update(ctx, ic, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update class: %v", err)
	}
	// Other tests' classes are never default, so the class-less Ingresses of every
	// namespace are now ours; this test's must be among them.
	waitFor(t, 5*time.Second, "the class-less Ingress", func() bool { return f.store.Head().Servers["k8s.classless.example.com"] != nil })
	if f.store.Head().Servers["k8s.other.example.com"] != nil {
		t.Fatalf("an Ingress of another class was translated")
	}
	ic.Annotations = nil
	if _, err := f.c.Client.NetworkingV1().IngressClasses().Update(ctx, ic, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update class: %v", err)
	}
	waitFor(t, 5*time.Second, "the class-less Ingress gone", func() bool { return f.store.Head().Servers["k8s.classless.example.com"] == nil })
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
