package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// AgentHandler serves an agent's own listener: /healthz (the process runs), /readyz (200
// only once ready says its OpenResty serves a revision) and /metrics from reg.
func AgentHandler(reg *prometheus.Registry, ready func() bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, Health{Status: "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !ready() {
			writeJSON(w, http.StatusServiceUnavailable, Health{Status: "no revision served yet"})
			return
		}
		writeJSON(w, http.StatusOK, Health{Status: "ok"})
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	return mux
}
