package reconciler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestHoldBackFollowsWhatAHeldServerKeeps: a backend that the cluster no longer asks for,
// kept only because a held server names it, follows its Service's endpoints as a held
// backend does; before, it kept the endpoints it had when an Ingress last named it.
func TestHoldBackFollowsWhatAHeldServerKeeps(t *testing.T) {
	head := api.NewState()
	head.Backends["x"] = k8sBackend("x")
	head.Backends["rest-used"] = k8sBackend("rest-used")
	head.Servers["s"] = k8sServer("s", "s.example.com", "x")
	head.Servers["rest"] = k8sServer("rest", "rest.example.com", "rest-used")
	head.Servers["rest"].Source = api.Source{Kind: api.SourceAPI}
	// What the cluster asks for: s routes to y; nothing names x or rest-used.
	tr := &Translation{Backends: map[string]*api.Backend{"y": k8sBackend("y")}, Servers: map[string]*api.Server{"s": k8sServer("s", "s.example.com", "y")}}
	sRef := api.Ref{Kind: api.KindServer, Name: "s"}
	holds := map[api.Ref]api.Hold{sRef: {Kind: api.KindServer, Name: "s", Revision: 3,
		Rejected: api.HoldDigest(api.Mutation{Kind: api.KindServer, Name: "s", Server: tr.Servers["s"]})}}
	moved := []api.Endpoint{{Address: "10.9.0.2", Port: 8080, Weight: 1}}
	follow := func(name string) ([]api.Endpoint, bool) { return moved, true }
	out, _, _ := holdBack(tr, head, mutations(tr, head), holds, follow)
	var x *api.Backend
	for _, m := range out {
		switch {
		case m.Kind == api.KindBackend && m.Name == "x" && m.Delete:
			t.Fatalf("backend x, which held server s names, is deleted")
		case m.Kind == api.KindBackend && m.Name == "x":
			x = m.Backend
		case m.Kind == api.KindBackend && m.Name == "rest-used":
			t.Errorf("backend rest-used, kept for a REST server and not for a hold, is written: %+v", m.Backend)
		}
	}
	if x == nil {
		t.Fatalf("backend x kept at endpoints %s, want it to follow its Service to 10.9.0.2:8080", endpointList(head.Backends["x"].Endpoints))
	}
	if got, want := endpointList(x.Endpoints), "10.9.0.2:8080"; got != want {
		t.Fatalf("backend x written with endpoints %s, want %s", got, want)
	}
	if x.LoadBalance != head.Backends["x"].LoadBalance || x.Source != head.Backends["x"].Source {
		t.Errorf("backend x written as %+v, want it as it was but for its endpoints", x)
	}
}

func endpointList(eps []api.Endpoint) string {
	s := make([]string, len(eps))
	for i, e := range eps {
		s[i] = fmt.Sprintf("%s:%d", e.Address, e.Port)
	}
	return strings.Join(s, ",")
}
