package reconciler

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestTranslateRegexHost: on a host where a path is a regex, every path of the host is a
// regex, tried longest Ingress path first, as ingress-nginx orders them; a use-regex
// Ingress's Exact paths are regexes too, and its paths are anchored at the start. Paths of
// Ingresses without use-regex keep their Kubernetes meaning, written as regexes.
func TestTranslateRegexHost(t *testing.T) {
	var objs []runtime.Object
	for _, s := range []string{"users", "payments", "client", "orders", "health"} {
		objs = append(objs, kubetest.Service("a", s, 80), kubetest.EndpointSlice("a", s, s+"-1", 8080, kubetest.Ready("10.0.0.1")...))
	}
	path := func(p, svc string, typ networkingv1.PathType) kubetest.Path {
		return kubetest.Path{Host: "t.test", Path: p, Type: typ, Service: svc, Port: 80}
	}
	re := aged(kubetest.Ingress("a", "re", "",
		path("/api/users/?(.*)", "users", networkingv1.PathTypePrefix),
		path("/api/payments/?(.*)", "payments", networkingv1.PathTypeExact),
		path("/?(.*)", "client", networkingv1.PathTypePrefix)), 2, nginxPrefix+"use-regex", "true")
	plain := aged(kubetest.Ingress("a", "plain", "",
		path("/api/orders/list", "orders", networkingv1.PathTypePrefix),
		path("/health", "health", networkingv1.PathTypeExact)), 1)
	objs = append(objs, re, plain)
	tr := Translate(snapshotOf(objs...), nil)
	srv := tr.Servers[serverName("t.test")]
	if srv == nil {
		t.Fatalf("no server for t.test: %+v", summarize(tr))
	}
	var got []string
	for _, l := range srv.Locations {
		if l.Match != api.MatchRegex {
			t.Errorf("location %s is %s, want regex: the host has regex paths", l.Path, l.Match)
		}
		got = append(got, l.Path)
	}
	want := []string{`^/api/payments/?(.*)`, `^/api/users/?(.*)`, `^/api/orders/list(?:/|\z)`, `^/health\z`, `^/?(.*)`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("locations in the order nginx tries them (-want +got):\n%s", diff)
	}
	// nginx takes the first regex that matches; Go's regexp agrees with PCRE on these.
	for p, svc := range map[string]string{
		"/api/users/1": "users", "/api/users": "users", "/api/payments/9": "payments",
		"/api/orders/list": "orders", "/api/orders/list/7": "orders", "/api/orders/listing": "client",
		"/health": "health", "/healthz": "client", "/": "client", "/x/api/users/1": "client",
	} {
		var to string
		for _, l := range srv.Locations {
			if regexp.MustCompile(l.Path).MatchString(p) {
				to = l.Backend
				break
			}
		}
		if want := backendName("a", svc, "80"); to != want {
			t.Errorf("%s goes to %s, want %s", p, to, want)
		}
	}
}

// TestTranslateCaptureRewrite: rewrite-target with capture groups makes the Ingress's paths
// regexes, as in ingress-nginx, and rewrites the whole path with them; a rewrite naming a
// group its path does not have refuses the Ingress, saying why; a plain rewrite of another
// Ingress on the host becomes two regexes that rewrite as its prefix did.
func TestTranslateCaptureRewrite(t *testing.T) {
	var objs []runtime.Object
	for _, s := range []string{"api", "thanos", "old"} {
		objs = append(objs, kubetest.Service("a", s, 80), kubetest.EndpointSlice("a", s, s+"-1", 8080, kubetest.Ready("10.0.0.1")...))
	}
	path := func(host, p, svc string) kubetest.Path {
		return kubetest.Path{Host: host, Path: p, Service: svc, Port: 80}
	}
	objs = append(objs,
		aged(kubetest.Ingress("a", "api", "", path("r.test", "/api(/|$)(.*)", "api")), 4,
			nginxPrefix+"rewrite-target", "/$2", nginxPrefix+"x-forwarded-prefix", "/api"),
		aged(kubetest.Ingress("a", "thanos", "", path("r.test", "/thanos(/|$)(.*)", "thanos")), 3,
			nginxPrefix+"rewrite-target", "/thanos/$2", nginxPrefix+"use-regex", "true"),
		aged(kubetest.Ingress("a", "old", "", path("r.test", "/old", "old")), 2, nginxPrefix+"rewrite-target", "/new"),
		aged(kubetest.Ingress("a", "bad", "", path("bad.test", "/x(/|$)(.*)", "api")), 1, nginxPrefix+"rewrite-target", "/$3"))
	tr := Translate(snapshotOf(objs...), nil)
	srv := tr.Servers[serverName("r.test")]
	if srv == nil {
		t.Fatalf("no server for r.test: %+v", summarize(tr))
	}
	type loc struct{ Path, Rewrite, Prefix string }
	var got []loc
	for _, l := range srv.Locations {
		if l.Match != api.MatchRegex {
			t.Errorf("location %s is %s, want regex", l.Path, l.Match)
		}
		got = append(got, loc{l.Path, l.Rewrite, l.ForwardedPrefix})
	}
	want := []loc{
		{`^/thanos(/|$)(.*)`, "/thanos/$2", ""},
		{`^/api(/|$)(.*)`, "/$2", "/api"},
		{`^/old\z`, "/new", ""},
		{`^/old/([\s\S]*)`, "/new/$1", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("locations (-want +got):\n%s", diff)
	}
	rep := tr.Reports["a/bad"]
	if rep.Applied || len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0].Message, "$3") {
		t.Fatalf("Ingress a/bad: applied %t, problems %+v; want it refused naming $3", rep.Applied, rep.Problems)
	}
	if tr.Servers[serverName("bad.test")] != nil {
		t.Fatal("a server for bad.test, whose only Ingress is refused")
	}
}
