package openresty

import (
	"context"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/openresty/render"
)

// LaterPusher is a Proxy that can also send a dynamic push and read nginx's answer
// later, on a connection whose answer wakes nothing (nginx.Instance can, for a push of
// backends alone).
type LaterPusher interface {
	// SendsLater reports whether SendPush takes p.
	SendsLater(p render.Push) bool
	// SendPush sends p stamped with version and returns before nginx answers.
	SendPush(ctx context.Context, version int64, p render.Push) (*nginx.PendingPush, error)
}

var _ LaterPusher = (*nginx.Instance)(nil)

// AnswerLater makes the applier read nginx's answer to a dynamic push not when it comes
// but when the process is awake anyway: at the next revision, or wait after the push
// went, when an agent sends the report of the apply (fleet's ReportDelay, which the agent
// passes here). Traffic moves when nginx stores the push, not when the applier reads that
// it did: between the two, nothing but the report is waiting. Each change woke an agent
// twice while it spread through a fleet, once for the feed's line (and the push it
// sends), once for nginx's answer; on a machine whose cores the fleet shares, each
// wake-up was CPU taken from the nginx that had yet to store the same change. Now the
// second comes with the report's. The apply record still ends when nginx stored the push
// (its answer says when), so apply durations and the propagation figures keep their
// meaning; what runs, Status and the record change only once the answer is read.
// Zero (serve's) reads the answer as it comes. Call it before Run.
func (a *Applier) AnswerLater(wait time.Duration) {
	a.stepMu.Lock()
	defer a.stepMu.Unlock()
	a.answerWait = wait
}

// push sends a plan's push and returns what it skipped and when nginx answered, reading
// the answer later (AnswerLater) when the plan is a dynamic one the proxy can send so.
func (a *Applier) push(ctx context.Context, version int64, p *plan) ([]api.SkippedObject, time.Time, error) {
	lp, ok := a.proxy.(LaterPusher)
	if a.answerWait <= 0 || p.mode != api.ModeDynamic || !ok || !lp.SendsLater(p.push) {
		skipped, err := a.proxy.Push(ctx, version, p.push)
		return skipped, time.Now(), err
	}
	sent, err := lp.SendPush(ctx, version, p.push)
	if err != nil {
		return nil, time.Now(), err
	}
	t := time.NewTimer(a.answerWait)
	defer t.Stop()
	select {
	case <-a.wake:
	case <-t.C:
	case <-ctx.Done():
	}
	skipped, applied, err := sent.Answer(ctx)
	now := time.Now()
	if applied.IsZero() || applied.After(now) {
		applied = now // workers that do not say, or a clock that stepped back
	}
	return skipped, applied, err
}
