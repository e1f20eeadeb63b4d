package reconciler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/restyplane/restyplane/api"
)

// syncKey is the one key of the queue: the proxy's configuration is one artifact, so every
// change asks for the same full rebuild, and changes that arrive during a sync coalesce
// into the next one.
const syncKey = "sync"

// lead runs the informers and the sync loop until ctx ends.
func (r *Reconciler) lead(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 30*time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "restyplane-reconciler"})
	c, err := newCluster(r.client, r.opts.Controller, r.opts.DefaultBackend, func() { queue.Add(syncKey) })
	if err != nil {
		cancel()
		queue.ShutDown()
		return err
	}
	c.gatewayController = r.opts.GatewayController
	memo := newTranslationCache()
	enqueue := func() {
		c.changes.everything()
		queue.Add(syncKey)
	}
	edited := func(route string) {
		c.changes.routeEdited(route)
		queue.Add(syncKey)
	}
	gw := r.gatewayAtStart(enqueue, edited)
	synced := c.synced
	if gw != nil {
		synced = append(slices.Clip(synced), gw.synced...)
		gw.start(ctx)
	}
	c.start(ctx.Done())
	var late sync.WaitGroup
	defer func() {
		cancel()
		queue.ShutDown()
		c.shutdown()
		if gw != nil {
			gw.stop()
		}
		late.Wait()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("informer caches did not sync: %w", ctx.Err())
	}
	// The reporters start from what the Events of the ones before them said, read back
	// before the first sync reports anything.
	recalled := recall(ctx, r.client, r.log)
	out := r.newEventWriter()
	rep := newReporter(r.client, r.opts.StatusAddress, r.log, out, recalled)
	gwRep := newGatewayReporter(r.client, r.store, r.log, out, recalled)
	r.gwReporter.Store(gwRep)
	defer r.gwReporter.Store(nil)
	defer rep.stop()
	go out.run(ctx)
	if gw != nil {
		c.gateway.Store(gw)
		late.Add(1)
		go func() {
			defer late.Done()
			r.serveGateway(ctx, c, gw, enqueue, edited)
		}()
	} else {
		late.Add(1)
		go func() {
			defer late.Done()
			r.awaitGateway(ctx, c, enqueue, edited)
		}()
	}
	go rep.run(ctx)
	go gwRep.run(ctx)
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	// An admin's grant or release changes who may route a host, and a hold or its release
	// what may be written: sync again.
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-r.store.HostnameClaimsChanged():
				c.changes.everything()
				queue.Add(syncKey)
			case <-r.store.HoldsChanged():
				// A rollback held objects back (their Ingresses are to hear of it), or an
				// editor released them (the cluster's content is to be written again).
				c.changes.everything()
				queue.Add(syncKey)
			}
		}
	}()
	r.setCluster(c)
	defer r.setCluster(nil)
	queue.Add(syncKey)
	for r.next(ctx, c, rep, gwRep, memo, queue) {
	}
	return nil
}

// next runs one sync from the queue; it returns false when the queue shuts down.
func (r *Reconciler) next(ctx context.Context, c *cluster, rep *reporter, gwRep *gatewayReporter, cache *translationCache, queue workqueue.TypedRateLimitingInterface[string]) bool {
	key, shutdown := queue.Get()
	if shutdown {
		return false
	}
	defer queue.Done(key)
	start := time.Now()
	rev, wrote, err := r.sync(ctx, c, rep, gwRep, cache)
	// A rollback committed during the sync refused its write; the sync runs again at once
	// from the rollback's head. Only a few times: should rollbacks keep overtaking it, the
	// queue's backoff paces the retries as any failure's.
	for i := 0; i < overtakenRetries && errors.Is(err, errOvertaken) && ctx.Err() == nil; i++ {
		r.log.Info("a rollback was committed during the sync; syncing again from its revision", "err", err)
		rev, wrote, err = r.sync(ctx, c, rep, gwRep, cache)
	}
	took := time.Since(start)
	r.update(func(s *Stats) {
		s.Syncs++
		s.LastSync = took
		s.QueueDepth = queue.Len()
		if err != nil {
			s.Errors++
		}
		if wrote {
			s.Writes++
			s.LastRevision = rev
		}
	})
	if err != nil {
		if ctx.Err() == nil {
			r.log.Error("sync failed; retrying", "err", err, "retries", queue.NumRequeues(key))
			queue.AddRateLimited(key)
		}
		return true
	}
	queue.Forget(key)
	return true
}

// errOvertaken is a sync's write that the store refused because a rollback was committed
// after the head the sync computed it from (api.Meta.NoRollbackAfter).
var errOvertaken = errors.New("a rollback was committed during the sync")

// overtakenRetries bounds how many times in a row a sync runs again at once after
// errOvertaken.
const overtakenRetries = 3

// overtaken marks err as errOvertaken when the store refused the write for a rollback.
func overtaken(err error) error {
	if api.ErrorCode(err) == api.EPreconditionFailed {
		return fmt.Errorf("%w: %w", errOvertaken, err)
	}
	return err
}

