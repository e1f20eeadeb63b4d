// Package reconciler turns the cluster's Ingresses, Services, EndpointSlices and TLS Secrets
// into kubernetes-owned backends, servers and certificates in restyplane's history. It is
// the only package that speaks to Kubernetes.
//
// It is level-triggered: every change enqueues one key, and each sync rebuilds every
// kubernetes-owned object from the informers' caches, compares them with the store's head
// and writes the difference as one revision (or nothing). Only the replica that holds the
// Lease runs informers and writes.
package reconciler

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/restyplane/restyplane/api"
)

// Reconciler keeps the kubernetes-owned part of the store equal to the cluster.
type Reconciler struct {
	store  Store
	client *clients
	opts   Options
	log    *slog.Logger

	mu    sync.Mutex
	stats Stats
	// last and cluster serve Verdicts: the newest sync's reports, and the informers'
	// caches while this replica leads.
	last    *last
	cluster *cluster
	// notServed posts the Events of servers that applies left out (ReportApply).
	notServed notServed
	// gwReporter is the Gateway reporter while this replica leads, for ReportApply to
	// wake when an apply leaves something out.
	gwReporter atomic.Pointer[gatewayReporter]
}

// New returns a reconciler that writes into store what the cluster of opts holds.
func New(store Store, opts Options) (*Reconciler, error) {
	opts = opts.withDefaults()
	if opts.StatusAddress != "" {
		if err := api.ValidAddress("statusAddress", opts.StatusAddress); err != nil {
			return nil, fmt.Errorf("status address: %w", err)
		}
	}
	if opts.GatewayAddress != "" {
		if err := api.ValidAddress("gatewayAddress", opts.GatewayAddress); err != nil {
			return nil, fmt.Errorf("gateway address: %w", err)
		}
	}
	cfg, err := restConfig(opts, "restyplane-reconciler")
	if err != nil {
		return nil, err
	}
	client, err := newClients(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return &Reconciler{store: store, client: client, opts: opts, log: opts.Logger.With("component", "reconciler")}, nil
}

// restConfig is how opts reach the API server: its Config, its kubeconfig, or the pod's
// in-cluster configuration, named userAgent.
func restConfig(opts Options, userAgent string) (*rest.Config, error) {
	cfg := opts.Config
	if cfg == nil {
		var err error
		if opts.Kubeconfig != "" {
			cfg, err = clientcmd.BuildConfigFromFlags("", opts.Kubeconfig)
		} else {
			cfg, err = rest.InClusterConfig()
		}
		if err != nil {
			return nil, fmt.Errorf("kubernetes client configuration: %w", err)
		}
	}
	cfg = rest.CopyConfig(cfg)
	// client-go's default of 5 requests per second would take minutes to write the status
	// of a few thousand Ingresses.
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	cfg.UserAgent = userAgent
	return cfg, nil
}

// Run reconciles until ctx is done. It stands for the Lease, and while it holds it runs the
// informers and writes; if it loses the Lease it stops writing and stands again.
func (r *Reconciler) Run(ctx context.Context) error {
	return r.elect(ctx, r.lead)
}
