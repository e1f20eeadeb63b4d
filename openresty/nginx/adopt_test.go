package nginx_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// An instance with KeepRunning leaves nginx serving at Stop; the next instance on the
// prefix adopts that master (same pid), reloads it to the conf it is given, and
// supervises it although it is not its child: killed, it is restarted, and Restarted
// fires.
func TestStartAdoptsTheRunningNginxAndSupervisesIt(t *testing.T) {
	o := instanceOptions(t)
	o.KeepRunning = true
	up := startUpstream(t, "a", 0)
	cfg := config([]api.Backend{backend("web", up)}, server("shop", "shop.test", "/", "web"))
	first := nginx.NewInstance(o)
	conf, err := first.Render(cfg, "3")
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(ctx(t), conf, nil, "3"); err != nil {
		t.Fatal(err)
	}
	master := first.PID()
	if err := first.Stop(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(master, 0); err != nil {
		t.Fatalf("nginx master %d after Stop with KeepRunning: %v, want it running", master, err)
	}

	o.KeepRunning = false
	in := nginx.NewInstance(o)
	t.Cleanup(func() { in.Stop(ctx(t)) })
	conf4, err := in.Render(cfg, "4")
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx(t), conf4, nil, "4"); err != nil {
		t.Fatal(err)
	}
	if in.PID() != master || in.State() != nginx.StateRunning || in.Generation() != "4" {
		t.Fatalf("adopted: pid %d state %s generation %q, want %d running 4", in.PID(), in.State(), in.Generation(), master)
	}
	if got, gen := in.ConfInPlace(); string(got) != string(conf4) || gen != "4" {
		t.Fatalf("conf in place: generation %q, want the one given to Start, 4", gen)
	}

	syscall.Kill(master, syscall.SIGKILL)
	select {
	case <-in.Restarted():
	case <-time.After(30 * time.Second):
		t.Fatalf("the adopted master %d was killed and not restarted (state %s)", master, in.State())
	}
	if in.PID() == master || in.PID() == 0 || in.State() != nginx.StateRunning || in.Generation() != "4" {
		t.Fatalf("after the kill: pid %d state %s generation %q, want a new master running 4", in.PID(), in.State(), in.Generation())
	}
	restarted := in.PID()
	if err := in.Stop(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(restarted, 0); err == nil {
		t.Fatalf("nginx master %d still runs after Stop", restarted)
	}
}
