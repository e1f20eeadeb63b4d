package openresty

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// retryFailed is how soon an apply that failed outside nginx's verdict (the admin socket
// was not there, the disk was full) is tried again.
const retryFailed = time.Second

// retrySkipped is how often objects an apply left out are pushed again while no new
// revision comes (a DNS name may start to resolve).
const retrySkipped = 10 * time.Second

// apply carries out a plan. Nothing of a reload goes live before nginx -t accepted the
// candidate: the test runs first, then the dynamic push (so that new workers find the
// backends they route to), then the swap and reload. A reload that fails after the push
// pushes the running backends back. A reload with nothing to push skips the first test:
// Reload tests the candidate itself before it swaps anything in, and on a config of
// thousands of locations each nginx -t costs seconds.
//
// traced are the servers left out of head (see effective), reported in the record. When
// nginx refuses a server block and trace allows, apply marks its servers bad and returns
// again instead of rejecting head, so that the step plans once more without them.
func (a *Applier) apply(ctx context.Context, head *api.State, p *plan, traced []api.SkippedObject, trace bool) (retry time.Duration, again bool) {
	start := time.Now()
	a.mu.Lock()
	running := a.running
	a.mu.Unlock()
	prePush := p.pushBefore
	if p.mode == api.ModeReload && prePush {
		if err := a.proxy.Test(ctx, p.conf, p.certs); err != nil {
			if trace && a.markBad(head, tracedServers(err, p.conf, head), err) {
				return 0, true
			}
			a.reject(ctx, head, p.mode, start, err)
			a.fallBack(ctx, head)
			return 0, false
		}
	}
	var skipped []api.SkippedObject
	var end time.Time // when nginx answered the last push; the record's end
	if prePush {
		var err error
		if skipped, end, err = a.push(ctx, head.Revision, p); err != nil {
			rec := a.recordAt(ctx, head, p.mode, start, end, api.OutcomeFailed, err)
			a.mu.Lock()
			a.last = rec
			a.mu.Unlock()
			return retryFailed, false
		}
	}
	if p.mode == api.ModeReload {
		err := a.proxy.Reload(ctx, p.conf, p.certs, generation(head))
		a.mu.Lock()
		a.lastReload = time.Now()
		a.mu.Unlock()
		if err != nil {
			if running != nil && prePush {
				if _, perr := a.proxy.Push(ctx, running.Revision, dynamicChanges(head, running, false)); perr != nil {
					a.log.Error("restore dynamic state after a failed reload", "err", perr)
				}
			}
			if trace && a.markBad(head, tracedServers(err, p.conf, head), err) {
				return 0, true
			}
			a.reject(ctx, head, p.mode, start, err)
			a.fallBack(ctx, head)
			return 0, false
		}
		if len(p.deletedAfter) > 0 && !p.resized {
			// Policies the old workers enforced go now; one left behind only takes room.
			if _, err := a.proxy.Push(ctx, head.Revision, render.Push{DeletedPolicies: p.deletedAfter}); err != nil {
				a.log.Warn("delete policies after a reload", "err", err)
			}
		}
		if p.resized {
			var err error
			if skipped, end, err = a.push(ctx, head.Revision, p); err != nil {
				// The new workers run with empty dicts: what runs stays the old revision, so
				// the next step reloads again (nginx keeps the zones) and pushes everything.
				rec := a.record(ctx, head, p.mode, start, api.OutcomeFailed, fmt.Errorf("push after resizing the shared dicts: %w", err))
				a.mu.Lock()
				a.last, a.needFull = rec, true
				a.mu.Unlock()
				return retryFailed, false
			}
		}
	}
	a.mu.Lock()
	retrying := running != nil && running.Revision == head.Revision
	same := slices.Equal(a.skipped, skipped)
	a.mu.Unlock()
	// The record is stored first, so that whoever sees the new revision running also
	// finds the apply that made it; then what runs and the last apply change in one
	// critical section, so that Status never shows half of them. A retry of
	// skipped objects that changes nothing is not recorded again: a name that never
	// resolves must not grow the table at every retry.
	var rec *api.ApplyRecord
	if end.IsZero() || p.mode == api.ModeReload {
		end = time.Now() // no push, or a reload after it
	}
	if !retrying || !same {
		rec = a.recordAt(ctx, head, p.mode, start, end, api.OutcomeSuccess, nil, append(append(slices.Clip(traced), p.skipped...), skipped...)...)
	}
	a.mu.Lock()
	a.skipped = skipped
	if len(skipped) > 0 {
		a.retryAt = time.Now().Add(retrySkipped)
	}
	a.running, a.runningCnf, a.runningDct, a.rejected = head, p.confKey, p.dicts, 0
	if rec != nil {
		a.last = rec
	}
	if p.push.Full {
		a.needFull = false
	}
	a.mu.Unlock()
	a.metrics.Applied(head.Revision, end)
	if !head.Written.IsZero() {
		a.metrics.Propagation(end.Sub(head.Written))
	}
	return 0, false
}

