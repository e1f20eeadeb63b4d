package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesCatchAll: an Ingress rule without a host is served for every Host that no
// other rule names, as the Ingress API defines it, by the proxy's default server, with
// the Ingress's policies; the catch-all belongs to one namespace at a time.
func TestKubernetesCatchAll(t *testing.T) {
	k := newKube(t)
	t.Run("HostlessServedForEveryHost", func(t *testing.T) { testHostlessServed(t, k) })
	t.Run("DefaultBackendServedForEveryHost", func(t *testing.T) { testDefaultBackendServed(t, k) })
	t.Run("HostlessWithBasicAuth", func(t *testing.T) { testHostlessBasicAuth(t, k) })
	t.Run("HostlessWithRewriteAndCanary", func(t *testing.T) { testHostlessRewriteCanary(t, k) })
	t.Run("NamedHostWinsOverCatchAll", func(t *testing.T) { testNamedHostWins(t, k) })
	t.Run("OtherNamespaceRefused", func(t *testing.T) { testCatchAllOtherNamespace(t, k) })
	t.Run("RESTCatchAllNotShared", func(t *testing.T) { testRESTCatchAll(t, k) })
}

// hostless is an Ingress of one rule without a host, with the paths to service's port 80.
func hostless(ns, name, service string, paths ...string) *networkingv1.Ingress {
	var ps []kubetest.Path
	for _, p := range paths {
		ps = append(ps, kubetest.Path{Path: p, Service: service, Port: 80})
	}
	return kubetest.Ingress(ns, name, ingressClass, ps...)
}

// catchAllHosts are Host headers no Ingress of the tests names.
var catchAllHosts = []string{"anything.test", "localhost", "127.0.0.1"}

// testHostlessServed: a host-less Ingress answers from its upstream for any Host, for an
// HTTP/1.0 request without one, and over HTTPS with the default certificate; its verdict
// is served.
func testHostlessServed(t *testing.T, k *kube) {
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "a"))
	k.c.Create(t, hostless(ki.ns, "all", "web", "/"))
	if e := ki.event("all", reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
		t.Fatalf("Ingress all: %s event %q", e.Type, e.Message)
	}
	ki.waitSynced()
	for _, h := range catchAllHosts {
		ki.servedBy(h, "a", time.Now(), 10*time.Second)
		ki.wantFrom(h, "/deep/path", "a")
	}
	if code, body := ki.http10(); code != 200 || body != "a /" {
		t.Fatalf("HTTP/1.0 without Host: %d %q, want 200 from a", code, body)
	}
	for _, sni := range []string{"anything.test", ""} {
		if code, body := ki.getTLS(sni, "anything.test", "/x"); code != 200 || body != "a /x" {
			t.Fatalf("HTTPS (SNI %q): %d %q, want 200 from a", sni, code, body)
		}
	}
	if v := ki.verdicts("")[ki.ns+"/all"]; v.Verdict != "served" {
		t.Fatalf("verdict of the host-less Ingress: %+v, want served", v)
	}
}

// testDefaultBackendServed: an Ingress with only spec.defaultBackend is the catch-all too.
func testDefaultBackendServed(t *testing.T, k *kube) {
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "a"))
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ki.ns, Name: "fallback"}}
	class := ingressClass
	ing.Spec.IngressClassName = &class
	b := kubetest.ServiceBackend("web", 80)
	ing.Spec.DefaultBackend = &b
	k.c.Create(t, ing)
	ki.event("fallback", reconciler.ReasonApplied)
	ki.waitSynced()
	for _, h := range catchAllHosts {
		ki.servedBy(h, "a", time.Now(), 10*time.Second)
	}
	if code, body := ki.http10(); code != 200 || body != "a /" {
		t.Fatalf("HTTP/1.0 without Host: %d %q, want 200 from a", code, body)
	}
}

