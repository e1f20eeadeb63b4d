package nginx_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/openresty/render"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestReloadBringsInANewLocation(t *testing.T) {
	a, b := startUpstream(t, "a", 0), startUpstream(t, "b", 0)
	backends := []api.Backend{backend("ba", a), backend("bb", b)}
	in := startNginx(t, config(backends, server("shop", "shop.test", "/a", "ba")))
	push(t, in, 2, backends...)
	addr, master := proxyAddr(in), in.PID()
	if got := get(t, addr, "shop.test", "/b").status; got != 404 {
		t.Fatalf("/b before the reload = %d, want 404", got)
	}

	cfg := config(backends, server("shop", "shop.test", "/a", "ba", "/b", "bb"))
	conf, err := in.Render(cfg, "2")
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Reload(ctx(t), conf, nil, "2"); err != nil {
		t.Fatalf("reload: %v", err)
	}
	// Confirmed: every answer from now on comes from the new generation.
	if got := get(t, addr, "shop.test", "/b").upstream; got != "b" {
		t.Fatalf("/b after the reload went to %q, want b", got)
	}
	st, err := in.Admin().Status(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.Generation != "2" || in.Generation() != "2" || st.Backends != 2 {
		t.Fatalf("status = %+v, instance generation %q; want generation 2 with the 2 backends kept in shared memory", st, in.Generation())
	}
	if got := in.PID(); got != master {
		t.Fatalf("master pid = %d, want %d: a reload keeps the master", got, master)
	}

	// Reloading the same generation again (as after a restart) is confirmed by new
	// workers, not by the generation alone.
	before := workerPIDs(t, master)
	if err := in.Reload(ctx(t), conf, nil, "2"); err != nil {
		t.Fatalf("reload of the same generation: %v", err)
	}
	st, err = in.Admin().Status(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range before {
		if st.PID == pid {
			t.Fatalf("worker %d of the previous reload answered after the confirmed reload", pid)
		}
	}
}

func TestReloadRejectsAMismatchedKeyAndKeepsServing(t *testing.T) {
	up := startUpstream(t, "a", 0)
	certA, keyA, _ := selfSigned(t, "shop.test")
	certB, keyB, _ := selfSigned(t, "shop.test")
	good := api.Certificate{Name: "shop-tls", Cert: certA, Key: keyA}
	srv := server("shop", "shop.test", "/", "web")
	srv.TLS = &api.ServerTLS{Certificate: "shop-tls"}
	cfg := config([]api.Backend{backend("web", up)}, srv)
	cfg.Certificates = []api.Certificate{good}
	in := startNginx(t, cfg)
	push(t, in, 2, cfg.Backends...)
	before, _ := os.Readlink(filepath.Join(in.Prefix(), "conf"))

	// The same server with a certificate whose key belongs to another one.
	cfg.Certificates = []api.Certificate{{Name: "shop-tls", Cert: certA, Key: keyB}}
	srv.Locations = append(srv.Locations, api.Location{Path: "/new", Match: api.MatchPrefix, Backend: "web"})
	cfg.Servers = []api.Server{srv}
	conf, err := in.Render(cfg, "2")
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Test(ctx(t), conf, cfg.Certificates); err == nil || !strings.Contains(err.Error(), "key values mismatch") {
		t.Fatalf("test = %v, want nginx's key values mismatch", err)
	}
	err = in.Reload(ctx(t), conf, cfg.Certificates, "2")
	if err == nil || !strings.Contains(err.Error(), "key values mismatch") || !strings.Contains(err.Error(), "[emerg]") {
		t.Fatalf("reload = %v, want nginx's own [emerg] ... key values mismatch", err)
	}
	if after, _ := os.Readlink(filepath.Join(in.Prefix(), "conf")); after != before {
		t.Fatalf("conf link = %q, want the previous %q back", after, before)
	}
	if got := get(t, proxyAddr(in), "shop.test", "/"); got.status != 200 || got.upstream != "a" {
		t.Fatalf("after the rejected reload: %d from %q, want 200 from a", got.status, got.upstream)
	}
	if got := in.Generation(); got != "1" {
		t.Fatalf("generation = %q, want 1", got)
	}
	st, err := in.Admin().Status(ctx(t))
	if err != nil || st.Generation != "1" {
		t.Fatalf("status = %+v, %v; want generation 1", st, err)
	}
	if got := served(t, in, "shop.test").Subject.CommonName; got != "shop.test" {
		t.Fatalf("TLS still serves %q", got)
	}
	_ = certB
}

func TestReloadRefusedByTheMasterIsRestored(t *testing.T) {
	up := startUpstream(t, "a", 0)
	cfg := config([]api.Backend{backend("web", up)}, server("shop", "shop.test", "/", "web"))
	in := startNginx(t, cfg)
	push(t, in, 2, cfg.Backends...)

	// nginx -t accepts a listen address it cannot bind; only the master finds out.
	busy := startUpstream(t, "busy", 0)
	o := in.Options()
	o.ProxyListen = "127.0.0.1:" + itoa(busy.port)
	conf, err := render.Conf(cfg, o.RenderOptions("2"))
	if err != nil {
		t.Fatal(err)
	}
	err = in.Reload(ctx(t), conf, nil, "2")
	if err == nil || !strings.Contains(err.Error(), "bind()") {
		t.Fatalf("reload = %v, want the master's bind() error", err)
	}
	if got := get(t, proxyAddr(in), "shop.test", "/"); got.upstream != "a" {
		t.Fatalf("after the refused reload: %d from %q", got.status, got.upstream)
	}
	if st, err := in.Admin().Status(ctx(t)); err != nil || st.Generation != "1" {
		t.Fatalf("status = %+v, %v; want generation 1", st, err)
	}
}

func TestKilledMasterIsRestartedAndReported(t *testing.T) {
	up := startUpstream(t, "a", 0)
	cfg := config([]api.Backend{backend("web", up)}, server("shop", "shop.test", "/", "web"))
	in := startNginx(t, cfg)
	push(t, in, 2, cfg.Backends...)
	old := in.PID()
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-in.Restarted():
	case <-time.After(15 * time.Second):
		t.Fatal("no restart notification within 15s")
	}
	if got := in.PID(); got == old || got == 0 || in.State() != nginx.StateRunning {
		t.Fatalf("pid = %d (was %d), state %s; want a new running master", got, old, in.State())
	}
	st, err := in.Admin().Status(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 0 || st.Backends != 0 || st.Generation != "1" {
		t.Fatalf("status after restart = %+v, want generation 1 with empty shared memory (version 0)", st)
	}
	push(t, in, 2, cfg.Backends...)
	if got := get(t, proxyAddr(in), "shop.test", "/").upstream; got != "a" {
		t.Fatalf("after restart and push: upstream %q, want a", got)
	}
	if n := len(workerPIDs(t, old)); n != 0 {
		t.Fatalf("%d workers of the killed master still run", n)
	}
}

func TestAttachReloadsAnNginxStartedElsewhere(t *testing.T) {
	a, b := startUpstream(t, "a", 0), startUpstream(t, "b", 0)
	backends := []api.Backend{backend("ba", a), backend("bb", b)}
	managed := startNginx(t, config(backends, server("shop", "shop.test", "/a", "ba")))

	attached, err := nginx.Attach(ctx(t), managed.Options())
	if err != nil {
		t.Fatalf("attach: %v", err)
	}
	defer attached.Stop(ctx(t))
	if attached.State() != nginx.StateAttached || attached.PID() != managed.PID() || attached.Generation() != "1" {
		t.Fatalf("attached: state %s pid %d generation %q", attached.State(), attached.PID(), attached.Generation())
	}
	conf, err := attached.Render(config(backends, server("shop", "shop.test", "/a", "ba", "/b", "bb")), "2")
	if err != nil {
		t.Fatal(err)
	}
	if err := attached.Reload(ctx(t), conf, nil, "2"); err != nil {
		t.Fatalf("reload by signal: %v", err)
	}
	if _, err := attached.Push(ctx(t), 3, render.Push{Backends: backends}); err != nil {
		t.Fatal(err)
	}
	if got := get(t, proxyAddr(attached), "shop.test", "/b").upstream; got != "b" {
		t.Fatalf("/b went to %q after the attached reload", got)
	}
}