// reject records that nginx refused the head. The instance keeps serving what it ran; the
// same head is not tried again, and the next revision is.
// The rejection and its apply record show together.
func (a *Applier) reject(ctx context.Context, head *api.State, mode string, start time.Time, err error) {
	rec := a.record(ctx, head, mode, start, api.OutcomeRejected, err)
	a.mu.Lock()
	a.rejected, a.last = head.Revision, rec
	a.mu.Unlock()
}

// record stores an apply record that ends now and reports it to the metrics and the log.
// It changes no field of the applier: the caller sets a.last together with the state the
// record explains.
func (a *Applier) record(ctx context.Context, head *api.State, mode string, start time.Time, outcome string, err error, skipped ...api.SkippedObject) *api.ApplyRecord {
	return a.recordAt(ctx, head, mode, start, time.Now(), outcome, err, skipped...)
}

// recordAt is record for an apply that ended at end: when nginx answered its push, which
// may have been read later (AnswerLater).
func (a *Applier) recordAt(ctx context.Context, head *api.State, mode string, start, end time.Time, outcome string, err error, skipped ...api.SkippedObject) *api.ApplyRecord {
	d := max(0, end.Sub(start))
	rec := &api.ApplyRecord{Revision: head.Revision, Instance: a.instance, Mode: mode, Started: start.UTC(),
		DurationMS: float64(d.Microseconds()) / 1000, Outcome: outcome, Skipped: skipped}
	for _, s := range skipped {
		a.metrics.Skipped(s.Kind)
		a.log.Warn("apply skipped an object; the rest applied", "revision", head.Revision, "kind", s.Kind, "name", s.Name, "reason", s.Reason)
	}
	if err != nil {
		rec.Error = err.Error()
	}
	if rerr := a.store.RecordApply(context.WithoutCancel(ctx), rec); rerr != nil && !errors.Is(rerr, context.Canceled) {
		a.log.Error("record apply", "revision", head.Revision, "err", rerr)
	}
	a.metrics.Apply(mode, outcome, d)
	if err != nil {
		a.log.Warn("apply", "revision", head.Revision, "mode", mode, "outcome", outcome, "err", err)
	} else {
		a.log.Info("apply", "revision", head.Revision, "mode", mode, "outcome", outcome, "ms", rec.DurationMS)
	}
	return rec
}

// retryDue reports whether objects the last apply skipped are due to be pushed again.
func (a *Applier) retryDue() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.skipped) > 0 && !time.Now().Before(a.retryAt)
}

// idleDelay is how long to wait with nothing new to apply: until the retry of skipped
// objects, or 0 without any.
func (a *Applier) idleDelay() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.skipped) == 0 {
		return 0
	}
	return max(time.Until(a.retryAt), time.Millisecond)
}

// withSkipped adds to push the objects the last apply skipped that head still holds,
// so that each apply tries them again.
func (a *Applier) withSkipped(push render.Push, head *api.State) render.Push {
	a.mu.Lock()
	skipped := a.skipped
	a.mu.Unlock()
	if push.Full {
		return push // it carries every object already
	}
	for _, s := range skipped {
		switch s.Kind {
		case api.KindBackend:
			if b := head.Backends[s.Name]; b != nil && !slices.ContainsFunc(push.Backends, func(x api.Backend) bool { return x.Name == s.Name }) {
				push.Backends = append(push.Backends, *b)
			}
		case api.KindCertificate:
			if c := head.Certificates[s.Name]; c != nil && !slices.ContainsFunc(push.Certificates, func(x api.Certificate) bool { return x.Name == s.Name }) {
				push.Certificates = append(push.Certificates, *c)
			}
		case api.KindServer:
			// A location policy the policies dict could not hold: "<server>/<i>".
			push.Policies = withSkippedPolicy(push.Policies, head, s.Name)
		}
	}
	return push
}
