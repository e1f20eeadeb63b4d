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
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/fleet"
	"github.com/restyplane/restyplane/metrics"
	"github.com/restyplane/restyplane/openresty"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// The follower is the agent's applier's store.
var _ openresty.Store = (*fleet.Follower)(nil)

// agentConfig is everything `restyplane agent` is told; each flag has a RESTYPLANE_
// variable as for serve.
type agentConfig struct {
	controlPlane string
	token        string
	caFile       string
	trusted      bool
	name         string
	listen       string
	dataDir      string
	logLevel     string
	logFormat    string
	proxy        proxyConfig
}

func (c *agentConfig) flags(fs *flag.FlagSet) {
	host, _ := os.Hostname()
	fs.StringVar(&c.controlPlane, "control-plane", env("RESTYPLANE_CONTROL_PLANE", ""),
		"URL of the control plane's API, e.g. https://restyplane:9180 (env RESTYPLANE_CONTROL_PLANE)")
	fs.StringVar(&c.token, "token", env("RESTYPLANE_TOKEN", ""),
		"a join token (role dataplane), exchanged once for this instance's credential; prefer the environment variable, which other users cannot read in the process list (env RESTYPLANE_TOKEN)")
	fs.StringVar(&c.caFile, "ca-file", env("RESTYPLANE_CA_FILE", ""),
		"PEM certificates that sign the control plane's TLS certificate (env RESTYPLANE_CA_FILE)")
	fs.BoolVar(&c.trusted, "trusted-network", env("RESTYPLANE_TRUSTED_NETWORK", "") == "true",
		"allow an http:// control plane off this machine: the tokens and private keys cross the network in clear (env RESTYPLANE_TRUSTED_NETWORK=true)")
	fs.StringVar(&c.name, "name", env("RESTYPLANE_NAME", strings.ToLower(host)),
		"this instance's name in the fleet (env RESTYPLANE_NAME)")
	fs.StringVar(&c.listen, "listen", env("RESTYPLANE_LISTEN", "127.0.0.1:9181"),
		"address of /healthz, /readyz and /metrics (env RESTYPLANE_LISTEN)")
	fs.StringVar(&c.dataDir, "data-dir", env("RESTYPLANE_DATA_DIR", "./data-agent"),
		"directory of the last applied state and the OpenResty prefix (env RESTYPLANE_DATA_DIR)")
	fs.StringVar(&c.logLevel, "log-level", env("RESTYPLANE_LOG_LEVEL", "info"),
		"debug, info, warn or error (env RESTYPLANE_LOG_LEVEL)")
	fs.StringVar(&c.logFormat, "log-format", env("RESTYPLANE_LOG_FORMAT", "text"),
		"text or json (env RESTYPLANE_LOG_FORMAT)")
	c.proxy.flags(fs)
	// An agent exists to drive an OpenResty: serve's "off" is not one of its modes.
	fs.Lookup("openresty").Usage = "managed (start and supervise nginx) or attach (adopt the nginx running in --openresty-prefix) (env RESTYPLANE_OPENRESTY)"
}

func (c *agentConfig) check() error {
	if c.controlPlane == "" || c.token == "" {
		return errors.New("agent needs --control-plane and --token (a token of role dataplane)")
	}
	if c.proxy.mode == modeOff {
		return errors.New("agent needs an OpenResty: --openresty managed or attach")
	}
	return nil
}

func (c *agentConfig) nginxBeside() bool               { return true }
func (c *agentConfig) logging() (level, format string) { return c.logLevel, c.logFormat }

// agent runs a data plane until ctx ends: it follows the control plane's feed, applies
// each state to its OpenResty with the same applier as serve, keeps the last applied
// state on disk, and reports back.
func agent(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg agentConfig
	log, reg, err := startup("agent", &cfg, args, stderr)
	if err != nil {
		return err
	}
	fol, err := fleet.New(fleet.Options{ControlPlane: cfg.controlPlane, Token: cfg.token, CAFile: cfg.caFile, TrustedNetwork: cfg.trusted,
		Name: cfg.name, DataDir: cfg.dataDir, Version: version, Logger: log.With("component", "feed")})
	if err != nil {
		return err
	}
	if err := fol.Load(); err != nil {
		return err
	}
	a := &agentRun{cfg: cfg, fol: fol, reg: reg, log: log, ok: make(chan struct{})}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.listen, err)
	}
	hs := &http.Server{Handler: metrics.AgentHandler(reg, a.ready), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go fol.Run(fctx)
	log.Info("restyplane agent", "version", version, "name", cfg.name, "controlPlane", cfg.controlPlane,
		"listen", ln.Addr().String(), "dataDir", cfg.dataDir)
	// A new agent serves nothing until it holds a state: an empty nginx answering 404 would
	// look like an outage to whoever routes traffic here.
	select {
	case <-ctx.Done():
		return nil
	case <-fol.Loaded():
	}
	if err := a.start(ctx); err != nil {
		return err
	}
	defer a.px.stop()
	<-ctx.Done()
	log.Info("shutting down")
	return nil
}

