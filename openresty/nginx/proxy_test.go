package nginx_test

import (
	"context"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

func TestProxyRoutesToPushedBackends(t *testing.T) {
	a, b := startUpstream(t, "a", 0), startUpstream(t, "b", 0)
	cfg := config([]api.Backend{backend("ba", a), backend("bb", b)}, server("shop", "shop.test", "/a", "ba", "/b", "bb"))
	in := startNginx(t, cfg)
	addr := proxyAddr(in)

	if got, want := get(t, addr, "shop.test", "/a").status, 500; got != want {
		t.Fatalf("before any push: status = %d, want %d (the backend is not there yet)", got, want)
	}
	push(t, in, 2, cfg.Backends...)
	for _, c := range []struct{ path, want string }{{"/a", "a"}, {"/a/x", "a"}, {"/b", "b"}, {"/b/y", "b"}} {
		if got := get(t, addr, "shop.test", c.path); got.status != 200 || got.upstream != c.want {
			t.Fatalf("GET %s = %d from %q, want 200 from %q", c.path, got.status, got.upstream, c.want)
		}
	}
	if got, want := get(t, addr, "other.test", "/a").status, 404; got != want {
		t.Fatalf("unknown host: status = %d, want %d", got, want)
	}
	if got, want := get(t, addr, "shop.test", "/c").status, 404; got != want {
		t.Fatalf("unrouted path: status = %d, want %d", got, want)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := in.Admin().Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Generation != "1" || st.Version != 2 || st.Backends != 2 || st.MasterPID != in.PID() {
		t.Fatalf("status = %+v, want generation 1, version 2, 2 backends, master %d", st, in.PID())
	}
	got, err := in.Admin().Backend(ctx, "bb")
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 2 || len(got.Endpoints) != 1 || got.Endpoints[0].Port != b.port {
		t.Fatalf("backend bb = %+v, want version 2 with b's endpoint", got)
	}
	if _, err := in.Admin().Backend(ctx, "nope"); api.ErrorCode(err) != api.ENotFound {
		t.Fatalf("unknown backend: err = %v, want not_found", err)
	}
	all, err := in.Admin().Backends(ctx)
	if err != nil || len(all) != 2 {
		t.Fatalf("backends = %v, %v; want 2", all, err)
	}
	if err := in.Admin().Health(ctx); err != nil {
		t.Fatal(err)
	}
}
