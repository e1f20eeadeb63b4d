package reconciler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestTranslateAliasesAndErrors (policies): server-alias names join the host's
// server, except one that another namespace holds, which is reported while the rest of the
// Ingress is served; custom-http-errors' locations name default-backend's backend, which
// the translation carries, and tell it where they came from; use-regex makes paths regexes.
func TestTranslateAliasesAndErrors(t *testing.T) {
	svc := func(ns, name string) []runtime.Object {
		return []runtime.Object{kubetest.Service(ns, name, 80), kubetest.EndpointSlice(ns, name, name+"-1", 8080, kubetest.Ready("10.0.0.1")...)}
	}
	owner := aged(kubetest.Ingress("b", "owner", "", kubetest.Path{Host: "taken.test", Path: "/", Service: "web", Port: 80}), 1)
	shop := aged(kubetest.Ingress("a", "shop", "", kubetest.Path{Host: "shop.test", Path: "/api", Service: "web", Port: 80},
		kubetest.Path{Host: "shop.test", Path: "/re/[0-9]+", Service: "web", Port: 80}), 2,
		nginxPrefix+"server-alias", "www.shop.test, taken.test", nginxPrefix+"custom-http-errors", "404",
		nginxPrefix+"default-backend", "pages", nginxPrefix+"use-regex", "true")
	objs := []runtime.Object{owner, shop}
	objs = append(objs, svc("a", "web")...)
	objs = append(objs, svc("a", "pages")...)
	objs = append(objs, svc("b", "web")...)
	tr := Translate(snapshotOf(objs...), nil)

	srv := tr.Servers[serverName("shop.test")]
	if srv == nil {
		t.Fatalf("no server for shop.test: %+v", summarize(tr))
	}
	if diff := cmp.Diff([]string{"shop.test", "www.shop.test"}, srv.Hostnames); diff != "" {
		t.Fatalf("hostnames (-want +got):\n%s", diff)
	}
	pages := backendName("a", "pages", "http") // the Service's first port, by its name
	if tr.Backends[pages] == nil {
		t.Fatalf("the error backend %s is not in the translation: %+v", pages, summarize(tr))
	}
	for _, l := range srv.Locations {
		want := &api.ErrorsPolicy{Codes: []int{404}, Backend: pages,
			Origin: &api.ErrorsOrigin{Namespace: "a", Ingress: "shop", Service: "web", ServicePort: "80"}}
		if diff := cmp.Diff(want, l.Errors); diff != "" {
			t.Fatalf("location %s errors (-want +got):\n%s", l.Path, diff)
		}
		if l.Match != api.MatchRegex {
			t.Fatalf("location %s is %s, want regex (use-regex)", l.Path, l.Match)
		}
	}
	rep := tr.Reports["a/shop"]
	if !rep.Applied {
		t.Fatalf("the Ingress is not applied: %+v", rep.Problems)
	}
	found := false
	for _, p := range rep.Problems {
		found = found || p.Reason == ReasonHostClaimed && strings.Contains(p.Message, "server-alias taken.test") && strings.Contains(p.Message, "namespace b")
	}
	if !found {
		t.Fatalf("no HostClaimed report for the alias taken.test: %+v", rep.Problems)
	}
	if got := tr.Servers[serverName("taken.test")]; got == nil || got.Source.Namespace != "b" {
		t.Fatalf("taken.test's server = %+v, want namespace b's", got)
	}
}
