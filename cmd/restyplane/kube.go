//go:build !nokube

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/server"
	"github.com/restyplane/restyplane/store"
)

var (
	_ reconciler.Store = (*store.Store)(nil)
	_ server.Hostnames = (*store.Store)(nil)
	_ server.Ingresses = (*reconciler.Reconciler)(nil)
)

// startReconciler runs the reconciler until ctx ends; it returns it and a channel closed
// when it stopped, or nils when there is no cluster.
func startReconciler(ctx context.Context, c kubeConfig, st *store.Store, log *slog.Logger) (server.Ingresses, <-chan struct{}, error) {
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
