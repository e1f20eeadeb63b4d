package e2e

import "testing"

// TestAffinityGainedReloads: the header filter that sets the affinity cookie runs only
// while some backend has affinity (openresty/render/drain.go), so a backend that gains
// affinity by a change that is otherwise dynamic applies by a reload, and its cookie is
// set at once; losing it again reloads too, and no cookie is set after.
func TestAffinityGainedReloads(t *testing.T) {
	in := start(t)
	ps := peers(t, "a1", "a2")
	in.must("POST", "/api/v1/backends", backend("web", endpoints(ps...)...))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	in.waitSynced()
	if served, set := in.visit("shop.test", "/", ""); served == "" || set != "" {
		t.Fatalf("without affinity: served by %q with Set-Cookie %q, want a peer and no cookie", served, set)
	}

	in.must("PUT", "/api/v1/backends/web", stickyBackend("web", map[string]any{"cookie": "route"}, ps...))
	if mode := lastApplyMode(in.waitSynced()); mode != "reload" {
		t.Fatalf("the first backend with affinity applied as %v, want reload", mode)
	}
	served, set := in.visit("shop.test", "/", "")
	if served == "" || pair(set) == "" {
		t.Fatalf("with affinity: served by %q with Set-Cookie %q, want a peer and the route cookie", served, set)
	}
	for i := 0; i < 5; i++ {
		if again, _ := in.visit("shop.test", "/", pair(set)); again != served {
			t.Fatalf("request %d with cookie %q went to %q, want %q", i, pair(set), again, served)
		}
	}

	// A second change that keeps affinity is dynamic again.
	in.must("PUT", "/api/v1/backends/web", stickyBackend("web", map[string]any{"cookie": "route"}, ps[:1]...))
	if mode := lastApplyMode(in.waitSynced()); mode != "dynamic" {
		t.Fatalf("an endpoint change of a backend that keeps its affinity applied as %v, want dynamic", mode)
	}

	in.must("PUT", "/api/v1/backends/web", backend("web", endpoints(ps...)...))
	if mode := lastApplyMode(in.waitSynced()); mode != "reload" {
		t.Fatalf("the last backend losing affinity applied as %v, want reload", mode)
	}
	if served, set := in.visit("shop.test", "/", ""); served == "" || set != "" {
		t.Fatalf("affinity removed: served by %q with Set-Cookie %q, want a peer and no cookie", served, set)
	}
}
