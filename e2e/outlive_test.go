package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// load is a bounded load of clients that never retry: each request is a POST (Go's
// transport replays only idempotent requests) on kept-alive connections, so a request
// fails whenever nginx fails it, and a connection refused is a failure too.
type load struct {
	ok, failed atomic.Int64
	mu         sync.Mutex
	errs       []string
	stop       chan struct{}
	wg         sync.WaitGroup
}

// startLoad runs clients against host through the proxy of in until stopLoad, or until
// each client sent max requests or a minute passed.
func startLoad(in *instance, host string, clients, max int) *load {
	l := &load{stop: make(chan struct{})}
	proxy := in.Proxy
	deadline := time.Now().Add(time.Minute)
	for range clients {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer c.CloseIdleConnections()
			for i := 0; i < max && time.Now().Before(deadline); i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				req, _ := http.NewRequest("POST", proxy+"/load", strings.NewReader("x"))
				req.Host = host
				resp, err := c.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					l.failed.Add(1)
					l.mu.Lock()
					if len(l.errs) < 5 {
						l.errs = append(l.errs, err.Error())
					}
					l.mu.Unlock()
					continue
				}
				l.ok.Add(1)
			}
		}()
	}
	return l
}

// waitMore waits until n more requests succeeded than when it was called.
func (l *load) waitMore(t *testing.T, n int64, what string) {
	t.Helper()
	from := l.ok.Load()
	deadline := time.Now().Add(20 * time.Second)
	for l.ok.Load() < from+n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d requests succeeded in 20s, want %d (failed %d: %v)", what, l.ok.Load()-from, n, l.failed.Load(), l.errs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stopLoad ends the clients and fails the test if any request failed.
func (l *load) stopLoad(t *testing.T) {
	t.Helper()
	close(l.stop)
	l.wg.Wait()
	if f := l.failed.Load(); f != 0 {
		t.Fatalf("%d of %d requests failed, want none; first errors: %v", f, f+l.ok.Load(), l.errs)
	}
	t.Logf("%d requests, none failed", l.ok.Load())
}

func lastApplyMode(st map[string]any) any {
	last, _ := st["lastApply"].(map[string]any)
	return last["mode"]
}

// TestKilledRestyplaneLosesNoRequestAndIsAdopted: kill -9 of restyplane serve leaves its
// nginx serving; the next restyplane on the same data directory adopts that very master
// (no second nginx, no port clash, no reload when the conf in place is the head's) and
// drives it as before, dynamically and by reload.
func TestKilledRestyplaneLosesNoRequestAndIsAdopted(t *testing.T) {
	first := start(t)
	a, b, c := newUpstream(t, "a", 200, 0), newUpstream(t, "b", 200, 0), newUpstream(t, "c", 200, 0)
	first.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	first.must("POST", "/api/v1/backends", backend("other", c.endpoint(1)))
	first.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	first.waitSynced()
	first.wantFrom("shop.test", "/", "a")
	master := first.NginxPID()
	if master == 0 {
		t.Fatal("no nginx master in the pid file")
	}

	l := startLoad(first, "shop.test", 4, 20000)
	l.waitMore(t, 200, "before the kill")
	first.Kill()
	l.waitMore(t, 500, "while restyplane is dead")
	if got := first.NginxPID(); got != master {
		t.Fatalf("nginx master after kill -9 of restyplane = %d, want %d still running", got, master)
	}

	in := &instance{Process: first.Restart(t), t: t}
	st := in.waitSynced()
	l.waitMore(t, 200, "after the restart")
	l.stopLoad(t)
	if got := in.NginxPID(); got != master {
		t.Fatalf("nginx master after the restart = %d, want the adopted %d", got, master)
	}
	if m, _ := in.nginxPids(); m != master {
		t.Fatalf("nginx masters on the data directory: %d, want only %d", m, master)
	}
	// The conf in place is the head's: the first apply only pushes the dynamic state.
	if mode := lastApplyMode(st); mode != "full" {
		t.Fatalf("first apply after adoption was %v, want full (a push, no reload): %v", mode, st)
	}

	in.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{b.endpoint(1)}})
	if mode := lastApplyMode(in.waitSynced()); mode != "dynamic" {
		t.Fatalf("endpoint change applied as %v, want dynamic", mode)
	}
	in.wantFrom("shop.test", "/", "b")

	in.must("PUT", "/api/v1/servers/shop", server("shop", "shop.test", location("/", "web"), location("/c", "other")))
	if mode := lastApplyMode(in.waitSynced()); mode != "reload" {
		t.Fatalf("location change applied as %v, want reload", mode)
	}
	in.wantFrom("shop.test", "/c/x", "c")
	in.wantFrom("shop.test", "/", "b")
	if got := in.NginxPID(); got != master {
		t.Fatalf("nginx master after a reload = %d, want %d", got, master)
	}
}

// TestStopStopsNginxUnlessKeepRunning: SIGTERM stops the managed nginx; with
// --openresty-keep-running (here through its variable) it stays, and the next start
// adopts it.
func TestStopStopsNginxUnlessKeepRunning(t *testing.T) {
	first := start(t)
	a := newUpstream(t, "a", 200, 0)
	first.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	first.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	first.waitSynced()
	if first.NginxPID() == 0 {
		t.Fatal("no nginx master in the pid file")
	}
	first.Terminate()
	deadline := time.Now().Add(10 * time.Second)
	for {
		m, w := first.nginxPids()
		if m == 0 && len(w) == 0 && first.NginxPID() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after SIGTERM: nginx master %d workers %v still run", m, w)
		}
		time.Sleep(10 * time.Millisecond)
	}

	o := first.Options()
	o.Env = []string{"RESTYPLANE_OPENRESTY_KEEP_RUNNING=true"}
	kept := &instance{Process: rptest.Start(t, o), t: t}
	kept.wantFrom("shop.test", "/", "a")
	master := kept.NginxPID()
	kept.Terminate()
	if got := kept.NginxPID(); got != master || master == 0 {
		t.Fatalf("after SIGTERM with keep-running: nginx master %d, want %d still running", got, master)
	}
	kept.wantFrom("shop.test", "/", "a")

	again := &instance{Process: kept.Restart(t), t: t}
	again.waitSynced()
	if got := again.NginxPID(); got != master {
		t.Fatalf("nginx master after the restart = %d, want the adopted %d", got, master)
	}
	again.wantFrom("shop.test", "/", "a")
}
