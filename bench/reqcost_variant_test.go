package bench

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/rptest"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/openresty/render"
	"github.com/restyplane/restyplane/server"
)

// costVariant is restyplane's nginx.conf for the benchmark's routes with one part of the
// per-request work taken out, to measure that part's share: edit rewrites the conf as
// rendered, and fails when the conf no longer holds what it removes.
type costVariant struct {
	name string
	edit func(conf string) (string, bool)
}

// cut removes the block that starts with open and ends at the next close.
func cut(open, close string) func(string) (string, bool) {
	return func(conf string) (string, bool) {
		i := strings.Index(conf, open)
		if i < 0 {
			return conf, false
		}
		j := strings.Index(conf[i:], close)
		if j < 0 {
			return conf, false
		}
		return conf[:i] + conf[i+j+len(close):], true
	}
}

// apiConfig is a REST config as the API stores it: normalized, certificates read.
func apiConfig(tb testing.TB, req server.ConfigRequest) api.Config {
	tb.Helper()
	cfg := api.Config{Settings: *req.Settings, Backends: req.Backends, Servers: req.Servers, Certificates: req.Certificates}
	for i := range cfg.Servers {
		cfg.Servers[i].Normalize()
	}
	for i := range cfg.Certificates {
		if err := cfg.Certificates[i].Validate(true); err != nil {
			tb.Fatal(err)
		}
	}
	return cfg
}

// startCostVariant runs the instance mechanism restyplane's applier drives (render,
// nginx -t, start, push), with the conf edited by v, on free loopback ports; set, when not
// nil, changes the instance's options.
func startCostVariant(tb testing.TB, cfg api.Config, v costVariant, set func(*nginx.Options)) costTarget {
	tb.Helper()
	o := nginx.Detect()
	if err := o.CheckBinary(); err != nil {
		tb.Fatalf("this benchmark needs nginx with the Lua module (hack/install.sh): %v", err)
	}
	dir := tb.TempDir()
	o.Prefix, o.Logger = dir, slog.New(slog.NewTextHandler(io.Discard, nil))
	o.ProxyListen = "127.0.0.1:" + strconv.Itoa(rptest.FreePort(tb))
	o.TLSListen = "127.0.0.1:" + strconv.Itoa(rptest.FreePort(tb))
	if set != nil {
		set(&o)
	}
	in := nginx.NewInstance(o)
	conf, err := in.Render(cfg, "1")
	if err != nil {
		tb.Fatal(err)
	}
	text := string(conf)
	if v.edit != nil {
		var ok bool
		if text, ok = v.edit(text); !ok {
			tb.Fatalf("variant %q: the rendered conf does not hold what it takes out", v.name)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := in.Start(ctx, []byte(text), cfg.Certificates, "1"); err != nil {
		tb.Fatalf("variant %q: start nginx: %v", v.name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		in.Stop(ctx)
	})
	push := render.Push{Full: true, Backends: cfg.Backends, Certificates: cfg.Certificates}
	for i := range cfg.Servers {
		p, err := render.ServerPolicies(&cfg.Servers[i])
		if err != nil {
			tb.Fatal(err)
		}
		push.Policies = append(push.Policies, p...)
	}
	if _, err := in.Push(ctx, 1, push); err != nil {
		tb.Fatalf("variant %q: push: %v", v.name, err)
	}
	return costTarget{name: v.name, http: o.ProxyListen, https: o.TLSListen, master: in.PID()}
}
