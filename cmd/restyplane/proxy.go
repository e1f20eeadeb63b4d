package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/metrics"
	"github.com/restyplane/restyplane/openresty"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/server"
	"github.com/restyplane/restyplane/store"
)

// The applier is what the server asks for status and dry runs, and the store is what the
// applier reads; the guards keep both consumer interfaces honest.
var (
	_ server.Applier    = (*openresty.Applier)(nil)
	_ openresty.Store   = (*store.Store)(nil)
	_ openresty.Proxy   = (*nginx.Instance)(nil)
	_ openresty.Metrics = (*metrics.ApplyMetrics)(nil)
)

// OpenResty modes: restyplane starts and supervises nginx, adopts one that something else
// started, or runs the API alone.
const (
	modeManaged = "managed"
	modeAttach  = "attach"
	modeOff     = "off"
)

// proxyConfig is the OpenResty part of `restyplane serve`.
type proxyConfig struct {
	mode              string
	listen            string
	tlsListen         string
	prefix            string
	binary            string
	modules           string
	luaPath           string
	streamModule      string
	streamJSModule    string
	modSecurityModule string
	user              string
	keep              bool
	reusePort         bool
	logs              string
	// migrateReq is the sysctl file that says whether the kernel hands over the
	// connections of a closing listening socket (nginx.MigrateReqSysctl; tests set it).
	migrateReq string
	// reserved is the port restyplane's own listener (--listen) takes, which no server
	// may take as its own port.
	reserved []int
}

func (c *proxyConfig) flags(fs *flag.FlagSet) {
	d := nginx.Detect()
	fs.StringVar(&c.mode, "openresty", env("RESTYPLANE_OPENRESTY", modeManaged),
		"managed (start and supervise nginx), attach (adopt the nginx running in --openresty-prefix) or off (env RESTYPLANE_OPENRESTY)")
	fs.StringVar(&c.listen, "proxy-listen", env("RESTYPLANE_PROXY_LISTEN", "127.0.0.1:8080"),
		"address the proxy serves HTTP on (env RESTYPLANE_PROXY_LISTEN)")
	fs.StringVar(&c.tlsListen, "tls-listen", env("RESTYPLANE_PROXY_TLS_LISTEN", "127.0.0.1:8443"),
		"address the proxy serves HTTPS on (env RESTYPLANE_PROXY_TLS_LISTEN)")
	fs.StringVar(&c.prefix, "openresty-prefix", env("RESTYPLANE_OPENRESTY_PREFIX", ""),
		"the instance's prefix directory (default <data-dir>/openresty) (env RESTYPLANE_OPENRESTY_PREFIX)")
	fs.StringVar(&c.binary, "nginx-binary", env("RESTYPLANE_NGINX_BINARY", d.Binary),
		"the openresty or nginx executable (detected) (env RESTYPLANE_NGINX_BINARY)")
	fs.StringVar(&c.modules, "nginx-modules", env("RESTYPLANE_NGINX_MODULES", strings.Join(d.Modules, ",")),
		"comma-separated dynamic modules to load, in order (detected) (env RESTYPLANE_NGINX_MODULES)")
	fs.StringVar(&c.streamModule, "nginx-stream-module", env("RESTYPLANE_NGINX_STREAM_MODULE", d.StreamModule),
		"the stream module to load when a server passes TLS through, empty when built in (detected) (env RESTYPLANE_NGINX_STREAM_MODULE)")
	fs.StringVar(&c.streamJSModule, "nginx-stream-js-module", env("RESTYPLANE_NGINX_STREAM_JS_MODULE", d.StreamJSModule),
		"njs's stream module, loaded when a plain port serves gRPC (h2c) beside HTTP/1.1, empty when built in (detected) (env RESTYPLANE_NGINX_STREAM_JS_MODULE)")
	fs.StringVar(&c.modSecurityModule, "nginx-modsecurity-module", env("RESTYPLANE_NGINX_MODSECURITY_MODULE", d.ModSecurityModule),
		"the ModSecurity module to load when a location has a WAF policy (detected) (env RESTYPLANE_NGINX_MODSECURITY_MODULE)")
	fs.StringVar(&c.luaPath, "lua-path", env("RESTYPLANE_LUA_PATH", d.LuaPath),
		"extra lua_package_path entries for lua-resty-core and cjson (detected) (env RESTYPLANE_LUA_PATH)")
	fs.StringVar(&c.user, "nginx-user", env("RESTYPLANE_NGINX_USER", ""),
		"user nginx workers run as when restyplane runs as root (env RESTYPLANE_NGINX_USER)")
	fs.StringVar(&c.logs, "nginx-logs", env("RESTYPLANE_NGINX_LOGS", "files"),
		"files: nginx's logs in <prefix>/logs, each rotated past 64 MiB; stdout: to restyplane's stdout and stderr, the container convention (the image sets it) (env RESTYPLANE_NGINX_LOGS)")
	fs.BoolVar(&c.reusePort, "reuse-port", env("RESTYPLANE_REUSE_PORT", "false") == "true",
		"true gives each nginx worker a listening socket of its own (reuseport), where net.ipv4.tcp_migrate_req is 1 (env RESTYPLANE_REUSE_PORT)")
	fs.BoolVar(&c.keep, "openresty-keep-running", env("RESTYPLANE_OPENRESTY_KEEP_RUNNING", "false") == "true",
		"leave the managed nginx running at SIGTERM or SIGINT, for an upgrade: the next start adopts it (env RESTYPLANE_OPENRESTY_KEEP_RUNNING)")
}