// testHostlessBasicAuth: basic auth on a host-less Ingress asks for the password on every
// Host, and lets the right one through.
func testHostlessBasicAuth(t *testing.T, k *kube) {
	ki := k.serveWith(t, "--openresty-prefix", searchablePrefix(t))
	ki.service("web", k.ns.upstream(t, "a"))
	k.c.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ki.ns, Name: "admins"},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"auth": []byte(htpasswdLines())}})
	ing := hostless(ki.ns, "ui", "web", "/")
	ing.Annotations = map[string]string{nginxAnn + "auth-type": "basic", nginxAnn + "auth-secret": "admins",
		nginxAnn + "auth-realm": "ui"}
	k.c.Create(t, ing)
	ki.event("ui", reconciler.ReasonApplied)
	for _, h := range catchAllHosts {
		ki.waitFor(h, "/", 401)
		resp, body := ki.do(h, "/admin/x")
		if got, want := resp.Header.Get("WWW-Authenticate"), `Basic realm="ui"`; resp.StatusCode != 401 || got != want {
			t.Fatalf("GET %s/admin/x without a password: %d %q, WWW-Authenticate %q; want 401, %q", h, resp.StatusCode, body, got, want)
		}
		resp, body = ki.do(h, "/admin/x", "Authorization", basic("apr", "secret"))
		if resp.StatusCode != 200 || body != "a /admin/x" {
			t.Fatalf("GET %s/admin/x with the password: %d %q, want 200 from a", h, resp.StatusCode, body)
		}
	}
}

// testHostlessRewriteAndCanary: a host-less Ingress's rewrite-target applies on every
// Host, and a host-less canary Ingress takes the requests its header selects.
func testHostlessRewriteCanary(t *testing.T, k *kube) {
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "a"))
	ki.service("canary", k.ns.upstream(t, "b"))
	main := hostless(ki.ns, "app", "web", "/app")
	main.Annotations = map[string]string{nginxAnn + "rewrite-target": "/"}
	canary := hostless(ki.ns, "app-canary", "canary", "/app")
	canary.Annotations = map[string]string{nginxAnn + "rewrite-target": "/", nginxAnn + "canary": "true",
		nginxAnn + "canary-by-header": "X-Canary", nginxAnn + "canary-by-header-value": "yes"}
	k.c.Create(t, main, canary)
	ki.event("app", reconciler.ReasonApplied)
	ki.event("app-canary", reconciler.ReasonApplied)
	ki.waitFor("anything.test", "/app/x", 200)
	for _, h := range catchAllHosts {
		if code, body := ki.get(h, "/app/x"); code != 200 || body != "a /x" {
			t.Fatalf("GET %s/app/x = %d %q, want 200 from a at /x (rewritten)", h, code, body)
		}
		if code, body := ki.get(h, "/app/x", "X-Canary", "yes"); code != 200 || body != "b /x" {
			t.Fatalf("GET %s/app/x with X-Canary: yes = %d %q, want 200 from the canary b at /x", h, code, body)
		}
	}
}

// testNamedHostWins: the catch-all answers only hosts that no server names, over HTTP
// and HTTPS.
func testNamedHostWins(t *testing.T, k *kube) {
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "a"))
	ki.service("named", k.ns.upstream(t, "b"))
	named := ki.host("named")
	k.c.Create(t, hostless(ki.ns, "all", "web", "/"),
		kubetest.Ingress(ki.ns, "named", ingressClass, kubetest.Path{Host: named, Path: "/", Service: "named", Port: 80}))
	ki.event("all", reconciler.ReasonApplied)
	ki.event("named", reconciler.ReasonApplied)
	ki.waitSynced()
	ki.servedBy(named, "b", time.Now(), 10*time.Second)
	for i := 0; i < 5; i++ {
		ki.wantFrom(named, "/x", "b")
		ki.wantFrom("anything.test", "/x", "a")
	}
	// The named host has no TLS: over HTTPS it is not served, and not the catch-all's.
	if code, body := ki.getTLS(named, named, "/x"); code != 404 {
		t.Fatalf("HTTPS for %s (no TLS entry): %d %q, want 404, not the catch-all's answer", named, code, body)
	}
}

