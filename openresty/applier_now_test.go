package openresty

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// TestApplyNowOnlyDynamic: ApplyNow pushes a change of endpoints on the caller's goroutine,
// and leaves a change that needs a reload to Run's step.
func TestApplyNowOnlyDynamic(t *testing.T) {
	s := openStore(t)
	p := &fakeProxy{restarted: make(chan struct{})}
	mustWrite(t, s, web(8001), shop("/"))
	a := NewApplier(s, p, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), "test")
	ctx := context.Background()
	a.ApplyNow(ctx) // nothing runs yet: the first apply is Run's
	if got := a.Status(ctx).Applied; got != 0 {
		t.Fatalf("applied %d before the first step, want 0", got)
	}
	a.step(ctx, false)
	p.mu.Lock()
	reloads := p.reloads
	p.mu.Unlock()

	dynamic := mustWrite(t, s, web(8002))
	a.ApplyNow(ctx)
	if got := a.Status(ctx).Applied; got != dynamic {
		t.Fatalf("applied %d after ApplyNow, want %d", got, dynamic)
	}
	reload := mustWrite(t, s, shop("/", "/x"))
	a.ApplyNow(ctx)
	if got := a.Status(ctx).Applied; got != dynamic {
		t.Fatalf("ApplyNow applied %d, which needs a reload; want %d still", got, dynamic)
	}
	// The reload may wait for the minimum interval since the first apply's.
	for i := 0; i < 100 && a.Status(ctx).Applied != reload; i++ {
		time.Sleep(a.step(ctx, false))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if got := a.Status(ctx).Applied; got != reload {
		t.Fatalf("applied %d after the step, want %d", got, reload)
	}
	if got, want := p.reloads, reloads+1; got != want {
		t.Fatalf("%d reloads, want %d", got, want)
	}
}
