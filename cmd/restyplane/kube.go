package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/server"
	"github.com/restyplane/restyplane/store"
)

var (
	_ reconciler.Store = (*store.Store)(nil)
	_ server.Hostnames = (*store.Store)(nil)
	_ server.Ingresses = (*reconciler.Reconciler)(nil)
)

// kubeConfig is the Kubernetes part of `restyplane serve`. The reconciler runs when a
// kubeconfig is given or restyplane runs in a pod; otherwise restyplane needs no cluster.
type kubeConfig struct {
	kubeconfig     string
	controller     string
	statusAddress  string
	leaseNamespace string
	identity       string
	allowExternal  bool
}

func (c *kubeConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.kubeconfig, "kubeconfig", env("RESTYPLANE_KUBECONFIG", ""),
		"kubeconfig of the cluster whose Ingresses to serve; in a pod the in-cluster config is used (env RESTYPLANE_KUBECONFIG)")
	fs.StringVar(&c.controller, "ingress-controller", env("RESTYPLANE_INGRESS_CONTROLLER", reconciler.DefaultController),
		"IngressClass controller name to answer to (env RESTYPLANE_INGRESS_CONTROLLER)")
	fs.StringVar(&c.statusAddress, "ingress-status-address", env("RESTYPLANE_INGRESS_STATUS_ADDRESS", ""),
		"address written to applied Ingresses' status.loadBalancer (env RESTYPLANE_INGRESS_STATUS_ADDRESS)")
	fs.StringVar(&c.leaseNamespace, "lease-namespace", env("RESTYPLANE_LEASE_NAMESPACE", ""),
		"namespace of the leader-election Lease (the pod's namespace) (env RESTYPLANE_LEASE_NAMESPACE)")
	fs.StringVar(&c.identity, "lease-identity", env("RESTYPLANE_LEASE_IDENTITY", ""),
		"this replica's name in the Lease (host name and a random suffix) (env RESTYPLANE_LEASE_IDENTITY)")
	fs.BoolVar(&c.allowExternal, "allow-external-name", env("RESTYPLANE_ALLOW_EXTERNAL_NAME", "") == "true",
		"route Ingresses to ExternalName Services, refused otherwise; names of this machine, link-local or metadata addresses stay refused (env RESTYPLANE_ALLOW_EXTERNAL_NAME=true)")
}

// enabled says whether there is a cluster to reconcile.
func (c *kubeConfig) enabled() bool {
	return c.kubeconfig != "" || os.Getenv("KUBERNETES_SERVICE_HOST") != ""
}

// startReconciler runs the reconciler until ctx ends; it returns it and a channel closed
// when it stopped, or nils when there is no cluster.
func startReconciler(ctx context.Context, c kubeConfig, st *store.Store, log *slog.Logger) (*reconciler.Reconciler, <-chan struct{}, error) {
	if !c.enabled() {
		return nil, nil, nil
	}
	rec, err := reconciler.New(st, reconciler.Options{Kubeconfig: c.kubeconfig, Controller: c.controller,
		StatusAddress: c.statusAddress, LeaseNamespace: c.leaseNamespace, Identity: c.identity,
		AllowExternalName: c.allowExternal, Logger: log.With("component", "reconciler")})
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes reconciler: %w", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := rec.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Error("reconciler stopped", "err", err)
		}
	}()
	log.Info("kubernetes reconciler running", "kubeconfig", c.kubeconfig, "controller", c.controller)
	return rec, done, nil
}
