package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/restyplane/restyplane/openresty"
	"github.com/restyplane/restyplane/rollback"
	"github.com/restyplane/restyplane/server"
	"github.com/restyplane/restyplane/store"
	"github.com/restyplane/restyplane/web"
)

// The store's aggregates are what the server reads and writes; the guards keep the
// consumer's interfaces honest.
var (
	_ server.History   = (*store.HistoryStore)(nil)
	_ server.Tokens    = (*store.TokenStore)(nil)
	_ server.Audit     = (*store.AuditStore)(nil)
	_ server.Fleet     = (*store.FleetStore)(nil)
	_ server.Retention = (*store.RetentionStore)(nil)
	_ server.Hostnames = (*store.ClaimStore)(nil)
)

// The rollback watcher takes the agents' counters in through the server.
var _ server.CounterSink = (*rollback.Watcher)(nil)

// The managed instance's applier is the server's.
var _ server.Applier = (*openresty.Applier)(nil)

// shutdownGrace is how long in-flight requests get to finish after SIGTERM.
const shutdownGrace = 15 * time.Second

// serveConfig is everything `restyplane serve` is told. Each flag has an environment
// variable of the same name, upper-cased and prefixed with RESTYPLANE_, that sets its
// default; a flag on the command line wins.
type serveConfig struct {
	listen    string
	dataDir   string
	logLevel  string
	logFormat string
	tlsCert   string
	tlsKey    string
	// trusted lets the API listen in clear beyond loopback: tokens and the private
	// keys of the feed then cross that network as they are.
	trusted bool
	// pruneEvery is how often the retention policy is applied; the policy itself (off by
	// default) is set through the API.
	pruneEvery string

	proxy proxyConfig
	kube  kubeConfig
}

func (c *serveConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.listen, "listen", env("RESTYPLANE_LISTEN", "127.0.0.1:9180"),
		"address of the API, the web UI, /metrics and the swagger UI (env RESTYPLANE_LISTEN)")
	fs.StringVar(&c.dataDir, "data-dir", env("RESTYPLANE_DATA_DIR", "./data"),
		"directory of the SQLite history (env RESTYPLANE_DATA_DIR)")
	fs.StringVar(&c.logLevel, "log-level", env("RESTYPLANE_LOG_LEVEL", "info"),
		"debug, info, warn or error (env RESTYPLANE_LOG_LEVEL)")
	fs.StringVar(&c.logFormat, "log-format", env("RESTYPLANE_LOG_FORMAT", "text"),
		"text or json (env RESTYPLANE_LOG_FORMAT)")
	fs.StringVar(&c.tlsCert, "tls-cert", env("RESTYPLANE_TLS_CERT", ""),
		"PEM certificate chain: serve the API and the feed over HTTPS (env RESTYPLANE_TLS_CERT)")
	fs.StringVar(&c.tlsKey, "tls-key", env("RESTYPLANE_TLS_KEY", ""),
		"PEM private key of --tls-cert (env RESTYPLANE_TLS_KEY)")
	fs.BoolVar(&c.trusted, "trusted-network", env("RESTYPLANE_TRUSTED_NETWORK", "") == "true",
		"let --listen take a non-loopback address without --tls-cert: only on a network no one else can read, such as a Docker network of this machine (env RESTYPLANE_TRUSTED_NETWORK=true)")
	fs.StringVar(&c.pruneEvery, "prune-interval", env("RESTYPLANE_PRUNE_INTERVAL", "1h"),
		"how often to apply the history's retention policy, which is off until an admin sets it (env RESTYPLANE_PRUNE_INTERVAL)")
	c.proxy.flags(fs)
	c.kube.flags(fs)
}

func (c *serveConfig) check() error {
	if d, err := time.ParseDuration(c.pruneEvery); err != nil || d <= 0 {
		return fmt.Errorf("--prune-interval %q: want a positive duration such as 1h", c.pruneEvery)
	}
	if c.tlsCert == "" && !c.trusted && !loopback(c.listen) {
		return fmt.Errorf("--listen %s is not a loopback address and the API has no TLS: tokens and the private keys the feed carries would cross the network in clear; give --tls-cert and --tls-key, or --trusted-network (RESTYPLANE_TRUSTED_NETWORK=true) on a network no one else can read", c.listen)
	}
	return nil
}

// loopback reports whether the host:port addr listens on loopback only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

