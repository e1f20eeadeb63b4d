package reconciler

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestRewriteTargetURL: a rewrite-target that is a URL, as the Ministry of Justice's
// redirect Ingresses write it, makes the path a 302 there with the path's groups, as
// nginx's rewrite to a URL does; a group the path lacks, or a variable, refuses it.
func TestRewriteTargetURL(t *testing.T) {
	const ns = "hmpps"
	ing := func(name, path, target string, age int) runtime.Object {
		return aged(kubetest.Ingress(ns, name, "", kubetest.Path{Host: name + ".test", Path: path, Service: "ui", Port: 80, Type: "ImplementationSpecific"}), age,
			nginxPrefix+"rewrite-target", target)
	}
	objs := []runtime.Object{kubetest.Service(ns, "ui", 80),
		ing("old", "/(.*)", "https://new.example.gov.uk/$1", 0),
		ing("plain", "/", "https://new.example.gov.uk/", 1),
		ing("lacking", "/(.*)", "https://new.example.gov.uk/$2", 2),
		ing("variable", "/(.*)", "https://$host/$1", 3)}
	head := api.NewState()
	tr := Translate(snapshotOf(objs...), head)
	storeAccepts(t, tr, head)
	for name, want := range map[string]api.Location{
		"old":   {Path: "^/(.*)", Match: api.MatchRegex, Redirect: &api.Redirect{URL: "https://new.example.gov.uk/$1", Code: 302}},
		"plain": {Path: "/", Match: api.MatchPrefix, Redirect: &api.Redirect{URL: "https://new.example.gov.uk/", Code: 302}},
	} {
		srv := tr.Servers["k8s."+name+".test"]
		if srv == nil || len(srv.Locations) != 1 {
			t.Fatalf("%s: server %+v, want one location", name, srv)
		}
		l := srv.Locations[0]
		if l.Path != want.Path || l.Match != want.Match || l.Redirect == nil || *l.Redirect != *want.Redirect || l.Rewrite != "" {
			t.Errorf("%s: location %s %s redirect %+v rewrite %q, want %s %s redirect %+v", name, l.Match, l.Path, l.Redirect, l.Rewrite, want.Match, want.Path, want.Redirect)
		}
	}
	for name, why := range map[string]string{"lacking": "names $2 but the path has 1 capture groups", "variable": "'$' only as a capture group"} {
		if r := tr.Reports[ns+"/"+name]; r.Applied || len(r.Problems) == 0 || !strings.Contains(r.Problems[0].Message, why) {
			t.Errorf("%s: applied %t, problems %+v; want refused, containing %q", name, r.Applied, r.Problems, why)
		}
	}
}
