package reconciler

import (
	"context"
	"fmt"
)

// elect runs lead while this replica holds the Lease, so that two replicas never both
// write. lead's context ends when the Lease is lost; elect waits for lead to return before
// it gives the Lease up and stands again, and gives it up when ctx ends so that another
// replica takes over at once.
func (r *Reconciler) elect(ctx context.Context, lead func(context.Context) error) error {
	newLock := func() *leaseLock {
		return &leaseLock{leases: r.client.coordination.Leases(r.opts.LeaseNamespace), name: r.opts.LeaseName,
			identity: r.opts.Identity, duration: r.opts.LeaseDuration, renewDeadline: r.opts.RenewDeadline,
			retry: r.opts.RetryPeriod, log: r.log}
	}
	if err := newLock().validate(); err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	for ctx.Err() == nil {
		// Each attempt starts from what it reads, as a new client-go elector did.
		newLock().run(ctx, func(lctx context.Context) {
			r.log.Info("leading", "lease", r.opts.LeaseNamespace+"/"+r.opts.LeaseName, "identity", r.opts.Identity)
			r.update(func(s *Stats) { s.Leader = true })
			defer r.update(func(s *Stats) { s.Leader = false })
			if err := lead(lctx); err != nil {
				r.log.Error("reconciler stopped", "err", err)
			}
		})
	}
	return nil
}