// agentRun is a running agent's parts.
type agentRun struct {
	cfg agentConfig
	fol *fleet.Follower
	reg *prometheus.Registry
	log *slog.Logger
	px  *proxy
	ok  chan struct{} // closed once px is set
}

// start starts nginx with the held state's config, then the applier, which pushes the
// backends and brings it to each new head.
func (a *agentRun) start(ctx context.Context) error {
	a.cfg.proxy.reserved = portOf(a.cfg.listen)
	opts, err := a.cfg.proxy.options(a.cfg.dataDir, a.log.With("component", "openresty"))
	if err != nil {
		return err
	}
	// The report after each apply carries the backend counters: the push's answer brings
	// them, so that the report needs no second round trip into a worker.
	opts.CountersWithPush = true
	var in *nginx.Instance
	if a.cfg.proxy.mode == modeAttach {
		if in, err = nginx.Attach(ctx, opts); err != nil {
			return fmt.Errorf("attach to openresty in %s: %w", opts.Prefix, err)
		}
	} else {
		in = nginx.NewInstance(opts)
		head := a.fol.Head()
		rendered := *head
		rendered.Backends = nil
		cfg := rendered.Config(true)
		gen := strconv.FormatInt(head.Revision, 10)
		conf, rerr := in.Render(cfg, gen)
		if rerr == nil {
			err = in.Start(ctx, conf, cfg.Certificates, gen)
		}
		if rerr != nil || err != nil {
			// The state does not render or nginx refuses it: start with what the prefix
			// holds, and let the applier record the rejection like any other.
			a.log.Warn("start with the held state failed; starting with the prefix's config", "renderErr", rerr, "err", err)
			in = nginx.NewInstance(opts)
			if err := in.Start(ctx, nil, nil, ""); err != nil {
				return fmt.Errorf("start openresty: %w", err)
			}
		}
	}
	// nginx's answer to a push is read when the report of its apply goes out: one
	// wake-up for both (see Applier.AnswerLater).
	p, err := runApplier(ctx, in, a.fol, a.reg, a.log, a.cfg.name, a.fol.ReportDelay())
	if err != nil {
		return err
	}
	a.fol.SetReporter(func(ctx context.Context, heartbeat bool) api.Report {
		st := p.applier.Status(ctx)
		rep := api.Report{State: st.State, Applied: st.Applied, Rejected: st.Rejected}
		// The per-backend counters, with the distinct failing clients of the revision it
		// serves: the control plane decides automatic rollbacks from them. Nothing else on
		// the agent reads them, so nothing else moves the counting epoch.
		if st.Applied > 0 {
			if c, err := in.Counters(ctx, st.Applied); err == nil {
				rep.Backends = backendCounters(c)
			}
		}
		// The per-server counters go with the heartbeats only: nothing on the control
		// plane decides from them, and a second admin read in each apply's report cost
		// every agent a round trip into its busy worker per change.
		if !heartbeat {
			return rep
		}
		if c, err := in.Admin().Counters(ctx); err == nil {
			rep.Counters = make(map[string]api.ServerCounter, len(c))
			for k, v := range c {
				rep.Counters[k] = api.ServerCounter{Requests: v.Requests, Errors: v.Errors}
			}
		}
		return rep
	})
	a.px = p
	close(a.ok)
	return nil
}

// ready says whether OpenResty serves a revision. Revision 0, the empty history of a new
// control plane, counts once it applied: otherwise no data plane of a fresh fleet would
// ever be ready.
func (a *agentRun) ready() bool {
	select {
	case <-a.ok:
	default:
		return false
	}
	st := a.px.applier.Status(context.Background())
	served := st.Applied > 0 || (st.LastApply != nil && st.InSync)
	return served && (st.State == nginx.StateRunning || st.State == nginx.StateAttached)
}