// testCatchAllOtherNamespace: the catch-all is held by the first namespace to route it;
// another namespace's host-less Ingress is refused with a Warning Event that says why,
// and the holder keeps every request.
func testCatchAllOtherNamespace(t *testing.T, k *kube) {
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "a"))
	k.c.Create(t, hostless(ki.ns, "all", "web", "/"))
	ki.event("all", reconciler.ReasonApplied)
	ki.servedBy("anything.test", "a", time.Now(), 10*time.Second)

	other := ki.otherNamespace("b")
	b := k.ns.upstream(t, "b")
	k.c.Create(t, kubetest.Service(other, "evil", 80), kubetest.EndpointSlice(other, "evil", "evil-1", upstreamPort, ready([]*nsUpstream{b})...))
	k.c.Create(t, hostless(other, "thief", "evil", "/", "/login"))
	e := ki.eventIn(other, "thief", reconciler.ReasonHostClaimed)
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "catch-all") || !strings.Contains(e.Message, ki.ns) {
		t.Fatalf("event on the thief: %s %q; want a Warning naming the catch-all and its holder %s", e.Type, e.Message, ki.ns)
	}
	if v := ki.verdicts("")[other+"/thief"]; v.Verdict != "refused" {
		t.Fatalf("verdict of the refused Ingress: %+v, want refused", v)
	}
	ki.waitSynced()
	for _, h := range catchAllHosts {
		ki.wantFrom(h, "/", "a")
		ki.wantFrom(h, "/login", "a")
	}
}

// testRESTCatchAll: a REST server asks for the catch-all by naming "_"; while it does, a
// host-less Ingress is refused, and while an Ingress holds it, a REST write naming "_" is
// a 409.
func testRESTCatchAll(t *testing.T, k *kube) {
	ki := k.serve(t)
	up := newUpstream(t, "rest", 200, 0)
	ki.must("POST", "/api/v1/backends", backend("rest", up.endpoint(1)))
	ki.must("POST", "/api/v1/servers", server("all", "_", location("/", "rest")))
	ki.waitSynced()
	ki.wantFrom("anything.test", "/x", "rest")

	ki.service("web", k.ns.upstream(t, "a"))
	k.c.Create(t, hostless(ki.ns, "all", "web", "/"))
	e := ki.event("all", reconciler.ReasonHostClaimed)
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "catch-all") || !strings.Contains(e.Message, "REST API") {
		t.Fatalf("event on the host-less Ingress: %s %q; want a Warning naming the catch-all and the REST API", e.Type, e.Message)
	}
	ki.waitSynced()
	ki.wantFrom("127.0.0.1", "/x", "rest")

	// A REST write does not wake the reconciler: an edit of the Ingress does.
	ki.must("DELETE", "/api/v1/servers/all", nil)
	ings := k.c.Client.NetworkingV1().Ingresses(ki.ns)
	ing, err := ings.Get(context.Background(), "all", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the Ingress: %v", err)
	}
	ing.Annotations = map[string]string{"example.com/edited": "yes"}
	if _, err := ings.Update(context.Background(), ing, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("edit the Ingress: %v", err)
	}
	ki.servedBy("anything.test", "a", time.Now(), 10*time.Second)
	var out map[string]any
	if code := ki.call("POST", "/api/v1/servers", server("again", "_", location("/", "rest")), &out); code != 409 {
		t.Fatalf("REST write of a server naming the catch-all an Ingress holds: %d %v, want 409", code, out)
	}
}

// http10 sends "GET / HTTP/1.0" without a Host header through the proxy.
func (ki *kubeInstance) http10() (int, string) {
	ki.t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(ki.Proxy, "http://"), 5*time.Second)
	if err != nil {
		ki.t.Fatalf("dial the proxy: %v", err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "GET / HTTP/1.0\r\n\r\n"); err != nil {
		ki.t.Fatalf("write to the proxy: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		ki.t.Fatalf("read the proxy's answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// getTLS sends a request over HTTPS through the proxy with the SNI name (none if empty)
// and the Host header, trusting whatever certificate the proxy presents.
func (ki *kubeInstance) getTLS(sni, host, path string) (int, string) {
	ki.t.Helper()
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{ServerName: sni, InsecureSkipVerify: true}}}
	req, _ := http.NewRequest("GET", "https://"+ki.TLS+path, nil)
	req.Host = host
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}
