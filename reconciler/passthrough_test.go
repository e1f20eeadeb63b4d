package reconciler

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestTranslatePassthrough: ssl-passthrough passes the host's TLS to the backend of its
// "/" path, leaves its TLS entry unused, and holds the host like any other: a younger
// Ingress of the same host that terminates TLS there is refused on it, and a rule
// without a host refuses the Ingress.
func TestTranslatePassthrough(t *testing.T) {
	const ns, host = "argocd", "argocd.example.com"
	svc := kubetest.Service(ns, "argocd-server", 443)
	web := kubetest.Service(ns, "web", 80)
	slice := kubetest.EndpointSlice(ns, "argocd-server", "argocd-server-1", 8080, kubetest.Ready("10.0.0.1")...)
	webSlice := kubetest.EndpointSlice(ns, "web", "web-1", 8080, kubetest.Ready("10.0.0.2")...)
	cert, key := kubetest.SelfSigned(t, host)
	path := func(h, p, s string, port int32) kubetest.Path {
		return kubetest.Path{Host: h, Path: p, Service: s, Port: port}
	}
	passed := aged(withTLS(kubetest.Ingress(ns, "argocd", "c", path(host, "/docs", "web", 80), path(host, "/", "argocd-server", 443)), "tls", host), 0,
		nginxPrefix+"ssl-passthrough", "true")
	terminated := aged(kubetest.Ingress(ns, "site", "c", path(host, "/site", "web", 80)), 1)
	nohost := aged(kubetest.Ingress(ns, "nohost", "c", path("", "/", "argocd-server", 443)), 2, nginxPrefix+"ssl-passthrough", "true")
	tr := Translate(snapshotOf(runtime.Object(svc), web, slice, webSlice, kubetest.TLSSecret(ns, "tls", cert, key), passed, terminated, nohost), nil)

	srv := tr.Servers[serverName(host)]
	if srv == nil || srv.Passthrough == nil {
		t.Fatalf("server for %s = %+v, want passthrough", host, srv)
	}
	if b := tr.Backends[srv.Passthrough.Backend]; b == nil || !strings.Contains(b.Name, "argocd-server") {
		t.Fatalf("passthrough backend %q (%+v), want argocd-server's", srv.Passthrough.Backend, b)
	}
	if srv.TLS != nil {
		t.Fatalf("server TLS = %+v, want none: the backend presents its own certificate", srv.TLS)
	}
	reports := summarize(tr).Reports
	if got := reports[ns+"/site"]; got != "not applied Conflict" {
		t.Fatalf("site (terminating on a passthrough host): %q", got)
	}
	if p := tr.Reports[ns+"/site"].Problems; len(p) == 0 || !strings.Contains(p[0].Message, "passes the host's TLS") {
		t.Fatalf("site's problems: %+v", p)
	}
	if got := reports[ns+"/nohost"]; !strings.HasPrefix(got, "not applied") {
		t.Fatalf("nohost (passthrough without a host): %q", got)
	}
}

// TestPassthroughWithTrustedProxies: under settings that name trusted proxies the store
// takes no passthrough server, so an ssl-passthrough Ingress is refused alone, its paths
// held, and the sync of every other Ingress is still written.
func TestPassthroughWithTrustedProxies(t *testing.T) {
	const ns = "argocd"
	svc := kubetest.Service(ns, "argocd-server", 443)
	slice := kubetest.EndpointSlice(ns, "argocd-server", "argocd-server-1", 8080, kubetest.Ready("10.0.0.1")...)
	passed := aged(kubetest.Ingress(ns, "argocd", "c", kubetest.Path{Host: "argocd.example.com", Path: "/", Service: "argocd-server", Port: 443}), 0,
		nginxPrefix+"ssl-passthrough", "true")
	plain := aged(kubetest.Ingress(ns, "site", "c", kubetest.Path{Host: "site.example.com", Path: "/", Service: "argocd-server", Port: 443}), 1)
	head := api.NewState()
	head.Settings.RealIPFrom = []string{"10.0.0.0/8"}
	tr := Translate(snapshotOf(runtime.Object(svc), slice, passed, plain), head)
	storeAccepts(t, tr, head)
	if !warned(tr, ns+"/argocd", ReasonRefusedAnnotation, "realIPFrom") {
		t.Fatalf("argocd's problems: %+v, want ssl-passthrough refused naming realIPFrom", tr.Reports[ns+"/argocd"].Problems)
	}
	if !tr.Reports[ns+"/site"].Applied {
		t.Fatalf("site is not applied: %+v", tr.Reports[ns+"/site"].Problems)
	}
}
