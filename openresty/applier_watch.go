package openresty

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/restyplane/restyplane/api"
)

// watchPoll is how often the applier reads the counters while it watches a revision.
const watchPoll = 250 * time.Millisecond

// watch follows the servers a live revision affected for a window after it applied. If
// their 5xx share rises past the threshold, the revision is rolled back to the last good one.
type watch struct {
	revision int64
	previous int64 // the revision to go back to
	until    time.Time
	servers  map[string]bool
	base     map[string]Counter
	ratio    float64
	min      int64
}

// startWatch begins watching head after it applied over running.
func (a *Applier) startWatch(running, head *api.State) {
	a.mu.Lock()
	defer a.mu.Unlock()
	window, _ := ParseDuration(head.Settings.RollbackWindow)
	affected := affectedServers(running, head)
	// A revision whose writer marked it not to be rolled back is never watched.
	if head.Revision == a.noWatch || head.Kept == head.Revision || head.Settings.RollbackErrorRatio == 0 || window == 0 || running == nil {
		a.promote(head.Revision)
		return
	}
	// A revision still under watch when the next one applies showed no harm while it ran:
	// it becomes the way back, so that a bad push returns to the revision just before it.
	if a.watch != nil {
		a.promote(a.watch.revision)
	}
	if len(affected) == 0 {
		a.promote(head.Revision)
		return
	}
	// Nor is one merged into this apply: the way back stops at it.
	w := &watch{previous: max(a.lastGood, head.Kept), servers: map[string]bool{}}
	w.revision, w.until = head.Revision, time.Now().Add(window)
	w.ratio, w.min = head.Settings.RollbackErrorRatio, int64(head.Settings.RollbackMinRequests)
	for s := range affected {
		w.servers[s] = true
	}
	a.watch = w // its baseline is taken at the first look, after the apply
}

// promote records rev as the newest revision known good; the caller holds mu.
func (a *Applier) promote(rev int64) {
	a.lastGood = rev
	a.watch = nil
}

// watchDelay is when the running watch wants its next look, or 0 without one.
func (a *Applier) watchDelay() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.watch == nil {
		return 0
	}
	return watchPoll
}

// checkWatch looks at the counters of the watched servers and rolls back when they are
// unhealthy, or ends the watch when its window passed.
func (a *Applier) checkWatch(ctx context.Context) {
	a.mu.Lock()
	w := a.watch
	a.mu.Unlock()
	if w == nil {
		return
	}
	counters, err := a.proxy.Counters(ctx)
	if err != nil {
		a.log.Warn("read counters", "err", err)
		return
	}
	if w.base == nil {
		w.base = counters
		return
	}
	var req, errs int64
	for s := range w.servers {
		req += counters[s].Requests - w.base[s].Requests
		errs += counters[s].Errors - w.base[s].Errors
	}
	if req >= w.min && req > 0 && float64(errs)/float64(req) >= w.ratio && w.previous > 0 {
		a.rollback(ctx, w, req, errs)
		return
	}
	if time.Now().After(w.until) {
		a.mu.Lock()
		if a.watch == w {
			a.promote(w.revision)
		}
		a.mu.Unlock()
	}
}

// rollback returns the history to the last good revision, as a new revision by the
// applier that says why.
func (a *Applier) rollback(ctx context.Context, w *watch, req, errs int64) {
	servers := make([]string, 0, len(w.servers))
	for s := range w.servers {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	reason := fmt.Sprintf("automatic rollback of revision %d: %d of %d requests (%.0f%%) to servers %s failed with 5xx, threshold %.0f%%",
		w.revision, errs, req, 100*float64(errs)/float64(req), strings.Join(servers, ", "), 100*w.ratio)
	meta := api.Meta{Actor: api.ActorApplier, Source: api.ActorApplier, Message: reason}
	res, err := a.store.Rollback(ctx, meta, w.previous)
	if err != nil {
		a.log.Error("automatic rollback", "revision", w.revision, "to", w.previous, "err", err)
		return
	}
	a.mu.Lock()
	a.watch = nil
	if res.Revision != nil {
		a.noWatch = res.Revision.ID // never roll back a rollback: that way lies a loop
	}
	head := &api.State{Revision: w.revision}
	a.mu.Unlock()
	a.record(ctx, head, api.ModeNone, time.Now(), api.OutcomeRolledBack, fmt.Errorf("%s", reason))
	a.metrics.AutoRollback()
}

// affectedServers lists the servers whose traffic a change from running to head touches:
// servers that changed, and servers routing to a backend that changed (or whose canary
// did).
func affectedServers(running, head *api.State) map[string]bool {
	out := map[string]bool{}
	if running == nil {
		return out
	}
	changed := map[string]bool{}
	for name, b := range head.Backends {
		if r := running.Backends[name]; r == nil || r.Version != b.Version {
			changed[name] = true
		}
	}
	for name, b := range head.Backends {
		if b.Canary != nil && changed[b.Canary.Backend] {
			changed[name] = true
		}
	}
	for name, s := range head.Servers {
		if r := running.Servers[name]; r == nil || r.Version != s.Version {
			out[name] = true
			continue
		}
		for _, l := range s.Locations {
			if changed[l.Backend] {
				out[name] = true
			}
		}
	}
	return out
}
