package reconciler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestParseDefaultBackend: --default-backend is namespace/service:port, by number or
// name, and nothing else.
func TestParseDefaultBackend(t *testing.T) {
	for in, want := range map[string]*DefaultBackend{
		"ingress/default-http-backend:80": {Namespace: "ingress", Service: "default-http-backend", Port: networkingv1.ServiceBackendPort{Number: 80}},
		"ingress/pages:http":              {Namespace: "ingress", Service: "pages", Port: networkingv1.ServiceBackendPort{Name: "http"}},
	} {
		got, err := ParseDefaultBackend(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if diff := cmp.Diff(want, got); diff != "" || got.String() != in {
			t.Fatalf("%q (-want +got):\n%s\nString %q", in, diff, got.String())
		}
	}
	for _, bad := range []string{"", "pages:80", "ingress/pages", "ingress/pages:", "Ingress/pages:80", "ingress/Pages:80",
		"ingress/pages:0", "ingress/pages:65536", "ingress/pages:-1", "ingress/pages:80;", "ingress/pages:http$x",
		"ingress/1pages:80", "ingress/pages:80/x", "ingress/a/b:80", "ingress/pages:very-long-port-name"} {
		if d, err := ParseDefaultBackend(bad); err == nil {
			t.Errorf("%q parsed as %+v, want an error", bad, d)
		}
	}
}

// TestTranslateControllerDefaultBackend: the controller-wide default backend serves "/"
// on every host where no Ingress claims it and on the catch-all server, and answers the
// codes of custom-http-errors without default-backend, which are refused without it.
func TestTranslateControllerDefaultBackend(t *testing.T) {
	svc := func(ns, name string, addr string) []runtime.Object {
		return []runtime.Object{kubetest.Service(ns, name, 80), kubetest.EndpointSlice(ns, name, name+"-1", 8080, kubetest.Ready(addr)...)}
	}
	objs := []runtime.Object{
		aged(kubetest.Ingress("shop", "web", "", kubetest.Path{Host: "shop.test", Path: "/app", Service: "web", Port: 80}), 0),
		aged(kubetest.Ingress("shop", "root", "", kubetest.Path{Host: "root.test", Path: "/", Service: "web", Port: 80}), 1),
		aged(withDefaultBackend(kubetest.Ingress("shop", "own", "", kubetest.Path{Host: "own.test", Path: "/x", Service: "web", Port: 80}), "web", 80), 2),
		aged(kubetest.Ingress("shop", "errs", "", kubetest.Path{Host: "errs.test", Path: "/x", Service: "web", Port: 80}), 3,
			nginxPrefix+"custom-http-errors", "404,503"),
	}
	objs = append(objs, svc("shop", "web", "10.0.0.1")...)
	objs = append(objs, svc("ingress", "fallback", "10.0.9.9")...)

	snap := snapshotOf(objs...)
	snap.DefaultBackend = &DefaultBackend{Namespace: "ingress", Service: "fallback", Port: networkingv1.ServiceBackendPort{Number: 80}}
	tr := Translate(snap, nil)
	def := "k8s.ingress.fallback.80"
	want := summary{
		Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080 round_robin", def: "10.0.9.9:8080 round_robin"},
		Servers: map[string][]string{
			"k8s.shop.test": {"shop.test from shop/web", "prefix / -> " + def, "prefix /app -> k8s.shop.web.80"},
			"k8s.root.test": {"root.test from shop/root", "prefix / -> k8s.shop.web.80"},
			"k8s.own.test":  {"own.test from shop/own", "prefix / -> k8s.shop.web.80", "prefix /x -> k8s.shop.web.80"},
			"k8s.errs.test": {"errs.test from shop/errs", "prefix / -> " + def, "prefix /x -> k8s.shop.web.80"},
			"k8s._default":  {"_ from ingress/fallback", "prefix / -> " + def},
		},
		Reports: map[string]string{"shop/web": "applied", "shop/root": "applied", "shop/own": "applied", "shop/errs": "applied"},
	}
	if diff := cmp.Diff(want, summarize(tr)); diff != "" {
		t.Fatalf("with a default backend (-want +got):\n%s", diff)
	}
	for _, l := range tr.Servers["k8s.errs.test"].Locations {
		if l.Path != "/x" {
			continue
		}
		if l.Errors == nil || l.Errors.Backend != def || !cmp.Equal(l.Errors.Codes, []int{404, 503}) {
			t.Fatalf("custom-http-errors without default-backend: %+v, want 404,503 to %s", l.Errors, def)
		}
	}

	// Without it: nothing answers what no rule routes, and custom-http-errors without
	// default-backend is refused, saying what would answer.
	tr = Translate(snapshotOf(objs...), nil)
	if tr.Servers["k8s._default"] != nil || tr.Backends[def] != nil {
		t.Fatalf("without a default backend: %+v", summarize(tr))
	}
	rep := tr.Reports["shop/errs"]
	if rep.Applied || len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0].Message, "--default-backend") {
		t.Fatalf("custom-http-errors without any default backend: %+v, want refused naming --default-backend", rep)
	}

	// A REST server's catch-all stays the REST API's; a default backend that cannot be
	// served says why and takes nothing.
	snap = snapshotOf(objs...)
	snap.DefaultBackend = &DefaultBackend{Namespace: "ingress", Service: "fallback", Port: networkingv1.ServiceBackendPort{Number: 81}}
	tr = Translate(snap, nil)
	if tr.Servers["k8s._default"] != nil || !strings.Contains(tr.DefaultBackendProblem, "has no port 81") {
		t.Fatalf("a default backend without its port: problem %q, servers %+v", tr.DefaultBackendProblem, summarize(tr).Servers)
	}
	if tr.Reports["shop/errs"].Applied {
		t.Fatalf("custom-http-errors to a default backend that cannot be served: applied, want refused")
	}
	snap.DefaultBackend.Port.Number = 80
	head := restServer("rest-any", api.CatchAllHostname, "/")
	tr = Translate(snap, head)
	if srv := tr.Servers["k8s._default"]; srv != nil {
		t.Fatalf("the REST catch-all taken by the default backend: %+v", srv)
	}
}

