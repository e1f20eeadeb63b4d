package openresty

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/openresty/render"
)

// Store is what the applier needs from the history.
type Store interface {
	Head() *api.State
	HeadChanged() <-chan struct{}
	RecordApply(ctx context.Context, rec *api.ApplyRecord) error
}

// Proxy is one OpenResty instance as the applier drives it.
type Proxy interface {
	// RenderSized returns the nginx.conf for cfg, with the shared dicts sized as given
	// (cfg comes without its backends), stamped with generation.
	RenderSized(cfg api.Config, dicts render.DictSizes, generation string) ([]byte, error)
	// Test runs nginx -t on conf with the certificate files it names.
	Test(ctx context.Context, conf []byte, certs []api.Certificate) error
	// Reload tests, swaps in, reloads and confirms conf, restoring the previous file on
	// any failure. Its error carries nginx's own text.
	Reload(ctx context.Context, conf []byte, certs []api.Certificate, generation string) error
	// render.Push sends changed and deleted backends and certificates, stamped with version. The
	// objects it could not apply are left out and returned; the rest applied.
	Push(ctx context.Context, version int64, push render.Push) ([]api.SkippedObject, error)
	// Restarted is signalled when the instance started afresh with empty shared memory.
	Restarted() <-chan struct{}
	// State says whether the instance runs ("running", "starting", "stopped", ...).
	State() string
}

// Metrics receives what the applier does; the server package implements it with
// Prometheus. Every method must be cheap and safe for concurrent use.
type Metrics interface {
	Apply(mode, outcome string, duration time.Duration)
	Propagation(d time.Duration)
	Applied(revision int64, at time.Time)
	// Skipped counts one object an apply could not apply and left out.
	Skipped(kind string)
}

// Applier brings one OpenResty instance to the head of the history: dynamically when only
// backends and certificates changed, by a tested reload otherwise. Whether a live
// revision made the proxy unhealthy is decided elsewhere, from the counters of every
// instance (package rollback); the applier only applies what the head then says.
type Applier struct {
	store    Store
	proxy    Proxy
	metrics  Metrics
	log      *slog.Logger
	instance string

	// stepMu lets one step run at a time, Run's or ApplyNow's: one apply at a time.
	stepMu sync.Mutex

	mu         sync.Mutex
	running    *api.State       // what the instance serves; nil until the first apply
	runningCnf []byte           // its nginx.conf, rendered with an empty generation
	runningDct render.DictSizes // the dict sizes that conf names
	rejected   int64            // head revision that nginx rejected; not retried until the head moves
	lastReload time.Time
	// needFull asks for every dynamic object to be pushed again: at the first apply, and
	// after OpenResty restarted with empty shared memory. It stays set until that push
	// succeeded, so a wait for the reload interval does not lose it.
	needFull bool
	last     *api.ApplyRecord
	// skipped are the objects the last apply left out; each later apply pushes them again,
	// and so does a retry every retrySkipped while the head does not move (retryAt).
	skipped []api.SkippedObject
	retryAt time.Time
	// bad are the server versions nginx or the renderer refused (see effective): each
	// step renders without them, so one tenant's server never holds back the others.
	bad map[string]badServer

	// answerWait, when set, has nginx's answer to a dynamic push read later (see
	// AnswerLater); wake is Run's signal of a newer head, which ends that wait. Both are
	// step's, under stepMu.
	answerWait time.Duration
	wake       <-chan struct{}
}

// NewApplier returns an applier for one instance; metrics may be nil.
func NewApplier(store Store, proxy Proxy, metrics Metrics, log *slog.Logger, instance string) *Applier {
	if metrics == nil {
		metrics = nopMetrics{}
	}
	return &Applier{store: store, proxy: proxy, metrics: metrics, log: log, instance: instance, needFull: true}
}

// Run applies revisions until ctx ends. It wakes on every new revision, so a lone change
// is live within milliseconds; revisions that arrive while it applies are merged into the
// next apply, because it always applies the head as it is then.
func (a *Applier) Run(ctx context.Context) error {
	var wait <-chan time.Time
	for {
		changed := a.store.HeadChanged() // taken before reading the head, so no revision is missed
		a.stepMu.Lock()
		a.wake = changed
		delay := a.step(ctx, false)
		a.stepMu.Unlock()
		wait = nil
		if delay > 0 {
			wait = time.After(delay)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-a.proxy.Restarted():
			a.mu.Lock()
			a.needFull = true
			a.mu.Unlock()
		case <-wait:
		}
	}
}

// ApplyNow applies the head on the caller's goroutine when that takes only a dynamic push
// and no step is running; otherwise it does nothing and Run applies the head as usual. The
// API calls it after a commit, before it answers: under load, handing the change to Run's
// goroutine cost a wake-up on cores that nginx and the traffic keep busy, while
// the committing goroutine is already running. A reload never runs here: its nginx -t
// would hold the API's answer for seconds.
func (a *Applier) ApplyNow(ctx context.Context) {
	if !a.stepMu.TryLock() {
		return // Run is applying; it looks at the head again when it is done
	}
	defer a.stepMu.Unlock()
	a.wake = nil
	// The push goes on even if the client hangs up: the revision is committed already.
	a.step(context.WithoutCancel(ctx), true)
}

// step applies the head once. It returns how long to wait before the next step when
// something is due without a new revision: the end of the minimum reload interval or a
// retry. With onlyDynamic (ApplyNow) it applies only a dynamic change of the head and
// leaves everything else to Run.
func (a *Applier) step(ctx context.Context, onlyDynamic bool) time.Duration {
	head := a.store.Head()
	a.mu.Lock()
	running, rejected, lastReload, full := a.running, a.rejected, a.lastReload, a.needFull
	a.mu.Unlock()
	if onlyDynamic && (running == nil || running.Revision == head.Revision || rejected == head.Revision) {
		return 0
	}
	if !full && running != nil && running.Revision == head.Revision && !a.retryDue() {
		return a.idleDelay()
	}
	if !full && rejected == head.Revision {
		return 0
	}
	for round := 0; ; round++ {
		// A server that nginx or the renderer refuses is traced, left out (or kept at the
		// version that runs) and reported, and the step plans again without it.
		eff, traced := a.effective(head)
		p, err := a.plan(eff, full)
		if err != nil && round < maxTraced && a.markBad(eff, tracedServers(err, nil, eff), err) {
			continue
		}
		if onlyDynamic && (err != nil || p.mode != api.ModeDynamic) {
			return 0 // a rejection or a reload is Run's
		}
		if err != nil {
			mode := api.ModeNone
			if p != nil {
				mode = p.mode
			}
			a.reject(ctx, head, mode, time.Now(), err)
			a.fallBack(ctx, head)
			return 0
		}
		if p.mode == api.ModeReload {
			if wait := minInterval(head) - time.Since(lastReload); wait > 0 {
				return wait
			}
		}
		retry, again := a.apply(ctx, eff, p, traced, round < maxTraced)
		if again {
			continue
		}
		return retry
	}
}

// nopMetrics is the Metrics of an applier nobody observes.
type nopMetrics struct{}

func (nopMetrics) Apply(string, string, time.Duration) {}
func (nopMetrics) Propagation(time.Duration)           {}
func (nopMetrics) Applied(int64, time.Time)            {}
func (nopMetrics) Skipped(string)                      {}

func minInterval(s *api.State) time.Duration {
	d, _ := ParseDuration(s.Settings.MinReloadInterval)
	return d
}

var _ Proxy = (*nginx.Instance)(nil)
