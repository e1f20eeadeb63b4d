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

// watch follows the backends a live revision changed for a window after it applied. If
// the share of their requests that the upstream answered with a 5xx rises past the
// threshold, from enough distinct clients, the revision is rolled back to the last good
// one. Only upstream answers of changed backends count, so that a client cannot provoke
// a rollback through a path the revision did not touch, nor through answers nginx made
// up for it; and one client alone is never enough.
type watch struct {
	revision   int64
	previous   int64 // the revision to go back to
	until      time.Time
	backends   map[string]bool
	base       map[string]Counter
	ratio      float64
	min        int64
	minClients int64
}

// startWatch begins watching head after it applied over running; the caller holds mu, so
// that the status never shows the new revision applied without its watch.
func (a *Applier) startWatch(running, head *api.State) {
	window, _ := ParseDuration(head.Settings.RollbackWindow)
	affected := affectedBackends(running, head)
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
	w := &watch{previous: max(a.lastGood, head.Kept), backends: affected}
	w.revision, w.until = head.Revision, time.Now().Add(window)
	w.ratio, w.min = head.Settings.RollbackErrorRatio, int64(head.Settings.RollbackMinRequests)
	w.minClients = int64(head.Settings.RollbackMinClients)
	if w.minClients == 0 {
		w.minClients = api.DefaultRollbackMinClients
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
	// The watched revision is the epoch: distinct clients are counted from the first look.
	counters, err := a.proxy.Counters(ctx, w.revision)
	if err != nil {
		a.log.Warn("read counters", "err", err)
		return
	}
	if w.base == nil {
		w.base = counters
		return
	}
	var req, errs, clients int64
	for b := range w.backends {
		req += max(counters[b].Requests-w.base[b].Requests, 0)
		errs += max(counters[b].Errors-w.base[b].Errors, 0)
		// A client failing on two backends is one client: the largest count is a floor.
		clients = max(clients, counters[b].Clients)
	}
	if req >= w.min && req > 0 && float64(errs)/float64(req) >= w.ratio && clients >= w.minClients && w.previous > 0 {
		a.rollback(ctx, w, req, errs, clients)
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
func (a *Applier) rollback(ctx context.Context, w *watch, req, errs, clients int64) {
	backends := make([]string, 0, len(w.backends))
	for b := range w.backends {
		backends = append(backends, b)
	}
	sort.Strings(backends)
	reason := fmt.Sprintf("automatic rollback of revision %d: %d of %d requests (%.0f%%) to backends %s got a 5xx from the upstream, from %d distinct clients; threshold %.0f%%",
		w.revision, errs, req, 100*float64(errs)/float64(req), strings.Join(backends, ", "), clients, 100*w.ratio)
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
	a.mu.Unlock()
	rec := a.record(ctx, &api.State{Revision: w.revision}, api.ModeNone, time.Now(), api.OutcomeRolledBack, fmt.Errorf("%s", reason))
	a.mu.Lock()
	a.last = rec
	a.mu.Unlock()
	a.metrics.AutoRollback()
}

// affectedBackends lists the backends whose traffic a change from running to head
// touches (see api.AffectedBackends).
func affectedBackends(running, head *api.State) map[string]bool {
	return api.AffectedBackends(running, head)
}