// options turns the flags into the instance's options.
func (c *proxyConfig) options(dataDir string, log *slog.Logger) (nginx.Options, error) {
	o := nginx.Detect()
	o.Binary, o.LuaPath, o.User, o.StreamModule = c.binary, c.luaPath, c.user, c.streamModule
	o.ModSecurityModule, o.StreamJSModule = c.modSecurityModule, c.streamJSModule
	o.Modules = nil
	for _, m := range strings.Split(c.modules, ",") {
		if m = strings.TrimSpace(m); m != "" {
			o.Modules = append(o.Modules, m)
		}
	}
	o.ProxyListen, o.TLSListen, o.Logger, o.KeepRunning = c.listen, c.tlsListen, log, c.keep
	o.ReservedPorts = c.reserved
	if c.reusePort {
		// Without the kernel's hand-over, a reload to fewer workers would reset the
		// connections waiting on the sockets of the workers it removes.
		if path := cmp.Or(c.migrateReq, nginx.MigrateReqSysctl); nginx.MigratesRequests(path) {
			o.ReusePort = true
			log.Info("each nginx worker listens on a socket of its own (reuseport)")
		} else {
			log.Warn("--reuse-port needs net.ipv4.tcp_migrate_req=1, which is not set: the workers share one listening socket per address", "sysctl", path)
		}
	}
	switch c.logs {
	case "files":
	case "stdout":
		o.LogsTo = os.Stdout
	default:
		return o, fmt.Errorf("--nginx-logs %q: want files or stdout", c.logs)
	}
	prefix := c.prefix
	if prefix == "" {
		prefix = filepath.Join(dataDir, "openresty")
	}
	abs, err := filepath.Abs(prefix)
	if err != nil {
		return o, fmt.Errorf("openresty prefix %q: %w", prefix, err)
	}
	o.Prefix = abs
	return o, nil
}

// proxy is a running instance with its applier.
type proxy struct {
	instance *nginx.Instance
	applier  *openresty.Applier
	cancel   context.CancelFunc
	metrics  *metrics.ApplyMetrics
	done     chan struct{}
}

// managedName is serve's own instance in the applies and the rollback reasons.
const managedName = "default"

// counterSource reads the managed instance's per-backend counters for the rollback
// watcher, the distinct clients counted for the revision it serves.
func (p *proxy) counterSource(ctx context.Context) (int64, map[string]api.BackendCounter, error) {
	applied := p.applier.Status(ctx).Applied
	c, err := p.instance.Counters(ctx, applied)
	if err != nil {
		return 0, nil, err
	}
	return applied, backendCounters(c), nil
}

