package nginx_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// TestDrainMarksEveryKindOfAnswer: during a drain, a location's own answer, an access
// policy's refusal and a proxied answer in a location with add_headers of its own each
// say "close" once, after nginx's "keep-alive", with and without a backend that has
// affinity (whose cookie the same header filter sets); a backend pushed during the drain
// is drained too.
func TestDrainMarksEveryKindOfAnswer(t *testing.T) {
	up := startUpstream(t, "a", 0)
	for _, affinity := range []bool{false, true} {
		name := "without affinity"
		if affinity {
			name = "with affinity"
		}
		t.Run(name, func(t *testing.T) {
			web := backend("web", up)
			if affinity {
				web.Affinity = &api.Affinity{Cookie: "route"}
			}
			srv := server("shop", "shop.test", "/", "web")
			srv.Locations = append(srv.Locations,
				api.Location{Path: "/fixed", Match: api.MatchPrefix, Return: &api.Return{Code: 200, Body: "fixed"}},
				api.Location{Path: "/refused", Match: api.MatchPrefix, Backend: "web", Access: &api.AccessPolicy{Deny: []string{"127.0.0.0/8"}}},
				api.Location{Path: "/headers", Match: api.MatchPrefix, Backend: "web",
					ResponseHeaders: &api.HeaderFilter{Add: []api.Header{{Name: "X-Shop", Value: "yes"}}}})
			cfg := config([]api.Backend{web}, srv)
			in := startNginx(t, cfg)
			policies, err := render.ServerPolicies(&cfg.Servers[0])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := in.Push(ctx(t), 2, render.Push{Full: true, Backends: cfg.Backends, Policies: policies}); err != nil {
				t.Fatalf("push: %v", err)
			}
			addr := proxyAddr(in)
			want := map[string]int{"/": 200, "/fixed": 200, "/refused": 403, "/headers": 200}
			get := func(path string) wireAnswer {
				t.Helper()
				w := newWireClient(addr, "shop.test")
				defer w.close()
				a, err := w.get(path)
				if err != nil {
					t.Fatal(err)
				}
				if a.status != want[path] {
					t.Fatalf("%s: status %d, want %d", path, a.status, want[path])
				}
				return a
			}
			for path := range want {
				if a := get(path); !cmp.Equal(a.connection, []string{"keep-alive"}) || a.closed {
					t.Fatalf("%s before the drain: %+v, want one Connection: keep-alive", path, a)
				}
			}
			if err := in.Admin().Drain(ctx(t), 10*time.Second); err != nil {
				t.Fatalf("drain: %v", err)
			}
			for path := range want {
				if a := get(path); !cmp.Equal(a.connection, []string{"keep-alive", "close"}) || !a.closed {
					t.Fatalf("%s during the drain: %+v, want keep-alive then close", path, a)
				}
			}
			// A backend pushed during the drain is drained too.
			push(t, in, 3, web)
			if a := get("/"); !cmp.Equal(a.connection, []string{"keep-alive", "close"}) {
				t.Fatalf("after a push during the drain: %+v, want keep-alive then close", a)
			}
			if err := in.Admin().Undrain(ctx(t)); err != nil {
				t.Fatalf("undrain: %v", err)
			}
			for path := range want {
				if a := get(path); !cmp.Equal(a.connection, []string{"keep-alive"}) || a.closed {
					t.Fatalf("%s after the drain: %+v, want one Connection: keep-alive", path, a)
				}
			}
		})
	}
}
