package nginx_test

import (
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/openresty/render"
)

// A push sent with SendPush takes effect before anyone reads its answer; the answer, read
// later, says when nginx stored it, and carries the counters for the next Counters, as
// Push's does. Only a push of backends alone, not a full one, is sent so.
func TestSendPushAnswerReadLater(t *testing.T) {
	a, b := startUpstream(t, "a", 0), startUpstream(t, "b", 0)
	web := backend("web", a)
	in := startNginxWith(t, config([]api.Backend{web}, server("one", "one.test", "/", "web")),
		func(o *nginx.Options) { o.CountersWithPush = true })
	push(t, in, 2, web)
	moved := backend("web", b)
	p := render.Push{Backends: []api.Backend{moved}}
	if !in.SendsLater(p) {
		t.Fatal("SendsLater refuses a push of one backend")
	}
	for _, other := range []render.Push{{Backends: p.Backends, Full: true}, {Backends: p.Backends, DeletedCerts: []string{"c"}}, {}} {
		if in.SendsLater(other) {
			t.Errorf("SendsLater takes %+v, which is not backends alone", other)
		}
	}
	before := time.Now()
	sent, err := in.SendPush(ctx(t), 3, p)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "traffic moved before the answer was read", 5*time.Second, func() bool {
		return get(t, proxyAddr(in), "one.test", "/").upstream == "b"
	})
	read := time.Now()
	skipped, applied, err := sent.Answer(ctx(t))
	if err != nil || len(skipped) != 0 {
		t.Fatalf("answer: skipped %v, %v", skipped, err)
	}
	if applied.Before(before.Add(-time.Millisecond)) || applied.After(read) {
		t.Errorf("applied at %s, want between the send (%s) and the read (%s)", applied.Format(time.StampMicro), before.Format(time.StampMicro), read.Format(time.StampMicro))
	}
	c, err := in.Counters(ctx(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c["web"].Requests, int64(0); got != want {
		t.Errorf("Counters after the push: web requests = %d, want %d, as the push's answer counted them", got, want)
	}
	// The connection serves the next push, and Push goes on its own as before.
	if sent, err = in.SendPush(ctx(t), 4, render.Push{Backends: []api.Backend{web}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sent.Answer(ctx(t)); err != nil {
		t.Fatal(err)
	}
	push(t, in, 5, moved)
	if got := get(t, proxyAddr(in), "one.test", "/").upstream; got != "b" {
		t.Errorf("after the pushes, traffic goes to %q, want b", got)
	}
}
