package rollback

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/restyplane/restyplane/api"
)

// poll is how often the watcher reads its local sources and looks at the sums.
const poll = 250 * time.Millisecond

// Store is the history the watcher reads and rolls back.
type Store interface {
	Head() *api.State
	HeadChanged() <-chan struct{}
	Rollback(ctx context.Context, meta api.Meta, to int64) (*api.WriteResult, error)
}

// Source reads the counters of an instance the control plane runs itself: the revision
// it serves and its per-backend counters, the distinct clients counted for that revision.
type Source func(ctx context.Context) (applied int64, counters map[string]api.BackendCounter, err error)

// Metrics counts the rollbacks the watcher made; nil means none are counted.
type Metrics interface{ AutoRollback() }

// Live names the agents that hold a feed stream now: they run the watched revision or
// will, and count among the instances whose agreement a rollback needs.
type Live func() []string

// Watcher is the one decider of automatic rollbacks. It takes counters only from the
// instances it reads itself and from the reports of authenticated agents, each for its own
// instance, and rolls back only when a majority of the instances running the revision
// agree (all of them, when fewer than three).
type Watcher struct {
	store   Store
	log     *slog.Logger
	sources map[string]Source
	metrics Metrics
	live    Live

	mu       sync.Mutex
	seen     *api.State // the newest head the watcher looked at
	lastGood int64      // newest revision that stayed healthy through its window
	noWatch  int64      // the watcher's own rollback revision, never watched: no loops
	watch    *watch
}

// New returns a watcher over store; sources are the instances it reads itself, by name.
func New(store Store, log *slog.Logger, metrics Metrics, sources map[string]Source) *Watcher {
	return &Watcher{store: store, log: log, sources: sources, metrics: metrics}
}

// SetLive tells the watcher which agents hold a feed stream; the server that knows is made
// after the watcher, which it takes the counters in for.
func (w *Watcher) SetLive(live Live) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.live = live
}

// Observe takes an instance's counters in: they count for the watched revision only when
// the instance serves it.
func (w *Watcher) Observe(instance string, applied int64, counters map[string]api.BackendCounter) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watch != nil && applied == w.watch.revision {
		w.watch.observe(instance, counters)
	}
}

// Watching is the revision under watch, 0 when none, and the newest known good.
func (w *Watcher) Watching() (revision, lastGood int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watch != nil {
		revision = w.watch.revision
	}
	return revision, w.lastGood
}

// Run watches every new head until ctx ends. The head it starts with is taken as good:
// a revision written before this control plane started is not watched.
func (w *Watcher) Run(ctx context.Context) error {
	w.mu.Lock()
	w.seen = w.store.Head()
	w.lastGood = w.seen.Revision
	w.mu.Unlock()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		changed := w.store.HeadChanged()
		w.headMoved(w.store.Head(), time.Now())
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-t.C:
			w.readSources(ctx)
			w.check(ctx, time.Now())
		}
	}
}

// headMoved starts watching head when it is new.
func (w *Watcher) headMoved(head *api.State, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen != nil && head.Revision == w.seen.Revision {
		return
	}
	running := w.seen
	w.seen = head
	// A revision still under watch when the next one arrives showed no harm while it ran:
	// it becomes the way back, so that a bad push returns to the revision just before it.
	if w.watch != nil {
		w.lastGood = w.watch.revision
		w.watch = nil
	}
	window, _ := time.ParseDuration(head.Settings.RollbackWindow)
	affected := api.AffectedBackends(running, head)
	if len(affected) > 0 && api.OnlyPodsMoved(running, head) {
		// A rollout's new Pods: rolling back would pin the ones it replaced.
		w.log.Info("not watched: only the endpoints of Kubernetes Services moved, which follow the cluster", "revision", head.Revision)
		affected = nil
	}
	if head.Revision == w.noWatch || head.Kept == head.Revision || head.Settings.RollbackErrorRatio == 0 ||
		window == 0 || len(affected) == 0 {
		w.lastGood = head.Revision
		return
	}
	wt := &watch{revision: head.Revision, previous: max(w.lastGood, head.Kept), backends: affected,
		until: now.Add(window), ratio: head.Settings.RollbackErrorRatio,
		min: int64(head.Settings.RollbackMinRequests), minClients: int64(head.Settings.RollbackMinClients),
		instances: map[string]*tally{}}
	if wt.minClients == 0 {
		wt.minClients = api.DefaultRollbackMinClients
	}
	w.watch = wt
}

// readSources feeds the local instances' counters in while a revision is watched.
func (w *Watcher) readSources(ctx context.Context) {
	w.mu.Lock()
	watching := w.watch != nil
	w.mu.Unlock()
	if !watching {
		return
	}
	for name, src := range w.sources {
		applied, counters, err := src(ctx)
		if err != nil {
			w.log.Warn("read counters", "instance", name, "err", err)
			continue
		}
		w.Observe(name, applied, counters)
	}
}

// check decides on the watched revision: rolls it back, promotes it, or waits.
func (w *Watcher) check(ctx context.Context, now time.Time) {
	w.mu.Lock()
	wt, live := w.watch, w.live
	w.mu.Unlock()
	if wt == nil {
		return
	}
	var names []string
	if live != nil {
		names = live()
	}
	w.mu.Lock()
	if w.watch != wt {
		w.mu.Unlock()
		return
	}
	v, f := wt.decide(now, names)
	switch v {
	case promote:
		w.lastGood, w.watch = wt.revision, nil
	case rollBack:
		w.watch = nil // decided once: a failed rollback is logged, not retried in a loop
	}
	w.mu.Unlock()
	if v != rollBack {
		return
	}
	reason := wt.reason(f)
	meta := api.Meta{Actor: api.ActorApplier, Source: api.ActorApplier, Message: reason}
	res, err := w.store.Rollback(ctx, meta, wt.previous)
	if err != nil {
		w.log.Error("automatic rollback", "revision", wt.revision, "to", wt.previous, "err", err)
		return
	}
	w.log.Warn("automatic rollback", "revision", wt.revision, "to", wt.previous, "reason", reason)
	if res.Revision != nil {
		w.mu.Lock()
		w.noWatch = res.Revision.ID
		w.mu.Unlock()
	}
	if w.metrics != nil {
		w.metrics.AutoRollback()
	}
}
