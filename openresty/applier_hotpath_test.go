package openresty

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/store"
)

// orderProxy is a fakeProxy that logs its pushes and counter reads, each with the head
// revision of the moment.
type orderProxy struct {
	*fakeProxy
	store *store.Store
	mu    sync.Mutex
	calls []proxyCall
}

type proxyCall struct {
	what string
	head int64
}

func (o *orderProxy) Push(ctx context.Context, version int64, p Push) ([]api.SkippedObject, error) {
	o.log("push", version)
	return o.fakeProxy.Push(ctx, version, p)
}

func (o *orderProxy) Counters(ctx context.Context, epoch int64) (map[string]Counter, error) {
	o.log("counters", o.store.Head().Revision)
	return o.fakeProxy.Counters(ctx, epoch)
}

func (o *orderProxy) log(what string, head int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, proxyCall{what, head})
}

// TestApplierPushesBeforeReadingCounters: a new revision that arrives while the health
// watch runs goes out first; the watch's look at the counters, a round trip into a busy
// worker, does not delay it.
func TestApplierPushesBeforeReadingCounters(t *testing.T) {
	s := openStore(t)
	p := &orderProxy{fakeProxy: &fakeProxy{restarted: make(chan struct{}), counters: map[string]Counter{}}, store: s}
	if got := mustWrite(t, s, web(8001), shop("/")); got != 1 {
		t.Fatalf("first revision %d, want 1", got)
	}
	a := NewApplier(s, p, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), "test")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	applied := func(rev int64) func() bool {
		return func() bool { return a.Status(context.Background()).Applied == rev }
	}
	waitFor(t, "the first revision", applied(1))
	watched := mustWrite(t, s, web(8002))
	// The default settings watch every apply that touches a server's traffic.
	waitFor(t, "the watch of the second revision", func() bool { return a.Status(context.Background()).Watching == watched })
	next := mustWrite(t, s, web(8003))
	waitFor(t, "the third revision", applied(next))
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.calls {
		if c.what == "push" && c.head == next {
			return
		}
		if c.what == "counters" && c.head == next {
			t.Fatalf("the applier read the counters at revision %d before pushing it: %v", next, p.calls)
		}
	}
	t.Fatalf("revision %d was never pushed: %v", next, p.calls)
}

var _ Proxy = (*orderProxy)(nil)
