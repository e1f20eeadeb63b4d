package nginx_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// TestPushDeletesAndReplaces checks what the instance's shared dicts hold after pushes that
// delete objects by name and after a full push, which replaces everything (the push after
// nginx restarted): read back through the admin endpoint.
func TestPushDeletesAndReplaces(t *testing.T) {
	up := startUpstream(t, "up", 0)
	in := startNginx(t, config([]api.Backend{backend("a", up)}, server("shop", "shop.test", "/", "a")))
	cert := func(name string) api.Certificate {
		c, k, _ := selfSigned(t, name+".test")
		return api.Certificate{Name: name, Cert: c, Key: k}
	}
	held := func() (backends, certs []string) {
		t.Helper()
		bs, err := in.Admin().Backends(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			backends = append(backends, b.Name)
		}
		cs, err := in.Admin().Certificates(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			certs = append(certs, c.Name)
		}
		return backends, certs
	}
	steps := []struct {
		name         string
		push         render.Push
		wantBackends []string
		wantCerts    []string
	}{
		{"add", render.Push{Backends: []api.Backend{backend("a", up), backend("b", up), backend("c", up)},
			Certificates: []api.Certificate{cert("x"), cert("y")}}, []string{"a", "b", "c"}, []string{"x", "y"}},
		{"delete by name", render.Push{DeletedBackends: []string{"b"}, DeletedCerts: []string{"x"}},
			[]string{"a", "c"}, []string{"y"}},
		{"full push replaces", render.Push{Full: true, Backends: []api.Backend{backend("c", up), backend("d", up)},
			Certificates: []api.Certificate{cert("z")}}, []string{"c", "d"}, []string{"z"}},
	}
	for i, s := range steps {
		if _, err := in.Push(ctx(t), int64(i+2), s.push); err != nil {
			t.Fatalf("%s: push: %v", s.name, err)
		}
		backends, certs := held()
		if diff := cmp.Diff(s.wantBackends, backends); diff != "" {
			t.Errorf("%s: backends (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.wantCerts, certs); diff != "" {
			t.Errorf("%s: certificates (-want +got):\n%s", s.name, diff)
		}
	}
	// The server routes to a, which the full push removed: the balancer answers 500.
	if got := get(t, proxyAddr(in), "shop.test", "/").status; got != 500 {
		t.Errorf("GET through a removed backend = %d, want 500", got)
	}
}
