package reconciler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// applied returns head with the mutations applied, as the store would.
func applied(t *testing.T, head *api.State, muts []api.Mutation) *api.State {
	t.Helper()
	st := head.Clone()
	for _, m := range muts {
		if err := m.Validate(); err != nil {
			t.Fatalf("%s %s: %v", m.Kind, m.Name, err)
		}
		st.Apply(m)
	}
	if err := st.CheckAll(); err != nil {
		t.Fatalf("state: %v", err)
	}
	return st
}

func refs(muts []api.Mutation) []string {
	var out []string
	for _, m := range muts {
		op := "write"
		if m.Delete {
			op = "delete"
		}
		out = append(out, op+" "+m.Kind+" "+m.Name)
	}
	return out
}

func TestMutations(t *testing.T) {
	const ns, host = "shop", "shop.example.com"
	web := kubetest.Service(ns, "web", 80)
	ing := aged(kubetest.Ingress(ns, "web", "c", kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}), 0)
	one := kubetest.EndpointSlice(ns, "web", "w", 8080, kubetest.Ready("10.0.0.1")...)
	two := kubetest.EndpointSlice(ns, "web", "w", 8080, kubetest.Ready("10.0.0.1", "10.0.0.2")...)

	head := api.NewState()
	first := mutations(Translate(snapshotOf(web, one, ing), head), head)
	if diff := cmp.Diff([]string{"write backend k8s.shop.web.80", "write server k8s.shop.example.com"}, refs(first)); diff != "" {
		t.Fatalf("first sync (-want +got):\n%s", diff)
	}
	if got, want := message(first, head), "from the cluster: Ingress shop/web (server k8s.shop.example.com created); Service shop/web (backend k8s.shop.web.80 created)"; got != want {
		t.Fatalf("message = %q, want %q", got, want)
	}
	head = applied(t, head, first)

	if again := mutations(Translate(snapshotOf(web, one, ing), head), head); len(again) != 0 {
		t.Fatalf("unchanged cluster gives %v, want nothing", refs(again))
	}

	scaled := mutations(Translate(snapshotOf(web, two, ing), head), head)
	if diff := cmp.Diff([]string{"write backend k8s.shop.web.80"}, refs(scaled)); diff != "" {
		t.Fatalf("scaled slice (-want +got):\n%s", diff)
	}
	if got, want := message(scaled, head), "from the cluster: Service shop/web (backend k8s.shop.web.80 updated)"; got != want {
		t.Fatalf("message = %q, want %q", got, want)
	}
	head = applied(t, head, scaled)

	gone := mutations(Translate(snapshotOf(web, two), head), head)
	if diff := cmp.Diff([]string{"delete server k8s.shop.example.com", "delete backend k8s.shop.web.80"}, refs(gone)); diff != "" {
		t.Fatalf("Ingress deleted (-want +got):\n%s", diff)
	}
	if got, want := message(gone, head), "from the cluster: Ingress shop/web (server k8s.shop.example.com deleted); Service shop/web (backend k8s.shop.web.80 deleted)"; got != want {
		t.Fatalf("message = %q, want %q", got, want)
	}
}

// TestMutationsKeepWhatRESTUses: a REST server that routes to a kubernetes backend keeps
// it alive after its Ingress goes, since deleting it would fail the whole write.
func TestMutationsKeepWhatRESTUses(t *testing.T) {
	const ns = "shop"
	objs := []runtime.Object{kubetest.Service(ns, "web", 80), aged(kubetest.Ingress(ns, "web", "c", kubetest.Path{Host: "a.example.com", Path: "/", Service: "web", Port: 80}), 0)}
	head := api.NewState()
	head = applied(t, head, mutations(Translate(snapshotOf(objs...), head), head))
	head.Servers["rest"] = &api.Server{Name: "rest", Hostnames: []string{"rest.example.com"}, Source: api.Source{Kind: api.SourceAPI},
		Locations: []api.Location{{Path: "/", Match: api.MatchPrefix, Backend: "k8s.shop.web.80"}}}
	gone := mutations(Translate(snapshotOf(objs[0]), head), head)
	if diff := cmp.Diff([]string{"delete server k8s.a.example.com"}, refs(gone)); diff != "" {
		t.Fatalf("Ingress deleted (-want +got):\n%s", diff)
	}
}

func TestMessageIsBounded(t *testing.T) {
	head := api.NewState()
	var muts []api.Mutation
	for i := 0; i < 30; i++ {
		name := backendName("ns", "svc"+string(rune('a'+i%26))+string(rune('a'+i/26)), "80")
		muts = append(muts, api.Mutation{Kind: api.KindBackend, Name: name, Backend: &api.Backend{Name: name,
			Source: api.Source{Kind: api.SourceKubernetes, Namespace: "ns", Name: name}}})
	}
	msg := message(muts, head)
	if got, want := len(msg) < 1000, true; got != want {
		t.Fatalf("message of %d bytes: %q", len(msg), msg)
	}
	if got, want := msg[len(msg)-len("and 20 more cluster objects"):], "and 20 more cluster objects"; got != want {
		t.Fatalf("message ends %q, want %q", got, want)
	}
}
