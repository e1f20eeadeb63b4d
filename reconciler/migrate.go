package reconciler

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/client-go/tools/cache"

	"github.com/restyplane/restyplane/api"
)

// Evaluate says what restyplane would do with every Ingress of the cluster of opts, of
// every class, if all of them moved to its class at once: the verdict of each Ingress and
// of each of its annotations, from the same translation a sync runs. It reads the cluster
// and writes nothing, to the cluster or anywhere else, and it compares the Ingresses with
// an empty history: no REST server or stored hostname claim takes part, so a hostname two
// namespaces name goes to the older Ingress, as it would in a new restyplane.
func Evaluate(ctx context.Context, opts Options) (*api.IngressVerdicts, error) {
	opts = opts.withDefaults()
	cfg, err := restConfig(opts, "restyplane-migrate")
	if err != nil {
		return nil, err
	}
	client, err := newClients(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	c, err := newCluster(client, opts.Controller, opts.DefaultBackend, func() {})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	c.start(ctx.Done())
	defer func() {
		cancel()
		c.shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return nil, fmt.Errorf("read the cluster: %w", context.Cause(ctx))
	}
	snap, err := c.snapshotAll()
	if err != nil {
		return nil, err
	}
	snap.AllowExternalName = opts.AllowExternalName
	snap.Budgets = opts.Budgets
	snap.DefaultBackend = opts.DefaultBackend
	owned := c.ownedNow()
	t := Translate(snap, nil)
	out := &api.IngressVerdicts{Ingresses: make([]api.IngressVerdict, 0, len(t.Reports)), Routes: routeVerdicts(t.Gateway)}
	for _, rep := range t.Reports {
		rep.Ours = owned.owns(rep.Ingress)
		out.Ingresses = append(out.Ingresses, verdictOf(rep))
	}
	sort.Slice(out.Ingresses, func(i, j int) bool {
		a, b := out.Ingresses[i], out.Ingresses[j]
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	return out, nil
}
