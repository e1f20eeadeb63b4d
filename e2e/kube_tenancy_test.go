package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesTenancy runs the attacks of one namespace on another against a
// real API server, restyplane and nginx: each subtest is one attack, and each asserts that
// the victim keeps its traffic and the attacker's Ingress is refused and reported.
func TestKubernetesTenancy(t *testing.T) {
	k := newKube(t)
	t.Run("HeldHostRefusedOnCreate", func(t *testing.T) { testHeldHostOnCreate(t, k) })
	t.Run("HeldHostRefusedAfterEditOfOldIngress", func(t *testing.T) { testHeldHostAfterEdit(t, k) })
	t.Run("NameUnderWildcardRefused", func(t *testing.T) { testNameUnderWildcard(t, k) })
	t.Run("ForeignTLSHostRefused", func(t *testing.T) { testForeignTLSHost(t, k) })
	t.Run("SecurityAnnotationsRefused", func(t *testing.T) { testSecurityAnnotations(t, k) })
	t.Run("HarmlessAnnotationIgnored", func(t *testing.T) { testHarmlessAnnotation(t, k) })
	t.Run("TooManyPathsRefusedAlone", func(t *testing.T) { testTooManyPaths(t, k) })
	t.Run("ExternalNameRefusedByDefault", func(t *testing.T) { testExternalNameRefused(t, k) })
	t.Run("UnresolvableExternalNameBlocksNothing", func(t *testing.T) { testUnresolvableExternalName(t, k) })
}

