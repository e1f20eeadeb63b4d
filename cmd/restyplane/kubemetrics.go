//go:build !nokube

package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/restyplane/restyplane/reconciler"
)

// reconcilerMetric is one figure of the reconciler's Stats as Prometheus shows it.
type reconcilerMetric struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(reconciler.Stats) float64
}

// reconcilerCollector shows the reconciler's Stats on /metrics: whether this replica
// leads, its syncs and what became of them, and the Events it could not post. It reads
// the Stats once per scrape, so that the figures of one scrape agree with each other.
type reconcilerCollector struct {
	stats   func() reconciler.Stats
	metrics []reconcilerMetric
}

// newReconcilerCollector returns the collector of what stats returns.
func newReconcilerCollector(stats func() reconciler.Stats) *reconcilerCollector {
	m := func(name, help string, kind prometheus.ValueType, value func(reconciler.Stats) float64) reconcilerMetric {
		return reconcilerMetric{prometheus.NewDesc("restyplane_kubernetes_"+name, help, nil, nil), kind, value}
	}
	return &reconcilerCollector{stats: stats, metrics: []reconcilerMetric{
		m("leader", "1 while this replica holds the reconciler's Lease, else 0.", prometheus.GaugeValue,
			func(s reconciler.Stats) float64 { return bool01(s.Leader) }),
		m("syncs_total", "Syncs of the cluster's objects into the history that finished, with or without a revision.", prometheus.CounterValue,
			func(s reconciler.Stats) float64 { return float64(s.Syncs) }),
		m("sync_writes_total", "Syncs that wrote a revision.", prometheus.CounterValue,
			func(s reconciler.Stats) float64 { return float64(s.Writes) }),
		m("sync_errors_total", "Syncs that failed; the next one starts over from the caches.", prometheus.CounterValue,
			func(s reconciler.Stats) float64 { return float64(s.Errors) }),
		m("endpoint_syncs_total", "Syncs that only read changed EndpointSlices again and kept the rest of the last translation.", prometheus.CounterValue,
			func(s reconciler.Stats) float64 { return float64(s.EndpointSyncs) }),
		m("last_sync_duration_seconds", "How long the last sync took, from reading the caches to the write.", prometheus.GaugeValue,
			func(s reconciler.Stats) float64 { return s.LastSync.Seconds() }),
		m("last_written_revision", "The revision the last sync that wrote one made.", prometheus.GaugeValue,
			func(s reconciler.Stats) float64 { return float64(s.LastRevision) }),
		m("events_dropped_total", "Kubernetes Events said but not posted (the API server refused them, could not be reached, or the reporter stopped); each is logged.", prometheus.CounterValue,
			func(s reconciler.Stats) float64 { return float64(s.EventsDropped) }),
		m("queue_depth", "Syncs waiting to run (0 or 1: every change coalesces into one).", prometheus.GaugeValue,
			func(s reconciler.Stats) float64 { return float64(s.QueueDepth) }),
	}}
}

// Describe sends every metric's descriptor.
func (c *reconcilerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.metrics {
		ch <- m.desc
	}
}

// Collect sends every metric's value from one reading of the Stats.
func (c *reconcilerCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	for _, m := range c.metrics {
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, m.value(s))
	}
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
