package rptest

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// StartNginx starts a real nginx with the Lua module for cfg, in a fresh prefix, as
// generation "1", on free loopback ports; set, when not nil, changes the options before
// the start. It fails, never skips, when nginx or the Lua module is missing, and stops
// nginx when the test ends.
func StartNginx(t *testing.T, cfg api.Config, set func(*nginx.Options)) *nginx.Instance {
	t.Helper()
	o := nginx.Detect()
	if err := o.CheckBinary(); err != nil {
		t.Fatalf("this test needs a real nginx with the Lua module (run hack/install.sh): %v", err)
	}
	// The prefix as t.TempDir makes it (0700): what workers must reach goes to a worker
	// directory, as with a user's default layout.
	o.Prefix = t.TempDir()
	o.ProxyListen = "127.0.0.1:" + strconv.Itoa(FreePort(t))
	o.TLSListen = "127.0.0.1:" + strconv.Itoa(FreePort(t))
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	o.ReloadTimeout = 5 * time.Second
	if set != nil {
		set(&o)
	}
	in := nginx.NewInstance(o)
	conf, err := in.Render(cfg, "1")
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := in.Start(ctx, conf, cfg.Certificates, "1"); err != nil {
		t.Fatalf("start nginx (is the Lua module installed? hack/install.sh installs it): %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := in.Stop(ctx); err != nil {
			t.Errorf("stop nginx: %v", err)
		}
	})
	return in
}