// otherNamespace creates a second namespace for a test, the attacker's, and deletes its
// Ingresses when the test ends.
func (ki *kubeInstance) otherNamespace(suffix string) string {
	ki.t.Helper()
	ns := ki.k.c.Namespace(ki.t, ki.ns+"-"+suffix)
	ki.t.Cleanup(func() {
		_ = ki.k.c.Client.NetworkingV1().Ingresses(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	})
	return ns
}

// testHeldHostOnCreate: namespace b's Ingress adds /login beside the / that namespace a
// routes on a's host. It is refused with a Warning Event, and /login stays a's.
func testHeldHostOnCreate(t *testing.T, k *kube) {
	ki := k.serve(t)
	a, b := k.ns.upstream(t, "a"), k.ns.upstream(t, "b")
	ki.service("web", a)
	host := ki.host("victim")
	k.c.Create(t, kubetest.Ingress(ki.ns, "victim", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(host, "a", time.Now(), 30*time.Second)

	other := ki.otherNamespace("b")
	k.c.Create(t, kubetest.Service(other, "evil", 80), kubetest.EndpointSlice(other, "evil", "evil-1", upstreamPort, ready([]*nsUpstream{b})...))
	k.c.Create(t, kubetest.Ingress(other, "thief", ingressClass,
		kubetest.Path{Host: host, Path: "/login", Service: "evil", Port: 80},
		kubetest.Path{Host: host, Path: "/x", Type: networkingv1.PathTypeExact, Service: "evil", Port: 80}))
	e := ki.eventIn(other, "thief", "HostClaimed")
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, host) || !strings.Contains(e.Message, ki.ns) {
		t.Fatalf("event on the thief: %s %q; want a Warning naming %s and its holder %s", e.Type, e.Message, host, ki.ns)
	}
	ki.waitSynced()
	for _, p := range []string{"/login", "/x", "/"} {
		ki.wantFrom(host, p, "a")
	}
}

// testNameUnderWildcard: namespace a routes *.<domain>; namespace b's Ingress for
// api.<domain> would take that name out of a's wildcard behind a's back (nginx prefers the
// exact name). It is refused with a Warning Event naming the wildcard and its holder, and
// api.<domain> stays a's.
func testNameUnderWildcard(t *testing.T, k *kube) {
	ki := k.serve(t)
	a, b := k.ns.upstream(t, "a"), k.ns.upstream(t, "b")
	ki.service("web", a)
	domain := ki.ns + ".test"
	k.c.Create(t, kubetest.Ingress(ki.ns, "wild", ingressClass, kubetest.Path{Host: "*." + domain, Path: "/", Service: "web", Port: 80}))
	ki.servedBy("api."+domain, "a", time.Now(), 30*time.Second)

	other := ki.otherNamespace("b")
	k.c.Create(t, kubetest.Service(other, "evil", 80), kubetest.EndpointSlice(other, "evil", "evil-1", upstreamPort, ready([]*nsUpstream{b})...))
	k.c.Create(t, kubetest.Ingress(other, "taker", ingressClass, kubetest.Path{Host: "api." + domain, Path: "/", Service: "evil", Port: 80}))
	e := ki.eventIn(other, "taker", "HostClaimed")
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "*."+domain) || !strings.Contains(e.Message, ki.ns) {
		t.Fatalf("event on the taker: %s %q; want a Warning naming *.%s and its holder %s", e.Type, e.Message, domain, ki.ns)
	}
	ki.waitSynced()
	ki.wantFrom("api."+domain, "/", "a")
}

// testHeldHostAfterEdit: namespace b's Ingress is older than a's, and b edits it to add
// a's host at /. The edit keeps the Ingress's age, which used to win the host; the host
// is a's from its first claim, so the edited Ingress is refused and a keeps its traffic.
func testHeldHostAfterEdit(t *testing.T, k *kube) {
	ki := k.serve(t)
	a, b := k.ns.upstream(t, "a"), k.ns.upstream(t, "b")
	other := ki.otherNamespace("b")
	ki.service("web", a)
	k.c.Create(t, kubetest.Service(other, "evil", 80), kubetest.EndpointSlice(other, "evil", "evil-1", upstreamPort, ready([]*nsUpstream{b})...))
	own, host := ki.host("own"), ki.host("victim")
	k.c.Create(t, kubetest.Ingress(other, "old", ingressClass, kubetest.Path{Host: own, Path: "/", Service: "evil", Port: 80}))
	ki.servedBy(own, "b", time.Now(), 30*time.Second)
	time.Sleep(1100 * time.Millisecond) // creationTimestamp has a resolution of one second: a's is younger
	k.c.Create(t, kubetest.Ingress(ki.ns, "victim", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(host, "a", time.Now(), 30*time.Second)

	ings := k.c.Client.NetworkingV1().Ingresses(other)
	old, err := ings.Get(context.Background(), "old", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the old Ingress: %v", err)
	}
	edit := kubetest.Ingress(other, "old", ingressClass, kubetest.Path{Host: own, Path: "/", Service: "evil", Port: 80},
		kubetest.Path{Host: host, Path: "/", Service: "evil", Port: 80})
	old.Spec = edit.Spec
	if _, err := ings.Update(context.Background(), old, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("edit the old Ingress: %v", err)
	}
	e := ki.eventIn(other, "old", "HostClaimed")
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, host) {
		t.Fatalf("event on the edited Ingress: %s %q; want a Warning naming %s", e.Type, e.Message, host)
	}
	ki.waitSynced()
	for i := 0; i < 10; i++ {
		ki.wantFrom(host, "/", "a")
	}
	// The host the edited Ingress held before is not taken from it either.
	if code, body := ki.get(own, "/"); code != 404 && !(code == 200 && strings.HasPrefix(body, "b ")) {
		t.Fatalf("GET %s = %d %q, want b's answer or 404 (its Ingress refused whole)", own, code, body)
	}
}

// testForeignTLSHost: namespace b's Ingress lists a's host in tls.hosts, with a
// certificate for it; that used to give a's host b's certificate and an HTTPS redirect. The
// entry is refused and reported, and a's host keeps answering plain HTTP.
func testForeignTLSHost(t *testing.T, k *kube) {
	ki := k.serve(t)
	a, b := k.ns.upstream(t, "a"), k.ns.upstream(t, "b")
	ki.service("web", a)
	host := ki.host("victim")
	k.c.Create(t, kubetest.Ingress(ki.ns, "victim", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(host, "a", time.Now(), 30*time.Second)

	other := ki.otherNamespace("b")
	own := ki.host("own")
	crt, key := kubetest.SelfSigned(t, own, host)
	k.c.Create(t, kubetest.Service(other, "evil", 80), kubetest.EndpointSlice(other, "evil", "evil-1", upstreamPort, ready([]*nsUpstream{b})...),
		kubetest.TLSSecret(other, "tls", crt, key))
	ing := kubetest.Ingress(other, "thief", ingressClass, kubetest.Path{Host: own, Path: "/", Service: "evil", Port: 80})
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: "tls"}}
	k.c.Create(t, ing)
	e := ki.eventIn(other, "thief", "TLSRefused")
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, host) {
		t.Fatalf("event on the thief: %s %q; want a Warning naming %s", e.Type, e.Message, host)
	}
	ki.servedBy(own, "b", time.Now(), 30*time.Second)
	ki.waitSynced()
	ki.wantFrom(host, "/", "a")
}

// verdicts returns GET /api/v1/kubernetes/ingresses (with the query) by "namespace/name".
func (ki *kubeInstance) verdicts(query string) map[string]ingressVerdict {
	ki.t.Helper()
	var out struct {
		Ingresses []ingressVerdict `json:"ingresses"`
	}
	if code := ki.call("GET", "/api/v1/kubernetes/ingresses"+query, nil, &out); code != 200 {
		ki.t.Fatalf("GET /api/v1/kubernetes/ingresses%s = %d", query, code)
	}
	m := map[string]ingressVerdict{}
	for _, v := range out.Ingresses {
		m[v.Namespace+"/"+v.Name] = v
	}
	return m
}

type ingressVerdict struct {
	Namespace, Name, Class, Verdict string
	Problems                        []struct{ Reason, Message string }
	Annotations                     []struct{ Name, Value, Verdict, Why string }
}

func (v ingressVerdict) annotation(name string) (verdict, why string) {
	for _, a := range v.Annotations {
		if a.Name == name {
			return a.Verdict, a.Why
		}
	}
	return "", ""
}

// testSecurityAnnotations: each ingress-nginx annotation that restricts access or protects
// traffic, which restyplane does not implement, refuses its Ingress with a Warning Event
// naming it, leaves its host unrouted, and is reported refused by the API.
func testSecurityAnnotations(t *testing.T, k *kube) {
	ki := k.serve(t)
	a := k.ns.upstream(t, "a")
	ki.service("web", a)
	cases := []struct{ name, annotation, value string }{
		// auth-url, auth-type and auth-secret are honoured.
		{"auth-cache-key", "auth-cache-key", "$remote_user"},
		{"auth-keepalive", "auth-keepalive", "10"},
		{"auth-signin-redirect-param", "auth-signin-redirect-param", "next"},
		// Access lists and limits are honoured; these are not.
		{"satisfy", "satisfy", "any"},
		{"global-rate-limit", "global-rate-limit", "5"},
		{"auth-tls-match-cn", "auth-tls-match-cn", "CN=alice"},
		// backend-protocol HTTPS and GRPC are honoured; AJP is not.
		{"backend-ajp", "backend-protocol", "AJP"},
	}
	for _, c := range cases {
		ing := kubetest.Ingress(ki.ns, c.name, ingressClass, kubetest.Path{Host: ki.host(c.name), Path: "/", Service: "web", Port: 80})
		ing.Annotations = map[string]string{"nginx.ingress.kubernetes.io/" + c.annotation: c.value}
		k.c.Create(t, ing)
	}
	control := ki.host("control")
	k.c.Create(t, kubetest.Ingress(ki.ns, "control", ingressClass, kubetest.Path{Host: control, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(control, "a", time.Now(), 30*time.Second)
	for _, c := range cases {
		full := "nginx.ingress.kubernetes.io/" + c.annotation
		e := ki.event(c.name, "RefusedAnnotation")
		if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, full) {
			t.Errorf("event on %s: %s %q; want a Warning naming %s", c.name, e.Type, e.Message, full)
		}
	}
	ki.waitSynced()
	vs := ki.verdicts("")
	for _, c := range cases {
		if code, body := ki.get(ki.host(c.name), "/"); code != 404 {
			t.Errorf("GET %s (Ingress with %s) = %d %q, want 404", ki.host(c.name), c.annotation, code, body)
		}
		v := vs[ki.ns+"/"+c.name]
		verdict, why := v.annotation("nginx.ingress.kubernetes.io/" + c.annotation)
		if v.Verdict != "refused" || verdict != "refused" || why == "" {
			t.Errorf("verdict of %s: %q, annotation %s %q (%q); want refused with why", c.name, v.Verdict, c.annotation, verdict, why)
		}
	}
	if v := vs[ki.ns+"/control"]; v.Verdict != "served" {
		t.Errorf("verdict of control = %+v, want served", v)
	}
}

// testHarmlessAnnotation: an annotation restyplane does not implement and that protects
// nothing is served and reported as ignored, by an Event and by the API, also for an
// Ingress of another class (a team checking before it switches).
func testHarmlessAnnotation(t *testing.T, k *kube) {
	ki := k.serve(t)
	a := k.ns.upstream(t, "a")
	ki.service("web", a)
	host := ki.host("upload")
	// proxy-body-size is honoured; InfluxDB metrics are not sent.
	const name = "nginx.ingress.kubernetes.io/enable-influxdb"
	ing := kubetest.Ingress(ki.ns, "upload", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80})
	ing.Annotations = map[string]string{name: "true", "nginx.ingress.kubernetes.io/load-balance": "ewma"}
	theirs := kubetest.Ingress(ki.ns, "theirs", "nginx", kubetest.Path{Host: ki.host("theirs"), Path: "/", Service: "web", Port: 80})
	theirs.Annotations = map[string]string{"nginx.ingress.kubernetes.io/auth-cache-key": "$remote_user", name: "false"}
	k.c.Create(t, ing, theirs)
	ki.servedBy(host, "a", time.Now(), 30*time.Second)
	if e := ki.event("upload", "IgnoredAnnotation"); e.Type != corev1.EventTypeNormal || !strings.Contains(e.Message, name) {
		t.Fatalf("event on upload: %s %q; want Normal naming %s", e.Type, e.Message, name)
	}
	v := ki.verdicts("")[ki.ns+"/upload"]
	if got, _ := v.annotation(name); v.Verdict != "served" || got != "ignored" {
		t.Fatalf("verdict = %+v; want served with %s ignored", v, name)
	}
	if got, _ := v.annotation("nginx.ingress.kubernetes.io/load-balance"); got != "honoured" {
		t.Fatalf("load-balance verdict = %q, want honoured", got)
	}
	if _, ok := ki.verdicts("")[ki.ns+"/theirs"]; ok {
		t.Fatalf("an Ingress of another class is listed without ?class=any")
	}
	th, ok := ki.verdicts("?class=any")[ki.ns+"/theirs"]
	if !ok {
		t.Fatalf("?class=any does not list the Ingress of class nginx")
	}
	if got, _ := th.annotation("nginx.ingress.kubernetes.io/auth-cache-key"); th.Verdict != "refused" || got != "refused" || th.Class != "nginx" {
		t.Fatalf("verdict of the nginx-class Ingress = %+v; want refused for auth-cache-key", th)
	}
	if code, _ := ki.get(ki.host("theirs"), "/"); code != 404 {
		t.Fatalf("an Ingress of another class is served (%d)", code)
	}
}

// testTooManyPaths: an Ingress with 201 paths on a host that another Ingress serves is
// refused alone, and the host keeps serving the other's path.
func testTooManyPaths(t *testing.T, k *kube) {
	ki := k.serve(t)
	a := k.ns.upstream(t, "a")
	ki.service("web", a)
	host := ki.host("shop")
	k.c.Create(t, kubetest.Ingress(ki.ns, "shop", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(host, "a", time.Now(), 30*time.Second)
	var paths []kubetest.Path
	for i := 0; i < 201; i++ {
		paths = append(paths, kubetest.Path{Host: host, Path: fmt.Sprintf("/p%d", i), Service: "web", Port: 80})
	}
	k.c.Create(t, kubetest.Ingress(ki.ns, "big", ingressClass, paths...))
	if e := ki.event("big", "LimitExceeded"); e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "201") {
		t.Fatalf("event on big: %s %q; want a Warning that counts 201 paths", e.Type, e.Message)
	}
	ki.waitSynced()
	ki.wantFrom(host, "/", "a")
	if v := ki.verdicts("")[ki.ns+"/big"]; v.Verdict != "refused" {
		t.Fatalf("verdict of big = %+v, want refused", v)
	}
}

// externalName returns an ExternalName Service of one port (80).
func externalName(ns, name, target string) *corev1.Service {
	svc := kubetest.Service(ns, name, 80)
	svc.Spec.Type = corev1.ServiceTypeExternalName
	svc.Spec.ExternalName = target
	return svc
}

// testExternalNameRefused: without --allow-external-name an Ingress routing to an
// ExternalName Service (here localhost: the control plane's own machine) is refused and
// reported, and the other Ingresses apply.
func testExternalNameRefused(t *testing.T, k *kube) {
	ki := k.serve(t)
	a := k.ns.upstream(t, "a")
	ki.service("web", a)
	k.c.Create(t, externalName(ki.ns, "ext", "localhost"),
		kubetest.Ingress(ki.ns, "ext", ingressClass, kubetest.Path{Host: ki.host("ext"), Path: "/", Service: "ext", Port: 80}),
		kubetest.Ingress(ki.ns, "shop", ingressClass, kubetest.Path{Host: ki.host("shop"), Path: "/", Service: "web", Port: 80}))
	if e := ki.event("ext", "RefusedExternalName"); e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "allow-external-name") {
		t.Fatalf("event on ext: %s %q; want a Warning that names --allow-external-name", e.Type, e.Message)
	}
	ki.servedBy(ki.host("shop"), "a", time.Now(), 30*time.Second)
	ki.waitSynced()
	if code, body := ki.get(ki.host("ext"), "/"); code != 404 {
		t.Fatalf("GET the ExternalName Ingress's host = %d %q, want 404", code, body)
	}
}

// testUnresolvableExternalName: with --allow-external-name, an ExternalName that does not
// resolve must not stop the rest: an Ingress created after it is served, and a later
// EndpointSlice change is live. An ExternalName of localhost is still refused. (The first
// part needs the applier to skip the one backend it cannot resolve.)
func testUnresolvableExternalName(t *testing.T, k *kube) {
	ki := k.serveWith(t, "--allow-external-name")
	a, b := k.ns.upstream(t, "a"), k.ns.upstream(t, "b")
	ki.service("web", a)
	shop := ki.host("shop")
	k.c.Create(t, kubetest.Ingress(ki.ns, "shop", ingressClass, kubetest.Path{Host: shop, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(shop, "a", time.Now(), 30*time.Second)

	k.c.Create(t, externalName(ki.ns, "local", "localhost"),
		kubetest.Ingress(ki.ns, "local", ingressClass, kubetest.Path{Host: ki.host("local"), Path: "/", Service: "local", Port: 80}))
	if e := ki.event("local", "RefusedExternalName"); !strings.Contains(e.Message, "localhost") {
		t.Fatalf("event on local: %q; want it to name localhost", e.Message)
	}
	k.c.Create(t, externalName(ki.ns, "gone", "does-not-exist.invalid"),
		kubetest.Ingress(ki.ns, "gone", ingressClass, kubetest.Path{Host: ki.host("gone"), Path: "/", Service: "gone", Port: 80}))
	ki.event("gone", "Applied")
	later := ki.host("later")
	k.c.Create(t, kubetest.Ingress(ki.ns, "later", ingressClass, kubetest.Path{Host: later, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(later, "a", time.Now(), 30*time.Second)
	ki.setEndpoints("web", b)
	ki.servedBy(shop, "b", time.Now(), 30*time.Second)
}
