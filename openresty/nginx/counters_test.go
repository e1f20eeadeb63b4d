package nginx_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

func TestCountersCount5xxPerServer(t *testing.T) {
	up := startUpstream(t, "a", 0)
	backends := []api.Backend{backend("web", up)}
	in := startNginx(t, config(backends, server("one", "one.test", "/", "web"), server("two", "two.test", "/", "web")))
	push(t, in, 2, backends...)
	for i := 0; i < 5; i++ {
		get(t, proxyAddr(in), "one.test", "/ok")
	}
	for i := 0; i < 3; i++ {
		if got := get(t, proxyAddr(in), "one.test", "/fail").status; got != 500 {
			t.Fatalf("/fail = %d", got)
		}
	}
	get(t, proxyAddr(in), "two.test", "/ok")
	get(t, proxyAddr(in), "two.test", "/ok")
	get(t, proxyAddr(in), "nobody.test", "/") // the default server counts for no one

	want := map[string]nginx.Counter{"one": {Requests: 8, Errors: 3}, "two": {Requests: 2}}
	var got map[string]nginx.Counter
	// The log phase runs after the answer is sent, so the last count may lag a moment.
	eventually(t, "counters", 5*time.Second, func() bool {
		var err error
		got, err = in.Admin().Counters(ctx(t))
		return err == nil && cmp.Equal(got, want)
	})
	// Per backend: requests that reached an upstream, the upstream's 5xx, and the distinct
	// clients among those (all from 127.0.0.1 here), counted in epoch 0 until one is set.
	wantB := map[string]nginx.Counter{"web": {Requests: 10, Errors: 3, Clients: 1}}
	eventually(t, "backend counters", 5*time.Second, func() bool {
		var err error
		got, err = in.Counters(ctx(t), 0)
		return err == nil && cmp.Equal(got, wantB)
	})
	if got, err := in.Counters(ctx(t), 7); err != nil || got["web"].Clients != 0 {
		t.Fatalf("a new epoch counts no client yet: %v %v", got, err)
	}
	ss, err := in.Admin().StubStatus(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	// The admin calls above count too; every proxied request is in.
	if ss.Requests < 11 || ss.Active < 1 || ss.Accepted < ss.Active {
		t.Fatalf("stub_status = %+v, want at least the 11 proxied requests and this connection", ss)
	}
}