// FuzzParseDefaultBackend: whatever --default-backend is given, an accepted value spells
// itself back the same and names a backend api accepts, whose name is all that reaches
// nginx.conf.
func FuzzParseDefaultBackend(f *testing.F) {
	for _, s := range []string{"ingress/default-http-backend:80", "ingress/pages:http", "a/b:1", "a/b:c;d", "a/b:80\nx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDefaultBackend(s)
		if err != nil {
			return
		}
		if d.String() != s {
			t.Fatalf("%q parsed as %q", s, d.String())
		}
		be, err := d.backend(NewSnapshot())
		if err != nil {
			t.Fatalf("%q: the backend of a missing Service: %v", s, err)
		}
		if err := be.Validate(); err != nil {
			t.Fatalf("%q: backend %q: %v", s, be.Name, err)
		}
	})
}

// TestDefaultBackendOnRegexRoot: a use-regex Ingress whose path "/" is the regex "^/"
// claims its host's root: the controller-wide default backend takes nothing there (on a
// regex host its own "/" would be written "^/" too, and the host's server, claimed twice,
// would be refused whole).
func TestDefaultBackendOnRegexRoot(t *testing.T) {
	objs := []runtime.Object{
		aged(kubetest.Ingress("ai", "api", "", kubetest.Path{Host: "api.test", Path: "/", Service: "web", Port: 80}), 0,
			nginxPrefix+"use-regex", "true", nginxPrefix+"rewrite-target", "/"),
		kubetest.Service("ai", "web", 80), kubetest.EndpointSlice("ai", "web", "web-1", 8080, kubetest.Ready("10.0.0.1")...),
		kubetest.Service("ingress", "fallback", 80), kubetest.EndpointSlice("ingress", "fallback", "fallback-1", 8080, kubetest.Ready("10.0.9.9")...),
	}
	snap := snapshotOf(objs...)
	snap.DefaultBackend = &DefaultBackend{Namespace: "ingress", Service: "fallback", Port: networkingv1.ServiceBackendPort{Number: 80}}
	tr := Translate(snap, nil)
	storeAccepts(t, tr, api.NewState())
	if r := tr.Reports["ai/api"]; !r.Applied || len(r.Problems) != 0 {
		t.Fatalf("api: applied %t, problems %+v; want applied without a problem", r.Applied, r.Problems)
	}
	srv := tr.Servers["k8s.api.test"]
	if srv == nil || len(srv.Locations) != 1 || srv.Locations[0].Backend != "k8s.ai.web.80" {
		t.Fatalf("server %+v, want the Ingress's one location", srv)
	}
}
