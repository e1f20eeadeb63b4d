package reconciler

import (
	"context"
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
		r.log.Warn("cannot tell whether HTTPRoute keeps rules[].retry; the GatewayClass does not claim retries", "err", kinds.retryErr)
	}
	g, err := newGatewayCluster(r.client, kinds, enqueue, edited)
	if err != nil {
		r.log.Error("gateway API informers", "err", err)
		return nil
	}
	return g
}

// awaitGateway asks every gatewayDiscoveryPeriod whether the cluster serves Gateway API
// now, and once it does, runs its informers until ctx ends and gives c the view.
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
		g.start(ctx.Done())
		if !cache.WaitForCacheSync(ctx.Done(), g.synced...) {
			g.shutdown()
			return
		}
		r.log.Info("the cluster serves Gateway API now: reconciling its routes")
		c.gateway.Store(g)
		enqueue()
		<-ctx.Done()
		g.shutdown()
		return
	}
}
