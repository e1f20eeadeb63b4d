package nginx_test

import (
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/openresty/render"
)

// An agent reports the backend counters after every apply. With CountersWithPush the
// push's own answer carries them, and the next Counters for the pushed revision returns
// those instead of a second round trip into the worker; the read after it asks again.
func TestPushAnswerCarriesBackendCounters(t *testing.T) {
	up := startUpstream(t, "a", 0)
	b := backend("web", up)
	in := startNginxWith(t, config([]api.Backend{b}, server("one", "one.test", "/", "web")),
		func(o *nginx.Options) { o.CountersWithPush = true })
	// pushThenRequest pushes b at version, then sends one request through the proxy and
	// waits until the admin endpoint counted want requests in all.
	pushThenRequest := func(version, want int64) {
		t.Helper()
		if _, err := in.Push(ctx(t), version, render.Push{Backends: []api.Backend{b}}); err != nil {
			t.Fatalf("push: %v", err)
		}
		get(t, proxyAddr(in), "one.test", "/ok")
		eventually(t, "the admin endpoint counts the request", 5*time.Second, func() bool {
			c, err := in.Admin().BackendCounters(ctx(t), 3)
			return err == nil && c["web"].Requests == want
		})
	}
	// Each push answers before its request, so its counters hold one request fewer than
	// the admin endpoint's by then.
	pushThenRequest(2, 1)
	b.Endpoints[0].Weight = 2
	pushThenRequest(3, 2)
	c, err := in.Counters(ctx(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c["web"].Requests, int64(1); got != want {
		t.Fatalf("first Counters after the push: web requests = %d, want %d (the push's answer, no second read)", got, want)
	}
	c, err = in.Counters(ctx(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c["web"].Requests, int64(2); got != want {
		t.Fatalf("second Counters: web requests = %d, want %d (read again)", got, want)
	}
	// Another epoch than the push's is always read from the worker.
	if _, err := in.Push(ctx(t), 4, render.Push{Backends: []api.Backend{b}}); err != nil {
		t.Fatalf("push: %v", err)
	}
	get(t, proxyAddr(in), "one.test", "/ok")
	eventually(t, "Counters of another epoch reads again", 5*time.Second, func() bool {
		c, err := in.Counters(ctx(t), 5)
		return err == nil && c["web"].Requests == 3
	})
}

// Without CountersWithPush (serve's own instance, whose rollback watcher reads the
// counters and moves the epoch) a push leaves the counting epoch alone and Counters always reads.
func TestPushWithoutCountersLeavesEpoch(t *testing.T) {
	up := startUpstream(t, "a", 0)
	b := backend("web", up)
	in := startNginx(t, config([]api.Backend{b}, server("one", "one.test", "/", "web")))
	if _, err := in.Counters(ctx(t), 7); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Push(ctx(t), 9, render.Push{Backends: []api.Backend{b}}); err != nil {
		t.Fatalf("push: %v", err)
	}
	if got := get(t, proxyAddr(in), "one.test", "/fail").status; got != 500 {
		t.Fatalf("/fail = %d", got)
	}
	// The failing client counts in epoch 7, which the push did not move.
	eventually(t, "the failure counts in epoch 7", 5*time.Second, func() bool {
		c, err := in.Counters(ctx(t), 7)
		return err == nil && c["web"].Requests == 1 && c["web"].Clients == 1
	})
}
