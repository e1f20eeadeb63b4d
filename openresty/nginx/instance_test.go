package nginx_test

import (
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

func TestCheckBinaryNamesWhatIsMissing(t *testing.T) {
	o := nginx.Detect()
	o.Binary = "/nonexistent/nginx"
	if err := o.CheckBinary(); err == nil || !strings.Contains(err.Error(), "install") {
		t.Fatalf("missing binary: %v, want a message that says what to install", err)
	}
	o = nginx.Detect()
	o.Modules = append(o.Modules, "/nonexistent/ngx_http_lua_module.so")
	if err := o.CheckBinary(); err == nil || !strings.Contains(err.Error(), "libnginx-mod-http-lua") {
		t.Fatalf("missing module: %v, want a message that says what to install", err)
	}
}

// instanceOptions returns options for a fresh prefix with free ports.
func instanceOptions(t *testing.T) nginx.Options {
	t.Helper()
	o := nginx.Detect()
	if err := o.CheckBinary(); err != nil {
		t.Fatalf("this test needs a real nginx with the Lua module (run hack/install.sh): %v", err)
	}
	o.Prefix = t.TempDir()
	o.ProxyListen = "127.0.0.1:" + strconv.Itoa(freePort(t))
	o.TLSListen = "127.0.0.1:" + strconv.Itoa(freePort(t))
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	return o
}

func TestStartWithoutConfAndRestartWithTheLastGoodOne(t *testing.T) {
	o := instanceOptions(t)
	in := nginx.NewInstance(o)
	if err := in.Start(ctx(t), nil, nil, ""); err != nil {
		t.Fatal(err)
	}
	if in.State() != nginx.StateRunning || in.Generation() != "0" {
		t.Fatalf("state %s generation %q, want running 0", in.State(), in.Generation())
	}
	if got := get(t, o.ProxyListen, "any.test", "/").status; got != 404 {
		t.Fatalf("empty config answered %d, want 404", got)
	}
	fi, err := os.Stat(nginx.SocketPath(in.Prefix()))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("admin socket mode = %v, %v; want 0600", fi.Mode(), err)
	}
	up := startUpstream(t, "a", 0)
	cfg := config([]api.Backend{backend("web", up)}, server("shop", "shop.test", "/", "web"))
	conf, err := in.Render(cfg, "5")
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Reload(ctx(t), conf, nil, "5"); err != nil {
		t.Fatal(err)
	}
	if err := in.Stop(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if in.State() != nginx.StateStopped {
		t.Fatalf("state after stop = %s", in.State())
	}

	// A new instance on the same prefix comes up with the last good conf at once.
	again := nginx.NewInstance(o)
	if err := again.Start(ctx(t), nil, nil, ""); err != nil {
		t.Fatal(err)
	}
	defer again.Stop(ctx(t))
	if got := again.Generation(); got != "5" {
		t.Fatalf("generation after restart = %q, want the last good 5", got)
	}
}

func TestStartFailsWithNginxsMessage(t *testing.T) {
	o := instanceOptions(t)
	busy := startUpstream(t, "busy", 0)
	o.ProxyListen = "127.0.0.1:" + strconv.Itoa(busy.port)
	in := nginx.NewInstance(o)
	err := in.Start(ctx(t), nil, nil, "")
	if err == nil {
		in.Stop(ctx(t))
		t.Fatal("nginx started on a port that is taken")
	}
	if !strings.Contains(err.Error(), "bind()") {
		t.Fatalf("start = %v, want nginx's bind() message", err)
	}
	if in.State() != nginx.StateStopped {
		t.Fatalf("state = %s, want stopped", in.State())
	}
}
