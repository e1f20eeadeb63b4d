package reconciler_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestAppliedOncePerGenerationAcrossRestart: a reconciler that starts on a cluster where
// one before it already said an Ingress's generation was applied says it again neither
// for that Ingress nor at all; a new generation of it still gets its Applied Event.
func TestAppliedOncePerGenerationAcrossRestart(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.c.Create(t, kubetest.Service(f.ns, "web", 80),
		kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Endpoint{Address: "10.1.0.2"}),
		kubetest.Ingress(f.ns, "web", f.class, kubetest.Path{Host: "web.example.com", Path: "/", Service: "web", Port: 80}))
	_, stop := f.run(t, f.store, "one")
	f.event(t, "web", reconciler.ReasonApplied)
	stop()

	// The second reconciler reports in the order of its syncs, one Event after another:
	// once the Ingress created after its start has its Applied Event, whatever it had to
	// say about "web" is said.
	f.run(t, f.store, "two")
	f.c.Create(t, kubetest.Ingress(f.ns, "marker", f.class, kubetest.Path{Host: "marker.example.com", Path: "/", Service: "web", Port: 80}))
	f.event(t, "marker", reconciler.ReasonApplied)
	if n := applied(t, f, "web"); n != 1 {
		t.Fatalf("Applied Events on web after a restart = %d, want 1 (its generation was already reported)", n)
	}

	ing, err := f.c.Client.NetworkingV1().Ingresses(f.ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get ingress: %v", err)
	}
	ing.Spec.Rules[0].HTTP.Paths[0].Path = "/v2"
	if _, err := f.c.Client.NetworkingV1().Ingresses(f.ns).Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update ingress: %v", err)
	}
	waitFor(t, 10*time.Second, "the Applied Event of web's second generation", func() bool { return applied(t, f, "web") == 2 })
}

// applied counts the Applied Events on the Ingress, a repeated one as often as it was said.
func applied(t *testing.T, f *fixture, name string) int32 {
	t.Helper()
	var n int32
	for _, e := range f.c.Events(t, f.ns, name) {
		if e.Reason == reconciler.ReasonApplied {
			n += max(e.Count, 1)
		}
	}
	return n
}
