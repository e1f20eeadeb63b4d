package reconciler_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	restclient "k8s.io/client-go/rest"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// requestLog records the requests a reconciler sends to the API server, as "METHOD path".
type requestLog struct {
	mu   sync.Mutex
	seen []string
}

// config is cfg with every request recorded in l.
func (l *requestLog) config(cfg *restclient.Config) *restclient.Config {
	cfg = restclient.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			l.mu.Lock()
			l.seen = append(l.seen, req.Method+" "+req.URL.Path)
			l.mu.Unlock()
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

// count returns how many requests since the last reset had method and a path that begins
// with prefix.
func (l *requestLog) count(method, prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.seen {
		if strings.HasPrefix(s, method+" "+prefix) {
			n++
		}
	}
	return n
}

// perPath counts the requests of method below prefix by path.
func (l *requestLog) perPath(method, prefix string) map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for _, s := range l.seen {
		if p, ok := strings.CutPrefix(s, method+" "); ok && strings.HasPrefix(p, prefix) {
			out[p]++
		}
	}
	return out
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// accepted reports whether every route of the namespace has restyplane's parent Accepted
// and ResolvedRefs at its generation.
func accepted(t *testing.T, c *kubetest.Cluster, ns, controller string, n int) bool {
	t.Helper()
	l, err := c.Gateway.GatewayV1().HTTPRoutes(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(l.Items) != n {
		return false
	}
	for _, r := range l.Items {
		if !routeStatusRight(r, controller) {
			return false
		}
	}
	return true
}

// routeStatusRight reports whether the route's status has one parent of controller, its
// Gateway "gw", Accepted and ResolvedRefs at the route's generation.
func routeStatusRight(r gatewayv1.HTTPRoute, controller string) bool {
	var ours []gatewayv1.RouteParentStatus
	for _, p := range r.Status.Parents {
		if string(p.ControllerName) == controller {
			ours = append(ours, p)
		}
	}
	if len(ours) != 1 || ours[0].ParentRef.Name != "gw" {
		return false
	}
	want := map[string]bool{"Accepted": false, "ResolvedRefs": false}
	for _, c := range ours[0].Conditions {
		if _, ok := want[c.Type]; ok && c.Status == metav1.ConditionTrue && c.Reason == c.Type && c.ObservedGeneration == r.Generation {
			want[c.Type] = true
		}
	}
	return want["Accepted"] && want["ResolvedRefs"]
}

// TestGatewayStatusRequests: the Gateway API reporter brings N routes' status up to date
// with one write each and no read of its own, from the informers' copies; a reconciler
// that starts again over the same cluster, where nothing changed, writes no status and
// records no Event for them.
func TestGatewayStatusRequests(t *testing.T) {
	const n = 30
	f := newGatewayFixture(t)
	f.c.Create(t, kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.3.0.1")...),
		kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, "")))
	for i := range n {
		f.c.Create(t, kubetest.HTTPRoute(f.ns, fmt.Sprintf("r%02d", i), "gw", []string{fmt.Sprintf("r%02d.example.com", i)},
			kubetest.Rule("/", []string{"web"})))
	}
	var log requestLog
	routes := "/apis/gateway.networking.k8s.io/v1/namespaces/" + f.ns + "/httproutes/"
	events := "/api/v1/namespaces/" + f.ns + "/events"
	run := func(identity string) (*reconciler.Reconciler, func()) {
		opts := f.options(identity)
		opts.Config = log.config(f.c.Config)
		return f.runWith(t, f.store, opts)
	}

	_, stop := run("one")
	waitFor(t, 20*time.Second, "every route Accepted", func() bool { return accepted(t, f.c, f.ns, f.gatewayController, n) })
	f.event(t, "r00", reconciler.ReasonApplied) // a route accepted the first time says so
	stop()
	if got := log.count(http.MethodGet, routes); got != 0 {
		t.Errorf("the reporter read routes %d times to write %d statuses, want 0: it writes from the informers' copies", got, n)
	}
	for path, writes := range log.perPath(http.MethodPut, routes) {
		if writes > 1 {
			t.Errorf("%s written %d times, want once", path, writes)
		}
	}
	if got := log.count(http.MethodPut, routes); got != n {
		t.Errorf("%d status writes for %d new routes, want %d", got, n, n)
	}

	// Restart: nothing changed, so nothing is read, written or said for those routes. A
	// route created afterwards in a namespace that sorts after theirs is reported after
	// them: once it has its status and its Event, the reporter is past them.
	log.reset()
	r, _ := run("two")
	rest(t, r)
	late := f.c.Namespace(t, f.ns+"-z")
	lr := kubetest.HTTPRoute(late, "late", "gw", []string{"late.example.com"}, kubetest.Rule("/", []string{"web"}))
	gwNS := gatewayv1.Namespace(f.ns)
	lr.Spec.ParentRefs[0].Namespace = &gwNS
	f.c.Create(t, kubetest.Service(late, "web", 80), kubetest.EndpointSlice(late, "web", "web-1", 8080, kubetest.Ready("10.3.0.2")...), lr)
	waitFor(t, 20*time.Second, "the late route's status", func() bool { return accepted(t, f.c, late, f.gatewayController, 1) })
	waitFor(t, 10*time.Second, "the late route's Event", func() bool { return len(f.c.Events(t, late, "late")) > 0 })
	if got := log.count(http.MethodGet, routes); got != 0 {
		t.Errorf("after a restart the reporter read routes %d times, want 0: their status is already right", got)
	}
	if got := log.count(http.MethodPut, routes); got != 0 {
		t.Errorf("after a restart the reporter wrote %d route statuses, want 0: nothing changed", got)
	}
	if got := log.count(http.MethodPost, events) + log.count(http.MethodPatch, events); got != 0 {
		t.Errorf("after a restart %d Event requests for the unchanged routes, want 0", got)
	}
	if !accepted(t, f.c, f.ns, f.gatewayController, n) {
		t.Errorf("the routes' status changed after the restart")
	}

	// An edit that leaves a route's verdict as it was (another path) is written, from the
	// informer's copy, and says nothing; an edit that breaks one (a Service that does not
	// exist) says so in a Warning.
	log.reset()
	edit(t, f.c, f.ns, "r02", func(rt *gatewayv1.HTTPRoute) { rt.Spec.Rules[0].Matches[0].Path.Value = new("/shop") })
	waitFor(t, 10*time.Second, "r02's status at generation 2", func() bool { return accepted(t, f.c, f.ns, f.gatewayController, n) })
	edit(t, f.c, f.ns, "r01", func(rt *gatewayv1.HTTPRoute) { rt.Spec.Rules[0].BackendRefs[0].Name = "ghost" })
	waitFor(t, 10*time.Second, "a Warning on r01", func() bool {
		for _, e := range f.c.Events(t, f.ns, "r01") {
			if e.Type == "Warning" {
				return true
			}
		}
		return false
	})
	if es := f.c.Events(t, f.ns, "r02"); len(es) != 1 || es[0].Reason != reconciler.ReasonApplied || es[0].Count != 1 {
		t.Errorf("r02's Events after an edit that changed no verdict: %+v, want its first Applied alone", es)
	}
	if got, want := fmt.Sprint(log.perPath(http.MethodPut, routes)), fmt.Sprintf("map[%sr01/status:1 %sr02/status:1]", routes, routes); got != want {
		t.Errorf("status writes after two edits: %s, want %s", got, want)
	}
	if got := log.count(http.MethodGet, routes); got != 0 {
		t.Errorf("the reporter read routes %d times after two edits, want 0", got)
	}
}

// edit changes the route ns/name by change.
func edit(t *testing.T, c *kubetest.Cluster, ns, name string, change func(*gatewayv1.HTTPRoute)) {
	t.Helper()
	routes := c.Gateway.GatewayV1().HTTPRoutes(ns)
	rt, err := routes.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get route %s: %v", name, err)
	}
	change(rt)
	if _, err := routes.Update(context.Background(), rt, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update route %s: %v", name, err)
	}
}
