//go:build !nokube

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/server"
	"github.com/restyplane/restyplane/store"
)

var (
	_ reconciler.Store  = applyingStore{}
	_ reconciler.Served = applyingStore{}
	_ server.Hostnames  = (*store.Store)(nil)
	_ server.Ingresses  = (*reconciler.Reconciler)(nil)
)

// applyingStore is the history as the reconciler writes to it: after a write that made a
// revision, the managed instance's applier pushes it on the reconciler's goroutine when
// that takes only a dynamic push, as after the API's writes (ApplyNow). Left to the
// applier's own goroutine, an EndpointSlice change waited for its wake-up, and for any
// look at the health watch's counters under way.
type applyingStore struct {
	*store.Store
	applier server.Applier // nil without a managed instance
}

// Write stores the mutations, then applies the new head when it can at once.
func (s applyingStore) Write(ctx context.Context, meta api.Meta, muts []api.Mutation) (*api.WriteResult, error) {
	res, err := s.Store.Write(ctx, meta, muts)
	if err == nil && res.Revision != nil && s.applier != nil {
		s.applier.ApplyNow(ctx)
	}
	return res, err
}

// ServedRevision is what the managed instance serves, or without one what the agents
// serve: the newest revision any of them runs, what those that run it left out of it, and
// the newest any failed to apply after it. A Gateway is Programmed once its revision is
// served with nothing of it left out, and says so when it failed.
func (s applyingStore) ServedRevision(ctx context.Context) (reconciler.Serving, error) {
	if s.applier != nil {
		st := s.applier.Status(ctx)
		out := serving(st.Applied, st.LastApply)
		skipped, err := s.servedSkips(ctx, st.Instance, st.Applied, st.LastApply)
		if err != nil {
			return reconciler.Serving{}, err
		}
		left := leftOut{}
		left.add(st.Instance, skipped)
		out.Skipped = left.told()
		return out, nil
	}
	list, err := s.Instances(ctx)
	if err != nil {
		return reconciler.Serving{}, err
	}
	var out reconciler.Serving
	for _, in := range list {
		sv := serving(in.Applied, in.LastApply)
		out.Revision = max(out.Revision, sv.Revision)
		if sv.Failed > out.Failed {
			out.Failed, out.Outcome, out.Error = sv.Failed, sv.Outcome, sv.Error
		}
	}
	if out.Failed <= out.Revision {
		out.Failed, out.Outcome, out.Error = 0, "", ""
	}
	// An instance still at an older revision says nothing of this one: what it left out
	// may have changed since.
	left := leftOut{}
	for _, in := range list {
		if in.Applied != out.Revision {
			continue
		}
		skipped, err := s.servedSkips(ctx, in.Name, in.Applied, in.LastApply)
		if err != nil {
			return reconciler.Serving{}, err
		}
		left.add(in.Name, skipped)
	}
	out.Skipped = left.told()
	return out, nil
}

// serving is what an instance that runs revision applied serves, with its last apply
// when that failed on a newer revision.
func serving(applied int64, last *api.ApplyRecord) reconciler.Serving {
	s := reconciler.Serving{Revision: applied}
	if last != nil && last.Outcome != api.OutcomeSuccess && last.Revision > applied {
		s.Failed, s.Outcome, s.Error = last.Revision, last.Outcome, last.Error
	}
	return s
}

// startReconciler runs the reconciler until ctx ends; it returns it and a channel closed
// when it stopped, or nils when there is no cluster.
func startReconciler(ctx context.Context, c kubeConfig, st *store.Store, applier server.Applier, reg prometheus.Registerer, log *slog.Logger) (server.Ingresses, <-chan struct{}, error) {
	if !c.enabled() {
		return nil, nil, nil
	}
	var def *reconciler.DefaultBackend
	if c.defaultBackend != "" {
		var err error
		if def, err = reconciler.ParseDefaultBackend(c.defaultBackend); err != nil {
			return nil, nil, fmt.Errorf("--default-backend: %w", err)
		}
	}
	var pool *reconciler.AddressPool
	if c.gatewayAddresses != "" {
		var err error
		if pool, err = reconciler.ParseAddressPool(c.gatewayAddresses, c.proxyHosts...); err != nil {
			return nil, nil, fmt.Errorf("--gateway-addresses: %w", err)
		}
		if c.gatewayRequested != "" {
			if err := pool.RequestedOnly(c.gatewayRequested); err != nil {
				return nil, nil, fmt.Errorf("--gateway-requested-addresses: %w", err)
			}
		}
	} else if c.gatewayRequested != "" {
		return nil, nil, fmt.Errorf("--gateway-requested-addresses needs --gateway-addresses")
	}
	rec, err := reconciler.New(applyingStore{Store: st, applier: applier}, reconciler.Options{Kubeconfig: c.kubeconfig, Controller: c.controller,
		StatusAddress: c.statusAddress, LeaseNamespace: c.leaseNamespace, Identity: c.identity,
		AllowExternalName: c.allowExternal, DefaultBackend: def, Logger: log.With("component", "reconciler"),
		Budgets:           reconciler.Budgets{Ingresses: c.maxIngresses, Locations: c.maxLocations, CertificateBytes: int64(c.maxCertBytes)},
		GatewayController: c.gatewayController, GatewayAddress: c.gatewayAddress, GatewayAddresses: pool, HTTPPort: c.httpPort, HTTPSPort: c.httpsPort})
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes reconciler: %w", err)
	}
	if err := reg.Register(newReconcilerCollector(rec.Stats)); err != nil {
		return nil, nil, fmt.Errorf("kubernetes reconciler metrics: %w", err)
	}
	// The Ingresses behind servers an apply left out, on any instance, hear of it.
	st.WatchSkips(rec.ReportApply)
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

// evaluate reads the cluster of c and says what restyplane would do with each Ingress.
func evaluate(ctx context.Context, c migrateConfig) (*api.IngressVerdicts, error) {
	var def *reconciler.DefaultBackend
	if c.defaultBackend != "" {
		var err error
		if def, err = reconciler.ParseDefaultBackend(c.defaultBackend); err != nil {
			return nil, fmt.Errorf("--default-backend: %w", err)
		}
	}
	return reconciler.Evaluate(ctx, reconciler.Options{Kubeconfig: c.kubeconfig, Controller: c.controller,
		AllowExternalName: c.allowExternal, DefaultBackend: def})
}
