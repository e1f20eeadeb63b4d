package metrics

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ApplyMetrics are the applier's Prometheus collectors. The applier reports through the
// small interface it declares (openresty.Metrics); this is its Prometheus implementation,
// apart from the HTTP API so that an agent, which runs no API, exports them too.
type ApplyMetrics struct {
	applies       *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	propagation   prometheus.Histogram
	applied       prometheus.Gauge
	lastSuccess   prometheus.Gauge
	autoRollbacks prometheus.Counter
	skipped       *prometheus.CounterVec
}

// Connections reads nginx's connection counts (active, reading, writing, waiting).
type Connections func(ctx context.Context) (map[string]float64, error)

// NewApplyMetrics registers the applier's collectors on reg. conns, when not nil, feeds
// the nginx connection gauge at each scrape.
func NewApplyMetrics(reg prometheus.Registerer, conns Connections) (*ApplyMetrics, error) {
	m := &ApplyMetrics{
		applies: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "restyplane_applies_total",
			Help: "Apply attempts by mode (none, dynamic, reload, full) and outcome (success, rejected, failed, rolled_back). Reloads and dynamic pushes are the modes' counts.",
		}, []string{"mode", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "restyplane_apply_duration_seconds",
			Help:    "Duration of apply attempts by mode.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"mode"}),
		propagation: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "restyplane_propagation_seconds",
			Help:    "Time from a revision being written to it being live in OpenResty.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
		applied: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "restyplane_applied_revision",
			Help: "The revision OpenResty serves.",
		}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "restyplane_last_apply_success_timestamp_seconds",
			Help: "Unix time of the last successful apply.",
		}),
		autoRollbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "restyplane_automatic_rollbacks_total",
			Help: "Revisions rolled back by the applier because the proxy became unhealthy after them.",
		}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "restyplane_apply_skipped_objects_total",
			Help: "Objects an apply left out because they could not be applied (a name that does not resolve, a full shared dict), by kind; the rest applied. Each retry that still fails counts again.",
		}, []string{"kind"}),
	}
	cs := []prometheus.Collector{m.applies, m.duration, m.propagation, m.applied, m.lastSuccess, m.autoRollbacks, m.skipped}
	if conns != nil {
		cs = append(cs, connCollector{read: conns, desc: prometheus.NewDesc("restyplane_nginx_connections",
			"nginx connections by state, from stub_status.", []string{"state"}, nil)})
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register apply metrics: %w", err)
		}
	}
	return m, nil
}

// Apply counts one apply attempt.
func (m *ApplyMetrics) Apply(mode, outcome string, d time.Duration) {
	m.applies.WithLabelValues(mode, outcome).Inc()
	m.duration.WithLabelValues(mode).Observe(d.Seconds())
}

// Propagation observes the time from a revision's write to it being live.
func (m *ApplyMetrics) Propagation(d time.Duration) { m.propagation.Observe(d.Seconds()) }

// Applied records the revision now live and when.
func (m *ApplyMetrics) Applied(revision int64, at time.Time) {
	m.applied.Set(float64(revision))
	m.lastSuccess.Set(float64(at.UnixNano()) / 1e9)
}

// AutoRollback counts an automatic rollback.
func (m *ApplyMetrics) AutoRollback() { m.autoRollbacks.Inc() }

// Skipped counts one object an apply left out.
func (m *ApplyMetrics) Skipped(kind string) { m.skipped.WithLabelValues(kind).Inc() }

// connCollector reads nginx's connection counts at scrape time, so they are never stale.
type connCollector struct {
	read Connections
	desc *prometheus.Desc
}

func (c connCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c connCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	counts, err := c.read(ctx)
	if err != nil {
		return // an instance that is restarting has no counts; the gauge is absent then
	}
	for state, v := range counts {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, state)
	}
}
