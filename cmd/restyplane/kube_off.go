//go:build nokube

package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
	"github.com/restyplane/restyplane/store"
)

// startReconciler of a build without Kubernetes (the nokube tag, which `make run` uses:
// client-go is more than half of a cold build's compile time) refuses to start where a
// cluster is asked for, rather than serve without the Ingresses it was told to follow.
func startReconciler(_ context.Context, c kubeConfig, _ *store.Store, _ server.Applier, _ prometheus.Registerer, _ *slog.Logger) (server.Ingresses, <-chan struct{}, error) {
	if !c.enabled() {
		return nil, nil, nil
	}
	return nil, nil, fmt.Errorf("this restyplane was built without Kubernetes (the nokube tag of `make run`); " +
		"build the full binary with `make build`, or run the image, to serve a cluster's Ingresses")
}

// evaluate of a build without Kubernetes says how to get one that reads a cluster.
func evaluate(context.Context, migrateConfig) (*api.IngressVerdicts, error) {
	return nil, fmt.Errorf("this restyplane was built without Kubernetes (the nokube tag of `make run`); " +
		"build the full binary with `make build` to evaluate a cluster's Ingresses")
}
