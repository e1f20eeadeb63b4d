package openresty

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// renderingProxy is fakeProxy with the real renderer, so that the plan compares real confs.
type renderingProxy struct{ *fakeProxy }

func (r renderingProxy) RenderSized(cfg api.Config, dicts render.DictSizes, gen string) ([]byte, error) {
	return render.Conf(cfg, render.Options{Generation: gen, Prefix: "/srv/restyplane", ProxyListen: "127.0.0.1:8080",
		TLSListen: "127.0.0.1:8443", Dicts: dicts})
}

// guarded is shop with one location "/" that carries access and limits.
func guarded(access *api.AccessPolicy, limits *api.LocationLimits) api.Mutation {
	m := shop("/")
	m.Server.Locations[0].Access, m.Server.Locations[0].Limits = access, limits
	return m
}

// TestApplierPolicyModes: the plan says which policy changes reload and which push (the
// README's table): a location's first policy reloads and pushes it before; a list or a
// rate change is a dynamic push of that policy alone; limit_rate reloads; removing the
// last policy reloads and deletes it after the reload.
func TestApplierPolicyModes(t *testing.T) {
	s := openStore(t)
	p := &fakeProxy{restarted: make(chan struct{})}
	mustWrite(t, s, web(8001))
	mustWrite(t, s, shop("/"))
	a := NewApplier(s, renderingProxy{p}, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), "test")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "first apply", func() bool { return a.Status(context.Background()).InSync })
	step := func(what, mode string, m api.Mutation) render.Push {
		t.Helper()
		_, before := p.count()
		rev := mustWrite(t, s, m)
		waitFor(t, what, func() bool { return a.Status(context.Background()).Applied == rev })
		if got := a.Status(context.Background()).LastApply.Mode; got != mode {
			t.Fatalf("%s: mode %q, want %q", what, got, mode)
		}
		_, after := p.count()
		var all render.Push
		for _, x := range p.pushes[before:after] {
			all.Policies = append(all.Policies, x.Policies...)
			all.DeletedPolicies = append(all.DeletedPolicies, x.DeletedPolicies...)
		}
		return all
	}
	allow := func(cidrs ...string) *api.AccessPolicy { return &api.AccessPolicy{Allow: cidrs} }
	got := step("first policy", api.ModeReload, guarded(allow("10.0.0.0/8"), nil))
	if len(got.Policies) != 1 || got.Policies[0].Name != "shop/0" || !cmp.Equal(got.Policies[0].Allow, []string{"4:0a/8"}) {
		t.Fatalf("first policy pushed %+v, want shop/0 allowing 4:0a/8", got)
	}
	got = step("list change", api.ModeDynamic, guarded(allow("10.0.0.0/8", "2001:db8::/32", "192.168.1.7"), nil))
	if len(got.Policies) != 1 || !cmp.Equal(got.Policies[0].Allow, []string{"4:0a/8", "6:20010db8/32", "4:c0a80107/32"}) {
		t.Fatalf("list change pushed %+v", got)
	}
	got = step("rate added", api.ModeDynamic, guarded(allow("10.0.0.0/8"), &api.LocationLimits{RPS: 5, Exempt: []string{"::1"}}))
	if len(got.Policies) != 1 || got.Policies[0].RPS != 5 || got.Policies[0].Status != 429 || got.Policies[0].BurstMultiplier != 5 {
		t.Fatalf("rate change pushed %+v", got)
	}
	step("bandwidth", api.ModeReload, guarded(allow("10.0.0.0/8"), &api.LocationLimits{RPS: 5, Rate: "100k"}))
	got = step("last policy removed", api.ModeReload, shop("/"))
	if len(got.Policies) != 0 || !cmp.Equal(got.DeletedPolicies, []string{"shop/0"}) {
		t.Fatalf("removing the policy pushed %+v, want the deletion of shop/0", got)
	}
	if last := p.pushes[len(p.pushes)-1]; !cmp.Equal(last.DeletedPolicies, []string{"shop/0"}) {
		t.Fatalf("the deletion was not the last push (after the reload): %+v", last)
	}
}
