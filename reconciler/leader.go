package reconciler

import (
	"context"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// elect runs lead while this replica holds the Lease, so that two replicas never both
// write. lead's context ends when the Lease is lost; elect waits for lead to return before
// it stands again or returns, and gives the Lease up when ctx ends so that another replica
// takes over at once.
func (r *Reconciler) elect(ctx context.Context, lead func(context.Context) error) error {
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: r.opts.LeaseNamespace, Name: r.opts.LeaseName},
		Client:     r.client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: r.opts.Identity},
	}
	for ctx.Err() == nil {
		t := &term{done: make(chan struct{})}
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock:            lock,
			Name:            r.opts.LeaseName,
			LeaseDuration:   r.opts.LeaseDuration,
			RenewDeadline:   r.opts.RenewDeadline,
			RetryPeriod:     r.opts.RetryPeriod,
			ReleaseOnCancel: true,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(lctx context.Context) {
					if !t.begin() {
						return
					}
					defer close(t.done)
					r.log.Info("leading", "lease", r.opts.LeaseNamespace+"/"+r.opts.LeaseName, "identity", r.opts.Identity)
					r.update(func(s *Stats) { s.Leader = true })
					defer r.update(func(s *Stats) { s.Leader = false })
					if err := lead(lctx); err != nil {
						r.log.Error("reconciler stopped", "err", err)
					}
				},
				OnStoppedLeading: func() {},
			},
		})
		if err != nil {
			return fmt.Errorf("leader election: %w", err)
		}
		le.Run(ctx)
		t.wait()
	}
	return nil
}

// term is one attempt at the Lease. The elector starts OnStartedLeading in a goroutine and
// cancels its context when Run returns; begin and wait make sure that a lead that started
// is waited for, and that one that had not started by then never does.
type term struct {
	mu    sync.Mutex
	began bool
	ended bool
	done  chan struct{}
}

func (t *term) begin() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return false
	}
	t.began = true
	return true
}

func (t *term) wait() {
	t.mu.Lock()
	t.ended = true
	began := t.began
	t.mu.Unlock()
	if began {
		<-t.done
	}
}
