package openresty

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
)

// TestPassthroughEndpointsAreRendered: the stream proxy of TLS passthrough has no
// balancer to push to, so a passthrough backend's endpoints are rendered, and a change to
// them is a change of structure (a reload), while other backends stay dynamic.
func TestPassthroughEndpointsAreRendered(t *testing.T) {
	eps := []api.Endpoint{{Address: "10.0.0.21", Port: 8443}}
	base := api.NewState()
	base.Servers["cd"] = &api.Server{Name: "cd", Version: 3, Passthrough: &api.Passthrough{Backend: "argocd"}}
	base.Backends["argocd"] = &api.Backend{Name: "argocd", Version: 3, Endpoints: eps}
	base.Backends["web"] = &api.Backend{Name: "web", Version: 3, Endpoints: eps}

	got := renderedBackends(base)
	if b := got["argocd"]; b == nil || !cmp.Equal(b.Endpoints, eps) {
		t.Fatalf("rendered passthrough backend = %+v, want its endpoints", b)
	}
	if b := got["web"]; b != nil {
		t.Fatalf("rendered plain backend = %+v, want none (pushed only)", b)
	}

	head := base.Clone()
	head.Backends["web"] = &api.Backend{Name: "web", Version: 9}
	if !sameStructure(base, head) {
		t.Fatal("a plain backend's change: sameStructure = false, want true (dynamic)")
	}
	head = base.Clone()
	head.Backends["argocd"] = &api.Backend{Name: "argocd", Version: 9, Endpoints: []api.Endpoint{{Address: "10.0.0.22", Port: 8443}}}
	if sameStructure(base, head) {
		t.Fatal("a passthrough backend's change: sameStructure = true, want false (its endpoints are in nginx.conf)")
	}
}
