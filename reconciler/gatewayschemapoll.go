package reconciler

import (
	"context"
	"time"
)

// retrySchema returns what the reconciler holds of HTTPRoute's rules[].retry.
func (g *gatewayCluster) retrySchema() retrySchema {
	g.retryMu.Lock()
	defer g.retryMu.Unlock()
	return g.retry
}

// setRetrySchema replaces what the reconciler holds of HTTPRoute's rules[].retry.
func (g *gatewayCluster) setRetrySchema(s retrySchema) {
	g.retryMu.Lock()
	defer g.retryMu.Unlock()
	g.retry = s
}

// awaitRetryFlip asks every Options.GatewaySchemaPeriod whether the cluster's HTTPRoute
// CRD still says of rules[].retry what g holds: an operator may switch the cluster's
// Gateway API CRDs between the standard and experimental channels, or upgrade them,
// under a running reconciler. Each poll is one request for the OpenAPI v3 paths; the
// group's document is read again only when its hash changed. It returns true once the
// answer differs from g's, false when ctx ends. An error is logged (once while it
// repeats) and keeps g's answer.
func (r *Reconciler) awaitRetryFlip(ctx context.Context, g *gatewayCluster) bool {
	t := time.NewTicker(r.opts.GatewaySchemaPeriod)
	defer t.Stop()
	failing := ""
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		old := g.retrySchema()
		s, err := readRetrySchema(r.client, old)
		if err != nil {
			if err.Error() != failing {
				r.log.Warn("cannot tell whether HTTPRoute keeps rules[].retry; keeping the last answer", "err", err, "retryServed", old.served)
			}
			failing = err.Error()
			continue
		}
		failing = ""
		if s.served != old.served {
			return true
		}
		// Another CRD of the group changed the document: remember its hash.
		g.setRetrySchema(s)
	}
}

// retryChange is the line logged when the cluster's HTTPRoute CRD starts (served) or stops
// keeping rules[].retry.
func retryChange(served bool) string {
	if served {
		return "the cluster's HTTPRoute CRD keeps rules[].retry now: GatewayClasses claim retries, and routes' retries are served"
	}
	return "the cluster's HTTPRoute CRD drops rules[].retry now: GatewayClasses no longer claim retries, and routes are served without them"
}