// backendCounters converts the admin endpoint's counters into the report's.
func backendCounters(c map[string]nginx.Counter) map[string]api.BackendCounter {
	out := make(map[string]api.BackendCounter, len(c))
	for k, v := range c {
		out[k] = api.BackendCounter{Requests: v.Requests, Errors: v.Errors, Clients: v.Clients}
	}
	return out
}

// portOf is the port of a host:port address, none when it has no numeric one.
func portOf(addr string) []int {
	_, p, err := net.SplitHostPort(addr)
	if n, err2 := strconv.Atoi(p); err == nil && err2 == nil && n > 0 {
		return []int{n}
	}
	return nil
}

// startProxy starts (or attaches to) OpenResty and its applier; it returns nil in mode off.
func startProxy(ctx context.Context, c proxyConfig, dataDir string, st *store.Store, reg prometheus.Registerer, log *slog.Logger) (*proxy, error) {
	if c.mode == modeOff {
		return nil, nil
	}
	opts, err := c.options(dataDir, log.With("component", "openresty"))
	if err != nil {
		return nil, err
	}
	var in *nginx.Instance
	switch c.mode {
	case modeManaged:
		in = nginx.NewInstance(opts)
		// Start adopts the nginx a previous run left running (killed, crashed, or told to
		// keep it), or serves the last good config of a previous run, or an empty one;
		// the applier then brings it to the head like any other revision.
		if err := in.Start(ctx, nil, nil, ""); err != nil {
			return nil, fmt.Errorf("start openresty: %w", err)
		}
	case modeAttach:
		if in, err = nginx.Attach(ctx, opts); err != nil {
			return nil, fmt.Errorf("attach to openresty in %s: %w", opts.Prefix, err)
		}
	default:
		return nil, fmt.Errorf("--openresty %q: want managed, attach or off", c.mode)
	}
	p, err := runApplier(ctx, in, st, reg, log, managedName, 0)
	if err != nil {
		return nil, err
	}
	log.Info("openresty running", "mode", c.mode, "prefix", opts.Prefix, "proxy", c.listen, "tls", c.tlsListen, "binary", opts.Binary)
	return p, nil
}

// runApplier registers the applier's metrics on reg and runs an applier of in, named name,
// that brings it to st's head until stop: the one start-up of serve's instance and an
// agent's. answerWait is the applier's AnswerLater (an agent's report delay; 0 for
// serve). The applier outlives ctx's cancellation, so that stop ends it in its order.
func runApplier(ctx context.Context, in *nginx.Instance, st openresty.Store, reg prometheus.Registerer, log *slog.Logger, name string, answerWait time.Duration) (*proxy, error) {
	m, err := metrics.NewApplyMetrics(reg, connections(in.Admin()))
	if err != nil {
		return nil, err
	}
	p := &proxy{instance: in, metrics: m, done: make(chan struct{})}
	p.applier = openresty.NewApplier(st, in, m, log.With("component", "applier"), name)
	p.applier.AnswerLater(answerWait)
	actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.cancel = cancel
	go func() {
		defer close(p.done)
		if err := p.applier.Run(actx); err != nil && !errors.Is(err, context.Canceled) {
			log.Error("applier stopped", "err", err)
		}
	}()
	return p, nil
}

// stop ends the applier, then stops a managed nginx (an attached one, or a managed one
// with --openresty-keep-running, keeps running).
func (p *proxy) stop() {
	p.cancel()
	<-p.done
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.instance.Stop(ctx)
}

// connections adapts the admin endpoint's stub_status to the gauge the server exports.
func connections(admin *nginx.AdminClient) metrics.Connections {
	return func(ctx context.Context) (map[string]float64, error) {
		s, err := admin.StubStatus(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]float64{"active": float64(s.Active), "reading": float64(s.Reading),
			"writing": float64(s.Writing), "waiting": float64(s.Waiting)}, nil
	}
}