// sync rebuilds the kubernetes-owned objects from the caches and writes what differs from
// the head as one revision. It returns the revision the Ingresses are applied at. When only
// EndpointSlices and the specs of routes changed since the last sync, and nobody else wrote
// since, it reads the endpoints of their Services' backends again, plans those routes on
// their own, and keeps the rest of the last translation (endpointsOnly).
func (r *Reconciler) sync(ctx context.Context, c *cluster, rep *reporter, gwRep *gatewayReporter, cache *translationCache) (rev int64, wrote bool, err error) {
	all, dirty, edited := c.changes.take()
	defer func() {
		if err != nil {
			c.changes.everything() // the retry translates everything again
		}
	}()
	head := r.store.Head()
	var t *Translation
	var muts []api.Mutation
	if last := cache.last; !all && len(dirty)+len(edited) > 0 && last.t != nil && last.rev == head.Revision {
		var changed []string
		if t, changed, err = c.endpointsOnly(r.opts.Controller, r.opts.AllowExternalName, last.t, dirty, edited, cache); err != nil {
			return 0, false, err
		}
		if t != nil {
			// The head is what the last sync wrote: only these backends can differ.
			for _, n := range changed {
				if cur := head.Backends[n]; cur == nil || !sameBackend(cur, t.Backends[n]) {
					muts = append(muts, api.Mutation{Kind: api.KindBackend, Name: n, Backend: t.Backends[n]})
				}
			}
			r.update(func(s *Stats) { s.EndpointSyncs++ })
		}
	}
	if t == nil {
		if t, head, err = r.translateAll(ctx, c, cache); err != nil {
			return 0, false, err
		}
		muts = mutations(t, head)
	}
	holds := r.store.Holds()
	c.setHeld(head, holds)
	muts, release, held := holdBack(t, head, muts, holds, c.serviceEndpoints(head))
	// What the sync writes and releases is computed from this head: a rollback committed
	// since may have taken back, and held, what it writes. Then the store refuses the
	// write, and the sync runs again from the rollback's head (errOvertaken).
	meta := api.Meta{Actor: api.ActorKubernetes, Source: api.SourceKubernetes, NoRollbackAfter: head.Revision}
	if len(release) > 0 && len(muts) == 0 {
		meta.Message = holdMessage(release)
		if _, err := r.store.ReleaseHolds(ctx, meta, release); err != nil {
			return 0, false, overtaken(fmt.Errorf("release %d holds: %w", len(release), err))
		}
	}
	if len(muts)+len(release) == 0 && r.store.RolledBackAfter(head.Revision) {
		// The holds read are a rollback's whose head this sync did not read: against that
		// head there may well be something to write (a held backend's Pods moved since the
		// revision it restored). Nothing refuses a sync that writes nothing: it runs again.
		return 0, false, overtaken(api.Errorf(api.EPreconditionFailed, "a rollback was committed after revision %d, which the sync read", head.Revision))
	}
	rev = head.Revision
	if len(muts) > 0 {
		// The Lease may have been lost since the sync began; a replica that no longer leads
		// must not write.
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		// The holds end in the revision that writes what the cluster asks for instead, so
		// that neither happens without the other.
		meta.Message, meta.Release = message(muts, head, t.Gateway.generations()), release
		res, err := r.store.Write(ctx, meta, muts)
		if err != nil {
			return 0, false, overtaken(fmt.Errorf("write %d changes: %w", len(muts), err))
		}
		if res.Revision != nil {
			rev, wrote = res.Revision.ID, true
			r.log.Info("wrote revision", "revision", rev, "changes", res.Revision.ChangeCount, "message", meta.Message)
		}
	}
	cache.last = lastSync{t: t, rev: rev}
	rep.report(heldReports(t.Reports, held), rev)
	gwRep.report(t.Gateway, rev, held)
	r.setLast(t, rev)
	return rev, wrote, nil
}

// translateAll translates every Ingress of the caches against the head, after storing the
// hostname claims the translation makes, and returns it with that head.
func (r *Reconciler) translateAll(ctx context.Context, c *cluster, cache *translationCache) (*Translation, *api.State, error) {
	snap, err := c.snapshot(r.opts.Controller, cache)
	if err != nil {
		return nil, nil, err
	}
	defer cache.rotate()
	if err := r.readClaims(ctx, snap); err != nil {
		return nil, nil, err
	}
	head := r.store.Head()
	t := Translate(snap, head)
	if t.DefaultBackendProblem != "" {
		r.log.Warn("the default backend is not served", "problem", t.DefaultBackendProblem)
	}
	// The claims are stored before the objects they let through: a claim is the input
	// of every later sync, so a crash in between only repeats this sync's write.
	if err := r.store.ClaimHostnames(ctx, t.Claims, t.Releases); err != nil {
		return nil, nil, fmt.Errorf("store hostname claims: %w", err)
	}
	return t, head, nil
}

// readClaims puts the stored hostname claims and the ExternalName switch into snap.
func (r *Reconciler) readClaims(ctx context.Context, snap *Snapshot) error {
	claims, err := r.store.HostnameClaims(ctx)
	if err != nil {
		return fmt.Errorf("read hostname claims: %w", err)
	}
	for _, c := range claims {
		snap.Claims[c.Hostname] = c
	}
	snap.AllowExternalName = r.opts.AllowExternalName
	snap.Budgets = r.opts.Budgets
	snap.DefaultBackend = r.opts.DefaultBackend
	if snap.Gateway != nil {
		snap.Gateway.HTTPPort, snap.Gateway.HTTPSPort = r.opts.HTTPPort, r.opts.HTTPSPort
		snap.Gateway.Address, snap.Gateway.Pool = r.opts.GatewayAddress, r.opts.GatewayAddresses
	}
	return nil
}
