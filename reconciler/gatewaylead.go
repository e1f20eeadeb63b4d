package reconciler

import (
	"context"
	"errors"
	"time"

	"k8s.io/client-go/tools/cache"
)

// gatewayDiscoveryPeriod is how often a reconciler in a cluster without Gateway API's CRDs
// asks again whether they were installed.
const gatewayDiscoveryPeriod = 30 * time.Second

// gatewayAtStart returns the view of Gateway API's objects when the cluster serves them
// now, nil otherwise. Its informers sync with the others before the first sync, which
// would otherwise delete every route's server until they did. enqueue and edited are
// newGatewayCluster's.
func (r *Reconciler) gatewayAtStart(enqueue func(), edited func(route string)) *gatewayCluster {
	kinds, err := discoverGateway(r.client)
	if err != nil {
		r.log.Warn("cannot tell whether the cluster serves Gateway API; asking again later", "err", err)
		return nil
	}
	if !kinds.core {
		return nil
	}
	if kinds.retryErr != nil {
		r.log.Warn("cannot tell whether HTTPRoute keeps rules[].retry; the GatewayClass does not claim retries until it can", "err", kinds.retryErr)
	}
	g, err := newGatewayCluster(r.client, kinds, enqueue, edited)
	if err != nil {
		r.log.Error("gateway API informers", "err", err)
		return nil
	}
	return g
}

// awaitGateway asks every gatewayDiscoveryPeriod whether the cluster serves Gateway API
// now, and once it does, runs its informers, gives c the view and keeps it current
// (serveGateway) until ctx ends.
func (r *Reconciler) awaitGateway(ctx context.Context, c *cluster, enqueue func(), edited func(route string)) {
	t := time.NewTicker(gatewayDiscoveryPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		g := r.gatewayAtStart(enqueue, edited)
		if g == nil {
			continue
		}
		g.start(ctx)
		if !cache.WaitForCacheSync(ctx.Done(), g.synced...) {
			g.stop()
			return
		}
		r.log.Info("the cluster serves Gateway API now: reconciling its routes")
		c.gateway.Store(g)
		enqueue()
		r.serveGateway(ctx, c, g, enqueue, edited)
		return
	}
}

// serveGateway keeps c's view of Gateway API's objects, g, whose informers run, current
// until ctx ends, then stops it. When the cluster's HTTPRoute CRD starts or stops keeping
// rules[].retry (awaitRetryFlip), it replaces the view by one over new informers: the
// running watches go on carrying routes as the CRD before served them (the API server
// decodes a watch's events by the schema the watch began with), and only a new list
// reads them as the CRD serves them now. The old view serves until the new one has
// synced; the full translation that follows writes the classes' supportedFeatures again.
func (r *Reconciler) serveGateway(ctx context.Context, c *cluster, g *gatewayCluster, enqueue func(), edited func(route string)) {
	defer func() { g.stop() }()
	for r.awaitRetryFlip(ctx, g) {
		kinds, err := discoverGateway(r.client)
		if err == nil {
			err = kinds.retryErr
		}
		if err == nil && !kinds.core {
			err = errors.New("the cluster no longer serves GatewayClass, Gateway and HTTPRoute")
		}
		if err != nil {
			r.log.Warn("cannot read Gateway API's kinds again; keeping what the reconciler knows", "err", err)
			continue
		}
		next, err := newGatewayCluster(r.client, kinds, enqueue, edited)
		if err != nil {
			r.log.Error("gateway API informers", "err", err)
			continue
		}
		next.start(ctx)
		if !cache.WaitForCacheSync(ctx.Done(), next.synced...) {
			next.stop()
			return
		}
		was, now := g.retrySchema().served, next.retrySchema().served
		c.gateway.Store(next)
		g.stop()
		g = next
		if now != was {
			r.log.Info(retryChange(now))
		}
		enqueue()
	}
}
