package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/restyplane/restyplane/api"
)

// Options configure a Server: the aggregates of the store it serves, and the rest.
type Options struct {
	// History, Tokens, Audit, Fleet and Retention are the store's aggregates; each is
	// required.
	History   History
	Tokens    Tokens
	Audit     Audit
	Fleet     Fleet
	Retention Retention
	// Applier answers /status and dry-run validation; nil when OpenResty is off.
	Applier Applier
	// Logger receives internal errors (with request ids) and audit failures.
	Logger *slog.Logger
	// Registry receives the server's metrics and is what /metrics serves. Nil means a
	// fresh registry holding only the server's metrics.
	Registry *prometheus.Registry
	// UI is the web UI's static files, served at /; nil serves no UI and sends / to the
	// swagger UI.
	UI fs.FS
	// Hostnames holds the Kubernetes namespaces' hostname claims; required.
	Hostnames Hostnames
	// Ingresses answers GET /api/v1/kubernetes/ingresses; nil when there is no cluster.
	Ingresses Ingresses
	// UIPolicy is the Content-Security-Policy sent with the UI's files; empty means a
	// strict default (no inline script, nothing from other origins).
	UIPolicy string
	// Version is restyplane's version, shown for serve's own instance in the fleet.
	Version string
	// Rollback takes the agents' per-backend counters in, to decide automatic rollbacks
	// from the whole fleet; nil drops them.
	Rollback CounterSink
	// FeedKeepAlive is how often an idle feed stream sends a keep-alive line; zero means
	// every 10 seconds.
	FeedKeepAlive time.Duration
	// MaxInstances is how many instances may join the fleet; zero means 1000.
	MaxInstances int
}

// Server is restyplane's HTTP handler: the REST API, the operational endpoints and the UIs.
type Server struct {
	history    History
	tokens     Tokens
	auditLog   Audit
	fleetStore Fleet
	retention  Retention
	applier    Applier
	hostnames  Hostnames
	ingresses  Ingresses
	log        *slog.Logger
	metrics    *metrics
	fleet      *fleet
	feedLines  feedLines
	reports    reportBatcher
	counters   CounterSink
	router     chi.Router
	// denials aggregates failed logins and denied requests, so that a flood of them cannot
	// grow the audit log without bound.
	denials *groupedAudit
	// maxInstances caps the instances that may join.
	maxInstances int
	// streams counts each token's /events and /feed streams.
	streams streamLimits

	version   string
	started   time.Time
	keepAlive time.Duration

	// closing is closed by Close to end server-sent event streams, which would otherwise
	// hold a graceful shutdown until its deadline.
	closing   chan struct{}
	closeOnce sync.Once
}

// New builds a Server on the store's aggregates in opts and registers its metrics.
func New(opts Options) (*Server, error) {
	if opts.History == nil || opts.Tokens == nil || opts.Audit == nil || opts.Fleet == nil || opts.Retention == nil || opts.Hostnames == nil {
		return nil, errors.New("server needs a store: history, tokens, audit, fleet, retention and hostname claims")
	}
	st := opts.History
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Registry == nil {
		opts.Registry = prometheus.NewRegistry()
	}
	m, err := newMetrics(opts.Registry, st)
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	f, err := newFleet(opts.Registry, func() int64 { return st.Head().Revision })
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	if opts.FeedKeepAlive <= 0 {
		opts.FeedKeepAlive = feedKeepAlive
	}
	if opts.MaxInstances <= 0 {
		opts.MaxInstances = defaultMaxInstances
	}
	s := &Server{history: st, tokens: opts.Tokens, auditLog: opts.Audit, fleetStore: opts.Fleet, retention: opts.Retention,
		applier: opts.Applier, hostnames: opts.Hostnames, ingresses: opts.Ingresses,
		log: opts.Logger, metrics: m, closing: make(chan struct{}), denials: newGroupedAudit(opts.Audit, opts.Logger),
		fleet: f, counters: opts.Rollback, maxInstances: opts.MaxInstances, version: opts.Version, started: time.Now().UTC(), keepAlive: opts.FeedKeepAlive}
	s.feedLines.history = st.HistoryID()
	s.router = s.routes(opts)
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// Close ends the long-lived event streams so that http.Server.Shutdown need not wait for
// them. Register it with http.Server.RegisterOnShutdown.
// It also writes the counts of failed logins not yet written.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
	if err := s.denials.flush(context.Background()); err != nil {
		s.log.Error("write failed-login counts", "err", err)
	}
}

