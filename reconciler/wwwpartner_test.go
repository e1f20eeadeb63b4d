package reconciler

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// storeAccepts applies what tr writes to a copy of head and checks the whole state as the
// store does before a commit: a refusal there fails the sync for every namespace.
func storeAccepts(t *testing.T, tr *Translation, head *api.State) {
	t.Helper()
	st := head.Clone()
	for _, m := range mutations(tr, head) {
		if err := m.Validate(); err != nil {
			t.Fatalf("mutation %s %s: %v", m.Kind, m.Name, err)
		}
		st.Apply(m)
	}
	if err := st.CheckAll(); err != nil {
		t.Fatalf("the store would refuse the sync, every namespace's changes with it: %v", err)
	}
}

// warned reports whether the Ingress's report has a problem of reason mentioning text.
func warned(tr *Translation, key, reason, text string) bool {
	for _, p := range tr.Reports[key].Problems {
		if p.Reason == reason && strings.Contains(p.Message, text) {
			return true
		}
	}
	return false
}

// TestWWWPartnerTakenByAlias: a www redirect whose partner is another Ingress's
// server-alias is refused and reported, instead of a state the store refuses whole (one
// namespace's two Ingresses stopped every write for every namespace).
func TestWWWPartnerTakenByAlias(t *testing.T) {
	objs := []runtime.Object{kubetest.Service("evil", "web", 80),
		aged(kubetest.Ingress("evil", "p", "", kubetest.Path{Host: "example.com", Path: "/", Service: "web", Port: 80}), 0,
			nginxPrefix+"from-to-www-redirect", "true"),
		aged(kubetest.Ingress("evil", "q", "", kubetest.Path{Host: "other.com", Path: "/", Service: "web", Port: 80}), 1,
			nginxPrefix+"server-alias", "www.example.com"),
		kubetest.Service("good", "app", 80),
		aged(kubetest.Ingress("good", "app", "", kubetest.Path{Host: "good.example.org", Path: "/", Service: "app", Port: 80}), 2)}
	head := api.NewState()
	tr := Translate(snapshotOf(objs...), head)
	storeAccepts(t, tr, head)
	if !warned(tr, "evil/p", ReasonConflict, "server-alias of host other.com") {
		t.Fatalf("evil/p's problems = %+v, want its www redirect refused for the alias", tr.Reports["evil/p"].Problems)
	}
	if tr.Servers["k8s.good.example.org"] == nil {
		t.Fatalf("the other namespace's Ingress is not translated")
	}

	// The store redirects the partners of a server's aliases too: an alias's partner
	// routed by another Ingress refuses the redirect as well.
	objs = []runtime.Object{kubetest.Service("evil", "web", 80),
		aged(kubetest.Ingress("evil", "p", "", kubetest.Path{Host: "example.com", Path: "/", Service: "web", Port: 80}), 0,
			nginxPrefix+"from-to-www-redirect", "true", nginxPrefix+"server-alias", "foo.com"),
		aged(kubetest.Ingress("evil", "r", "", kubetest.Path{Host: "www.foo.com", Path: "/", Service: "web", Port: 80}), 1)}
	tr = Translate(snapshotOf(objs...), head)
	storeAccepts(t, tr, head)
	if !warned(tr, "evil/p", ReasonConflict, "www.foo.com is routed by an Ingress") {
		t.Fatalf("evil/p's problems = %+v, want its www redirect refused for its alias's partner", tr.Reports["evil/p"].Problems)
	}
}

// TestRESTWWWPartnerIsHeld: the www partner of a REST server that redirects it is held by
// the REST API: an Ingress naming it is refused and told so, instead of taking the name
// unnoticed (a route beats a redirect) and blocking the admin's next edit of the server.
func TestRESTWWWPartnerIsHeld(t *testing.T) {
	head := restServer("rest-shop", "example.com", "/")
	head.Servers["rest-shop"].WWWRedirect = true
	objs := []runtime.Object{kubetest.Service("evil", "web", 80),
		aged(kubetest.Ingress("evil", "w", "", kubetest.Path{Host: "www.example.com", Path: "/", Service: "web", Port: 80}), 0)}
	tr := Translate(snapshotOf(objs...), head)
	storeAccepts(t, tr, head)
	if tr.Servers["k8s.www.example.com"] != nil || !warned(tr, "evil/w", ReasonHostClaimed, "REST") {
		t.Fatalf("evil/w on the REST server's www partner: server %v, problems %+v; want it refused as held by the REST API",
			tr.Servers["k8s.www.example.com"] != nil, tr.Reports["evil/w"].Problems)
	}
}
