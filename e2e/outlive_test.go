package e2e

import (
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

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

	l := startLoad([]string{first.Proxy}, "shop.test", 4, 20000)
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