func (s *Server) routes(opts Options) chi.Router {
	r := chi.NewRouter()
	// GetHead answers HEAD with the GET route, for the UI's files and the health checks.
	r.Use(withRequestID, s.metrics.instrument, s.recoverer, middleware.GetHead)
	r.NotFound(s.handle(notFound))
	r.MethodNotAllowed(s.handle(methodNotAllowed))

	r.Get("/healthz", s.handle(s.healthz))
	r.Get("/readyz", s.handle(s.readyz))
	r.Get("/metrics", s.metricsHandler(opts.Registry))
	s.mountSwagger(r)
	s.mountUI(r, opts.UI, opts.UIPolicy)

	r.Route("/api/v1", func(r chi.Router) {
		r.Use(noStore, s.authenticate)
		r.NotFound(s.handle(notFound))
		r.MethodNotAllowed(s.handle(methodNotAllowed))

		r.Group(func(r chi.Router) {
			r.Use(s.require(api.RoleViewer))
			r.Get("/whoami", s.handle(s.whoami))
			r.Get("/backends", s.handle(s.listBackends))
			r.Get("/backends/{name}", s.handle(s.getBackend))
			r.Get("/servers", s.handle(s.listServers))
			r.Get("/servers/{name}", s.handle(s.getServer))
			r.Get("/certificates", s.handle(s.listCertificates))
			r.Get("/certificates/{name}", s.handle(s.getCertificate))
			r.Get("/settings", s.handle(s.getSettings))
			r.Get("/config", s.handle(s.getConfig))
			r.Get("/revisions", s.handle(s.listRevisions))
			r.Get("/revisions/{id}", s.handle(s.getRevision))
			r.Get("/revisions/{id}/diff", s.handle(s.diffRevision))
			r.Get("/holds", s.handle(s.listHolds))
			r.Get("/status", s.handle(s.status))
			r.Get("/applies", s.handle(s.listApplies))
			r.Get("/events", s.handle(s.events))
			r.Get("/kubernetes/ingresses", s.handle(s.listIngresses))
			r.Get("/kubernetes/hostnames", s.handle(s.listHostnames))
			r.Get("/instances", s.handle(s.listInstances))
			// Policies: htpasswd objects, read without their hashes.
			r.Get("/htpasswds", s.handle(s.listHtpasswds))
			r.Get("/htpasswds/{name}", s.handle(s.getHtpasswd))
			// CA bundles that upstream certificates are verified against.
			r.Get("/caCertificates", s.handle(s.listCACertificates))
			r.Get("/caCertificates/{name}", s.handle(s.getCACertificate))
		})
		// A join token only makes an instance's credential.
		r.Group(func(r chi.Router) {
			r.Use(s.requireExactly(api.RoleDataplane))
			r.Post("/instances/{name}/join", s.handle(s.joinInstance))
		})
		// The feed carries private keys: only instances' credentials read it, each for its
		// own instance, and they do nothing else.
		r.Group(func(r chi.Router) {
			r.Use(s.requireExactly(api.RoleInstance))
			r.Get("/feed", s.handle(s.feed))
			r.Post("/instances/{name}/report", s.handle(s.report))
		})
		r.Group(func(r chi.Router) {
			r.Use(s.require(api.RoleEditor))
			r.Post("/backends", s.handle(s.createBackend))
			r.Put("/backends/{name}", s.handle(s.putBackend))
			r.Delete("/backends/{name}", s.handle(s.deleteBackend))
			r.Put("/backends/{name}/endpoints", s.handle(s.putEndpoints))
			r.Post("/servers", s.handle(s.createServer))
			r.Put("/servers/{name}", s.handle(s.putServer))
			r.Delete("/servers/{name}", s.handle(s.deleteServer))
			r.Post("/certificates", s.handle(s.createCertificate))
			r.Put("/certificates/{name}", s.handle(s.putCertificate))
			r.Delete("/certificates/{name}", s.handle(s.deleteCertificate))
			r.Put("/config", s.handle(s.putConfig))
			r.Post("/revisions/{id}/rollback", s.handle(s.rollback))
			r.Delete("/holds/{kind}/{name}", s.handle(s.releaseHold))
			r.Get("/audit", s.handle(s.listAudit))
			// Policies: htpasswd objects.
			r.Post("/htpasswds", s.handle(s.createHtpasswd))
			r.Put("/htpasswds/{name}", s.handle(s.putHtpasswd))
			r.Delete("/htpasswds/{name}", s.handle(s.deleteHtpasswd))
			// CA bundles.
			r.Post("/caCertificates", s.handle(s.createCACertificate))
			r.Put("/caCertificates/{name}", s.handle(s.putCACertificate))
			r.Delete("/caCertificates/{name}", s.handle(s.deleteCACertificate))
		})
		r.Group(func(r chi.Router) {
			r.Use(s.require(api.RoleAdmin))
			r.Put("/settings", s.handle(s.putSettings))
			r.Get("/tokens", s.handle(s.listTokens))
			r.Post("/tokens", s.handle(s.createToken))
			r.Delete("/tokens/{id}", s.handle(s.deleteToken))
			r.Delete("/instances/{name}", s.handle(s.forgetInstance))
			r.Delete("/instances/{name}/credential", s.handle(s.revokeInstance))
			r.Put("/kubernetes/hostnames/{hostname}", s.handle(s.grantHostname))
			r.Delete("/kubernetes/hostnames/{hostname}", s.handle(s.releaseHostname))
			r.Get("/retention", s.handle(s.getRetention))
			r.Put("/retention", s.handle(s.putRetention))
			r.Post("/retention/prune", s.handle(s.prune))
		})
	})
	return r
}

// recoverer turns a panic in a handler into a logged internal error instead of a dropped
// connection. http.ErrAbortHandler is the one panic meant to abort, and is passed on.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.writeError(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// noStore keeps API answers, which hold configuration and once a token secret, out of
// every cache.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func notFound(w http.ResponseWriter, r *http.Request) error {
	return api.Errorf(api.ENotFound, "no such route")
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request) error {
	return api.Errorf(codeMethodNotAllowed, "method %s is not allowed on this route", methodLabel(r.Method))
}

// Route is one method and route pattern the server answers.
type Route struct{ Method, Pattern string }

// Routes lists every route, for the tests that check each one's access rule.
func (s *Server) Routes() []Route {
	var out []Route
	_ = chi.Walk(s.router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		out = append(out, Route{method, route})
		return nil
	})
	return out
}
