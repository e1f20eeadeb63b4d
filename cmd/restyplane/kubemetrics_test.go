//go:build !nokube

package main

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/restyplane/restyplane/reconciler"
)

// Every figure of the reconciler's Stats is on /metrics under its name and of its type.
func TestReconcilerCollector(t *testing.T) {
	st := reconciler.Stats{Leader: true, Syncs: 7, Writes: 3, Errors: 1, EndpointSyncs: 2, LastSync: 1500 * time.Millisecond,
		LastRevision: 42, EventsDropped: 5, QueueDepth: 1}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(newReconcilerCollector(func() reconciler.Stats { return st }))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				got[f.GetName()+" counter"] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				got[f.GetName()+" gauge"] = m.GetGauge().GetValue()
			}
		}
	}
	want := map[string]float64{"leader gauge": 1, "syncs_total counter": 7, "sync_writes_total counter": 3,
		"sync_errors_total counter": 1, "endpoint_syncs_total counter": 2, "last_sync_duration_seconds gauge": 1.5,
		"last_written_revision gauge": 42, "events_dropped_total counter": 5, "queue_depth gauge": 1}
	if len(got) != len(want) {
		t.Errorf("%d metrics, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if g, ok := got["restyplane_kubernetes_"+k]; !ok || g != v {
			t.Errorf("restyplane_kubernetes_%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
}