func (c *serveConfig) nginxBeside() bool               { return c.proxy.mode != modeOff }
func (c *serveConfig) logging() (level, format string) { return c.logLevel, c.logFormat }

// env returns the environment variable name, or def when it is unset or empty.
func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// serve runs until ctx ends (SIGTERM or SIGINT), then shuts down gracefully: it stops
// accepting, lets in-flight requests finish, ends event streams, and closes the store.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg serveConfig
	log, reg, err := startup("serve", &cfg, args, stderr)
	if err != nil {
		return err
	}
	pruneEvery, _ := time.ParseDuration(cfg.pruneEvery) // checked by startup

	st, err := store.Open(ctx, filepath.Join(cfg.dataDir, "restyplane.db"))
	if err != nil {
		return fmt.Errorf("open the history: %w", err)
	}
	defer st.Close()
	// The pruner stops when serve returns, for whatever reason, and is waited for before
	// the store closes.
	pctx, stopPruner := context.WithCancel(ctx)
	pruned := make(chan struct{})
	go func() { store.NewPruner(st, pruneEvery, log).Run(pctx); close(pruned) }()
	defer func() { stopPruner(); <-pruned }()
	if err := bootstrapAdmin(ctx, st, os.Getenv("RESTYPLANE_ADMIN_TOKEN"), showToken(stdout, cfg.dataDir, log), log); err != nil {
		return err
	}
	if err := ensureDataplane(ctx, st, os.Getenv("RESTYPLANE_DATAPLANE_TOKEN"), log); err != nil {
		return err
	}
	if (cfg.tlsCert == "") != (cfg.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}

	cfg.proxy.reserved = portOf(cfg.listen)
	px, err := startProxy(ctx, cfg.proxy, cfg.dataDir, st, reg, log)
	if err != nil {
		return err
	}
	var applier server.Applier
	sources := map[string]rollback.Source{}
	var rbMetrics rollback.Metrics
	if px != nil {
		defer px.stop()
		applier = px.applier // assigned only when there is one: a nil *Applier is not a nil interface
		sources[managedName], rbMetrics = px.counterSource, px.metrics
	}
	// The one decider of automatic rollbacks, from the counters of every instance that
	// serves a revision: the managed one read here, the agents' from their reports.
	watcher := rollback.New(st, log.With("component", "rollback"), rbMetrics, sources)
	wctx, wcancel := context.WithCancel(ctx)
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		_ = watcher.Run(wctx)
	}()
	defer func() { wcancel(); <-wdone }()
	cfg.kube.httpPort, cfg.kube.httpsPort = listenPort(cfg.proxy.listen), listenPort(cfg.proxy.tlsListen)
	cfg.kube.proxyHosts = listenHosts(cfg.proxy.listen, cfg.proxy.tlsListen)
	rec, kubeDone, err := startReconciler(ctx, cfg.kube, st, applier, reg, log)
	if err != nil {
		return err
	}
	var ingresses server.Ingresses
	if kubeDone != nil {
		defer func() { <-kubeDone }()
		ingresses = rec // assigned only when there is one, as applier above
	}
	srv, err := server.New(server.Options{
		History:   st.HistoryStore,
		Tokens:    st.TokenStore,
		Audit:     st.AuditStore,
		Fleet:     st.FleetStore,
		Retention: st.RetentionStore,
		Hostnames: st.ClaimStore,
		Applier:   applier,
		Rollback:  watcher,
		Ingresses: ingresses,
		Logger:    log,
		Registry:  reg,
		UI:        web.Files(),
		UIPolicy:  web.ContentSecurityPolicy,
		Version:   version,
	})
	if err != nil {
		return err
	}
	watcher.SetLive(srv.Connected)

	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.listen, err)
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		// A whole config of thousands of objects may take a while to upload; there is no
		// write timeout because the event stream is long-lived.
		ReadTimeout:    2 * time.Minute,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	hs.RegisterOnShutdown(srv.Close)
	log.Info("restyplane serving", "version", version, "listen", ln.Addr().String(),
		"ui", "http://"+ln.Addr().String()+"/", "dataDir", cfg.dataDir)

	errc := make(chan error, 1)
	go func() {
		if cfg.tlsCert != "" {
			errc <- hs.ServeTLS(ln, cfg.tlsCert, cfg.tlsKey)
			return
		}
		errc <- hs.Serve(ln)
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down http: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve http: %w", err)
	}
	log.Info("stopped")
	return nil
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}
