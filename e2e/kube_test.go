package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetes runs the restyplane binary with its reconciler against a real
// kube-apiserver and etcd, with the real applier and nginx, and sends real requests through
// the proxy to upstreams that listen in a network namespace at the addresses the
// EndpointSlices list. The subtests share the cluster; each has its own restyplane.
func TestKubernetes(t *testing.T) {
	k := newKube(t)
	t.Run("IngressServedWithin2s", func(t *testing.T) { testIngressServed(t, k) })
	t.Run("ScaleWithoutReloadDeleteInOneRevision", func(t *testing.T) { testScaleAndDelete(t, k) })
	t.Run("BadIngressesWarnOthersServe", func(t *testing.T) { testBadIngresses(t, k) })
	t.Run("RESTEditOfKubernetesBackendIs409", func(t *testing.T) { testRESTEditConflict(t, k) })
	t.Run("CanaryWeightMovesArePushed", func(t *testing.T) { testCanaryWeightPushed(t, k) })
	t.Run("AutomaticRollbackHoldsAgainstNextSync", func(t *testing.T) { testAutomaticRollbackHolds(t, k) })
	t.Run("FailingPodsAreNotRolledBack", func(t *testing.T) { testFailingPodsAreNotRolledBack(t, k) })
}

// testIngressServed: a Service, its EndpointSlice and an Ingress of restyplane's class
// are answered through the proxy by the upstream within 2 s of the Ingress's creation.
func testIngressServed(t *testing.T, k *kube) {
	ki := k.serve(t)
	a := k.ns.upstream(t, "a")
	ki.service("web", a)
	host := ki.host("shop")
	// A settled restyplane: its first apply (a reload) is done and the minimum interval
	// between reloads (1 s by default) has passed, so the Ingress's reload is not spaced.
	ki.waitSynced()
	time.Sleep(time.Second)
	created := time.Now()
	k.c.Create(t, kubetest.Ingress(ki.ns, "shop", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	took := ki.servedBy(host, "a", created, 2*time.Second)
	t.Logf("Ingress created to its first request answered by the upstream at %s:%d: %v", a.addr, upstreamPort, took)

	if e := ki.event("shop", "Applied"); e.Type != corev1.EventTypeNormal {
		t.Fatalf("Applied event type = %q, want Normal", e.Type)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ing, err := k.c.Client.NetworkingV1().Ingresses(ki.ns).Get(context.Background(), "shop", metav1.GetOptions{})
		if err == nil && len(ing.Status.LoadBalancer.Ingress) == 1 && ing.Status.LoadBalancer.Ingress[0].IP == "127.0.0.1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status.loadBalancer of the Ingress not set to 127.0.0.1 within 5s (err %v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// The reconciler's figures are on /metrics: this replica leads, its syncs wrote the
	// head, and every Event was posted.
	want := map[string]float64{"restyplane_kubernetes_leader": 1, "restyplane_kubernetes_last_written_revision": float64(ki.head()),
		"restyplane_kubernetes_events_dropped_total": 0}
	var got map[string]float64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got = ki.metrics(t)
		same := true
		for name, v := range want {
			if g, ok := got[name]; !ok || g != v {
				same = false
			}
		}
		if same && got["restyplane_kubernetes_syncs_total"] >= got["restyplane_kubernetes_sync_writes_total"] && got["restyplane_kubernetes_sync_writes_total"] >= 1 {
			break
		}
		if time.Now().After(deadline) {
			ours := map[string]float64{}
			for name, v := range got {
				if strings.HasPrefix(name, "restyplane_kubernetes_") {
					ours[name] = v
				}
			}
			t.Fatalf("the reconciler's metrics = %v, want %v and at least one sync that wrote", ours, want)
		}
	}
}

// metrics reads the instance's /metrics: each sample without labels by its name.
func (in *instance) metrics(t *testing.T) map[string]float64 {
	t.Helper()
	resp, err := http.Get(in.API + "/metrics")
	if err != nil {
		t.Fatalf("get /metrics: %v", err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	return out
}

// testScaleAndDelete: EndpointSlice changes move traffic without a reload (the nginx
// master and workers keep their pids), and deleting the Ingress removes its server and
// backend in one revision.
func testScaleAndDelete(t *testing.T, k *kube) {
	ki := k.serve(t)
	a, b, c := k.ns.upstream(t, "a"), k.ns.upstream(t, "b"), k.ns.upstream(t, "c")
	ki.service("web", a)
	host := ki.host("shop")
	k.c.Create(t, kubetest.Ingress(ki.ns, "shop", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(host, "a", time.Now(), 5*time.Second)
	ki.waitSynced()
	master, workers := ki.nginxPids()
	if master == 0 || len(workers) == 0 {
		t.Fatalf("nginx pids: master %d workers %v; want a running nginx", master, workers)
	}

	// Scale up: both endpoints get traffic.
	ki.setEndpoints("web", a, b)
	seen := map[string]int{}
	deadline := time.Now().Add(5 * time.Second)
	for (seen["a"] == 0 || seen["b"] == 0) && time.Now().Before(deadline) {
		code, body := ki.get(host, "/")
		if code == 200 {
			name, _, _ := strings.Cut(body, " ")
			seen[name]++
		}
		time.Sleep(2 * time.Millisecond)
	}
	if seen["a"] == 0 || seen["b"] == 0 {
		t.Fatalf("answers after scaling to a and b: %v; want both", seen)
	}
	t.Logf("after scaling to two endpoints, answers so far: %v", seen)

	// Move to another endpoint: every request goes there.
	moved := time.Now()
	ki.setEndpoints("web", c)
	took := ki.servedBy(host, "c", moved, 5*time.Second)
	t.Logf("EndpointSlice switched to %s to its first answer: %v", c.addr, took)
	for i := 0; i < 20; i++ {
		ki.wantFrom(host, "/", "c")
	}
	st := ki.waitSynced()
	if mode := st["lastApply"].(map[string]any)["mode"]; mode != "dynamic" {
		t.Fatalf("EndpointSlice change applied as %v, want dynamic", mode)
	}
	if m, w := ki.nginxPids(); m != master || fmt.Sprint(w) != fmt.Sprint(workers) {
		t.Fatalf("pids after the EndpointSlice changes: master %d workers %v, want %d %v (no reload)", m, w, master, workers)
	}

	// Delete the Ingress: one revision removes its server and backend.
	before := ki.head()
	if err := k.c.Client.NetworkingV1().Ingresses(ki.ns).Delete(context.Background(), "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete Ingress: %v", err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		code, _ := ki.get(host, "/")
		if code == 404 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s after deleting its Ingress = %d, want 404", host, code)
		}
		time.Sleep(5 * time.Millisecond)
	}
	ki.waitSynced()
	time.Sleep(500 * time.Millisecond) // a second revision, if there were one, would be written by now
	if got, want := ki.head(), before+1; got != want {
		t.Fatalf("head after deleting the Ingress = %d, want %d (one revision)", got, want)
	}
	var rev struct {
		Actor   string `json:"actor"`
		Message string `json:"message"`
		Changes []struct{ Kind, Name, Op string }
	}
	if code := ki.call("GET", fmt.Sprintf("/api/v1/revisions/%d", before+1), nil, &rev); code != 200 {
		t.Fatalf("GET revision %d = %d", before+1, code)
	}
	got := make([]string, len(rev.Changes))
	for i, c := range rev.Changes {
		got[i] = c.Op + " " + c.Kind + " " + c.Name
	}
	want := []string{"delete backend " + ki.backendName("web", 80), "delete server k8s." + host}
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("changes of revision %d = %v, want %v", before+1, got, want)
	}
	if rev.Actor != "kubernetes" || !strings.Contains(rev.Message, "Ingress "+ki.ns+"/shop") {
		t.Fatalf("revision %d: actor %q message %q; want kubernetes naming Ingress %s/shop", before+1, rev.Actor, rev.Message, ki.ns)
	}
	t.Logf("revision %d: %s", before+1, rev.Message)
}

// testBadIngresses: an Ingress with a bad annotation value and one with a snippet get
// Warning Events and are not routed; the Ingress that served before keeps serving, and one
// created after them is served too.
func testBadIngresses(t *testing.T, k *kube) {
	ki := k.serve(t)
	a := k.ns.upstream(t, "a")
	ki.service("web", a)
	good, bad, snippet, later := ki.host("good"), ki.host("bad"), ki.host("snippet"), ki.host("later")
	k.c.Create(t, kubetest.Ingress(ki.ns, "good", ingressClass, kubetest.Path{Host: good, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(good, "a", time.Now(), 5*time.Second)
	// One answer of the new config is no proof that the next one will be: workers of the
	// previous generation answer until the reload is confirmed.
	ki.waitSynced()

	badIng := kubetest.Ingress(ki.ns, "bad", ingressClass, kubetest.Path{Host: bad, Path: "/", Service: "web", Port: 80})
	badIng.Annotations = map[string]string{"nginx.ingress.kubernetes.io/proxy-read-timeout": "soon"}
	snippetIng := kubetest.Ingress(ki.ns, "snippet", ingressClass, kubetest.Path{Host: snippet, Path: "/", Service: "web", Port: 80})
	snippetIng.Annotations = map[string]string{"nginx.ingress.kubernetes.io/configuration-snippet": "content_by_lua_block { ngx.say('owned') }"}
	k.c.Create(t, badIng, snippetIng)

	e := ki.event("bad", "Skipped")
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "proxy-read-timeout") {
		t.Fatalf("event on the bad Ingress: %s %q; want a Warning naming proxy-read-timeout", e.Type, e.Message)
	}
	e = ki.event("snippet", "RefusedSnippet")
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "configuration-snippet") {
		t.Fatalf("event on the snippet Ingress: %s %q; want a Warning naming configuration-snippet", e.Type, e.Message)
	}
	t.Logf("Warning events: bad: %q; snippet: %q", ki.event("bad", "Skipped").Message, e.Message)

	ki.waitSynced()
	ki.wantFrom(good, "/", "a")
	created := time.Now()
	k.c.Create(t, kubetest.Ingress(ki.ns, "later", ingressClass, kubetest.Path{Host: later, Path: "/", Service: "web", Port: 80}))
	// Up to a second of this is the minimum interval since the reload for "good".
	took := ki.servedBy(later, "a", created, 5*time.Second)
	t.Logf("an Ingress created after the refused ones served after %v", took)
	ki.waitSynced()
	for _, h := range []string{bad, snippet} {
		if code, body := ki.get(h, "/"); code != 503 {
			t.Fatalf("GET %s (refused Ingress) = %d %q, want 503: its paths held, failing closed", h, code, body)
		}
	}
	ki.wantFrom(good, "/", "a")
}

// testRESTEditConflict: the HTTP API refuses to edit or delete a kubernetes-owned backend
// with a 409 that says which cluster object to edit, and nothing changes.
func testRESTEditConflict(t *testing.T, k *kube) {
	ki := k.serve(t)
	a, b := k.ns.upstream(t, "a"), k.ns.upstream(t, "b")
	ki.service("web", a)
	host := ki.host("shop")
	k.c.Create(t, kubetest.Ingress(ki.ns, "shop", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(host, "a", time.Now(), 5*time.Second)
	ki.waitSynced()

	name := ki.backendName("web", 80)
	var be struct {
		Source struct{ Kind, Namespace, Name string } `json:"source"`
	}
	if code := ki.call("GET", "/api/v1/backends/"+name, nil, &be); code != 200 {
		t.Fatalf("GET /api/v1/backends/%s = %d", name, code)
	}
	if got, want := fmt.Sprint(be.Source), fmt.Sprint(struct{ Kind, Namespace, Name string }{"kubernetes", ki.ns, "web"}); got != want {
		t.Fatalf("backend source = %s, want %s", got, want)
	}
	head := ki.head()
	ep := map[string]any{"address": b.addr, "port": upstreamPort, "weight": 1}
	for _, req := range []struct {
		method, path string
		body         any
	}{
		{"PUT", "/api/v1/backends/" + name + "/endpoints", map[string]any{"endpoints": []any{ep}}},
		{"PUT", "/api/v1/backends/" + name, map[string]any{"name": name, "endpoints": []any{ep}}},
		{"DELETE", "/api/v1/backends/" + name, nil},
	} {
		var out struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		code := ki.call(req.method, req.path, req.body, &out)
		t.Logf("%s %s = %d: %s", req.method, req.path, code, out.Error.Message)
		if code != 409 || out.Error.Code != "conflict" {
			t.Errorf("%s %s = %d %+v, want 409 conflict", req.method, req.path, code, out.Error)
		} else if !strings.Contains(out.Error.Message, "edit the Kubernetes object") || !strings.Contains(out.Error.Message, ki.ns+"/web") {
			t.Errorf("%s %s: message %q does not say to edit %s/web in the cluster", req.method, req.path, out.Error.Message, ki.ns)
		}
	}
	if got := ki.head(); got != head {
		t.Fatalf("head after refused edits = %d, want %d", got, head)
	}
	ki.wantFrom(host, "/", "a")
}
