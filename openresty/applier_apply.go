package openresty

import (
	"context"
	"errors"
	"time"

	"github.com/restyplane/restyplane/api"
)

// retryFailed is how soon an apply that failed outside nginx's verdict (the admin socket
// was not there, the disk was full) is tried again.
const retryFailed = time.Second

// apply carries out a plan. Nothing of a reload goes live before nginx -t accepted the
// candidate: the test runs first, then the dynamic push (so that new workers find the
// backends they route to), then the swap and reload. A reload that fails after the push
// pushes the running backends back. A reload with nothing to push skips the first test:
// Reload tests the candidate itself before it swaps anything in, and on a config of
// thousands of locations each nginx -t costs seconds.
func (a *Applier) apply(ctx context.Context, head *api.State, p *plan) (retry time.Duration) {
	start := time.Now()
	a.mu.Lock()
	running := a.running
	a.mu.Unlock()
	if p.mode == api.ModeReload && !p.push.Empty() {
		if err := a.proxy.Test(ctx, p.conf, p.certs); err != nil {
			a.reject(ctx, head, p.mode, start, err)
			return 0
		}
	}
	if !p.push.Empty() {
		if err := a.proxy.Push(ctx, head.Revision, p.push); err != nil {
			a.record(ctx, head, p.mode, start, api.OutcomeFailed, err)
			return retryFailed
		}
	}
	if p.mode == api.ModeReload {
		err := a.proxy.Reload(ctx, p.conf, p.certs, generation(head))
		a.mu.Lock()
		a.lastReload = time.Now()
		a.mu.Unlock()
		if err != nil {
			if running != nil && !p.push.Empty() {
				if perr := a.proxy.Push(ctx, running.Revision, dynamicChanges(head, running, false)); perr != nil {
					a.log.Error("restore dynamic state after a failed reload", "err", perr)
				}
			}
			a.reject(ctx, head, p.mode, start, err)
			return 0
		}
	}
	// The record goes first, so that whoever sees the new revision running also finds
	// the apply that made it.
	a.record(ctx, head, p.mode, start, api.OutcomeSuccess, nil)
	a.mu.Lock()
	a.running, a.runningCnf, a.rejected = head, p.confKey, 0
	if p.push.Full {
		a.needFull = false
	}
	a.mu.Unlock()
	a.metrics.Applied(head.Revision, time.Now())
	if !head.Written.IsZero() {
		a.metrics.Propagation(time.Since(head.Written))
	}
	if a.noAutoRollback {
		a.mu.Lock()
		a.promote(head.Revision)
		a.mu.Unlock()
		return 0
	}
	a.startWatch(running, head)
	return 0
}

// reject records that nginx refused the head. The instance keeps serving what it ran; the
// same head is not tried again, and the next revision is.
func (a *Applier) reject(ctx context.Context, head *api.State, mode string, start time.Time, err error) {
	a.mu.Lock()
	a.rejected = head.Revision
	a.mu.Unlock()
	a.record(ctx, head, mode, start, api.OutcomeRejected, err)
}

// record stores an apply record and reports it to the metrics and the log.
func (a *Applier) record(ctx context.Context, head *api.State, mode string, start time.Time, outcome string, err error) {
	d := time.Since(start)
	rec := &api.ApplyRecord{Revision: head.Revision, Instance: a.instance, Mode: mode, Started: start.UTC(),
		DurationMS: float64(d.Microseconds()) / 1000, Outcome: outcome}
	if err != nil {
		rec.Error = err.Error()
	}
	if rerr := a.store.RecordApply(context.WithoutCancel(ctx), rec); rerr != nil && !errors.Is(rerr, context.Canceled) {
		a.log.Error("record apply", "revision", head.Revision, "err", rerr)
	}
	a.mu.Lock()
	a.last = rec
	a.mu.Unlock()
	a.metrics.Apply(mode, outcome, d)
	if err != nil {
		a.log.Warn("apply", "revision", head.Revision, "mode", mode, "outcome", outcome, "err", err)
	} else {
		a.log.Info("apply", "revision", head.Revision, "mode", mode, "outcome", outcome, "ms", rec.DurationMS)
	}
}
