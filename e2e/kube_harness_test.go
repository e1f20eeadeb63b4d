package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// ingressClass is the IngressClass the Kubernetes tests' Ingresses name; its controller is
// the one restyplane answers to by default.
const ingressClass = "restyplane"

// kube is a real kube-apiserver and etcd, a kubeconfig for them, and a network namespace
// for the upstreams their EndpointSlices list.
type kube struct {
	c          *kubetest.Cluster
	kubeconfig string
	ns         *netns
}

// newKube starts the cluster and the namespace for one test (and its subtests), and stops
// them when it ends.
func newKube(t testing.TB) *kube {
	t.Helper()
	k := &kube{ns: newNetns(t), c: kubetest.StartT(t)}
	k.kubeconfig = k.c.Kubeconfig(t)
	k.c.Create(t, kubetest.IngressClass(ingressClass, reconciler.DefaultController, false))
	return k
}

// kubeInstance is one test's restyplane, reconciling from the cluster, with the namespace
// it keeps its objects and its Lease in.
type kubeInstance struct {
	*instance
	k  *kube
	ns string
}

// serve starts restyplane with the reconciler for a test, in a namespace named after the
// test, and waits until it holds its Lease. Its Ingresses are deleted when the test ends,
// so that the next test's restyplane (which answers to the same class) starts clean.
func (k *kube) serve(t *testing.T) *kubeInstance {
	t.Helper()
	return k.serveWith(t)
}

// serveWith is serve with more flags for restyplane serve.
func (k *kube) serveWith(t *testing.T, extra ...string) *kubeInstance {
	t.Helper()
	ns := k.testNamespace(t)
	in := start(t, append(k.reconcilerArgs(ns), extra...)...)
	ki := &kubeInstance{instance: in, k: k, ns: ns}
	ki.waitLeader()
	return ki
}

// testNamespace creates a namespace named after the test, whose Ingresses are deleted when
// the test ends.
func (k *kube) testNamespace(t *testing.T) string {
	t.Helper()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	ns := k.c.Namespace(t, strings.TrimRight(name, "-"))
	t.Cleanup(func() {
		err := k.c.Client.NetworkingV1().Ingresses(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
		if err != nil {
			t.Errorf("delete the Ingresses of %s: %v", ns, err)
		}
	})
	return ns
}

// reconcilerArgs are the flags of restyplane serve that reconcile from the cluster, with
// its Lease in namespace ns.
func (k *kube) reconcilerArgs(ns string) []string {
	return []string{"--kubeconfig", k.kubeconfig, "--lease-namespace", ns, "--lease-identity", "e2e",
		"--ingress-status-address", "127.0.0.1"}
}

// waitLeader waits until the reconciler holds its Lease: from then on it watches the
// cluster, and what a test creates is a change it sees, not part of its start.
func (ki *kubeInstance) waitLeader() {
	ki.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l, err := ki.k.c.Client.CoordinationV1().Leases(ki.ns).Get(context.Background(), "restyplane-reconciler", metav1.GetOptions{})
		if err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity == "e2e" {
			return
		}
		if time.Now().After(deadline) {
			ki.t.Fatalf("the reconciler did not take its Lease in %s within 20s (last error: %v)", ki.ns, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// backendName is the backend the reconciler makes of a Service port.
func (ki *kubeInstance) backendName(service string, port int) string {
	return "k8s." + ki.ns + "." + service + "." + strconv.Itoa(port)
}

// host is a host name unique to the test.
func (ki *kubeInstance) host(name string) string { return name + "." + ki.ns + ".test" }

// service creates a Service of one port (80) and its EndpointSlice listing the upstreams,
// all on upstreamPort.
func (ki *kubeInstance) service(name string, ups ...*nsUpstream) {
	ki.t.Helper()
	ki.k.c.Create(ki.t, kubetest.Service(ki.ns, name, 80), kubetest.EndpointSlice(ki.ns, name, name+"-1", upstreamPort, ready(ups)...))
}

// setEndpoints replaces the endpoints of the Service's EndpointSlice with the upstreams.
func (ki *kubeInstance) setEndpoints(service string, ups ...*nsUpstream) {
	ki.t.Helper()
	updateSlice(ki.t, ki.k.c, ki.ns, service+"-1", ups)
}

func updateSlice(t testing.TB, c *kubetest.Cluster, ns, name string, ups []*nsUpstream) {
	t.Helper()
	slices := c.Client.DiscoveryV1().EndpointSlices(ns)
	s, err := slices.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get EndpointSlice %s/%s: %v", ns, name, err)
	}
	s.Endpoints = endpointsOf(ups)
	if _, err := slices.Update(context.Background(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update EndpointSlice %s/%s: %v", ns, name, err)
	}
}

func ready(ups []*nsUpstream) []kubetest.Endpoint {
	addrs := make([]string, len(ups))
	for i, u := range ups {
		addrs[i] = u.addr
	}
	return kubetest.Ready(addrs...)
}

func endpointsOf(ups []*nsUpstream) []discoveryv1.Endpoint {
	return kubetest.EndpointSlice("", "", "", upstreamPort, ready(ups)...).Endpoints
}

// servedBy waits until a request through the proxy for host answers 200 from the upstream
// named want, and returns how long that took from since.
func (ki *kubeInstance) servedBy(host, want string, since time.Time, timeout time.Duration) time.Duration {
	ki.t.Helper()
	deadline := time.Now().Add(timeout)
	var code int
	var body string
	for time.Now().Before(deadline) {
		if code, body = ki.get(host, "/"); code == 200 && strings.HasPrefix(body, want+" ") {
			return time.Since(since)
		}
		time.Sleep(5 * time.Millisecond)
	}
	ki.t.Fatalf("GET %s/ through the proxy: %d %q after %v, want 200 from %s", host, code, body, timeout, want)
	return 0
}

// event waits for an Event of the reason on the Ingress and returns it.
func (ki *kubeInstance) event(ingress, reason string) corev1.Event {
	ki.t.Helper()
	return ki.eventIn(ki.ns, ingress, reason)
}

// eventIn waits for an Event of the reason on the Ingress of namespace ns and returns it.
func (ki *kubeInstance) eventIn(ns, ingress, reason string) corev1.Event {
	ki.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, e := range ki.k.c.Events(ki.t, ns, ingress) {
			if e.Reason == reason {
				return e
			}
		}
		if time.Now().After(deadline) {
			ki.t.Fatalf("no %s Event on Ingress %s/%s within 10s; events: %v", reason, ns, ingress, eventReasons(ki.k.c.Events(ki.t, ns, ingress)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func eventReasons(es []corev1.Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Type + " " + e.Reason + ": " + e.Message
	}
	return out
}

// head returns the newest revision's id, from GET /api/v1/revisions.
func (ki *kubeInstance) head() int64 {
	ki.t.Helper()
	var list struct {
		Head int64 `json:"head"`
	}
	if code := ki.call("GET", "/api/v1/revisions?limit=1", nil, &list); code != 200 {
		ki.t.Fatalf("GET /api/v1/revisions = %d", code)
	}
	return list.Head
}
