package server

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus collectors, registered on the registry the caller
// passes in, so that two servers in one test process never collide.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	writes   *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer, st History) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "restyplane_http_requests_total",
			Help: "HTTP requests by method, chi route pattern and status code.",
		}, []string{"method", "route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "restyplane_http_request_duration_seconds",
			Help:    "HTTP request latency by method and chi route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		writes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "restyplane_store_write_duration_seconds",
			Help:    "Latency of history writes (object writes, config replacements, rollbacks), dry runs excluded.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"op", "outcome"}),
	}
	head := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "restyplane_head_revision",
		Help: "The newest revision of the history: the desired state.",
	}, func() float64 { return float64(st.Head().Revision) })
	holds := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "restyplane_holds",
		Help: "Objects that rollbacks hold back from what Kubernetes asks for (GET /api/v1/holds): one held for long is a team's change that waits for an edit or a release.",
	}, func() float64 { return float64(len(st.Holds())) })
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.writes, head, holds} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	return m, nil
}

// instrument counts and times every request under its route pattern. The pattern is read
// after the router ran, because only then does chi know it.
func (m *metrics) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		method, route := methodLabel(r.Method), routePattern(r)
		m.requests.WithLabelValues(method, route, strconv.Itoa(rec.status)).Inc()
		m.latency.WithLabelValues(method, route).Observe(time.Since(start).Seconds())
	})
}

// observeWrite records the latency of one history write.
func (m *metrics) observeWrite(op string, start time.Time, err error) {
	outcome := "success"
	if err != nil {
		outcome = "error"
	}
	m.writes.WithLabelValues(op, outcome).Observe(time.Since(start).Seconds())
}

// methodLabel keeps the method label's values to a known set; a client may send any token
// as a method.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and deadlines through the recorder.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// metricsHandler godoc
//
//	@Summary	Prometheus metrics
//	@Description	HTTP requests and latency by route pattern, the head revision, store write latency, and whatever else was registered (applies, the reconciler, the Go runtime).
//	@Tags		health
//	@Produce	plain
//	@Success	200	{string}	string	"metrics in the Prometheus text format"
//	@Router		/metrics [get]
func (s *Server) metricsHandler(reg *prometheus.Registry) http.HandlerFunc {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}).ServeHTTP
}
