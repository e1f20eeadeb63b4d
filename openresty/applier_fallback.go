package openresty

import (
	"context"
	"strconv"

	"github.com/restyplane/restyplane/api"
)

// History is what a Store may also offer: the state at an earlier revision, private
// keys included. The control plane's store does; an agent's follower holds only the
// state it applied last, which is its head.
type History interface {
	State(ctx context.Context, rev int64, withKeys bool) (*api.State, error)
}

// fallBack runs after the head was rejected. When nothing has applied since restyplane
// started, the nginx that runs (adopted, or started on the conf in place) serves the conf
// of the last revision that applied, but its shared memory may be empty. The applier then
// applies that revision again, from the history: so no rejected head leaves a restarted
// proxy serving less than the last revision that applied. The head stays rejected.
func (a *Applier) fallBack(ctx context.Context, head *api.State) {
	a.mu.Lock()
	running := a.running
	a.mu.Unlock()
	h, ok := a.store.(History)
	ip, ok2 := a.proxy.(ConfInPlacer)
	if running != nil || !ok || !ok2 {
		return
	}
	conf, gen := ip.ConfInPlace()
	rev, err := strconv.ParseInt(gen, 10, 64)
	if conf == nil || err != nil || rev >= head.Revision || rev < 0 {
		return
	}
	last, err := h.State(ctx, rev, true)
	if err != nil {
		a.log.Error("fall back to the revision in place", "revision", rev, "err", err)
		return
	}
	eff, traced := a.effective(last)
	p, err := a.plan(eff, true)
	if err != nil || p.mode != api.ModeFull {
		a.log.Error("fall back to the revision in place: its conf is not what it renders to", "revision", rev, "err", err)
		return
	}
	a.log.Warn("the head was rejected: serving the revision in place", "head", head.Revision, "revision", rev)
	if _, again := a.apply(ctx, eff, p, traced, false); again {
		return
	}
	a.mu.Lock()
	if a.running != nil && a.running.Revision == rev {
		a.rejected = head.Revision
	}
	a.mu.Unlock()
}
