package nginx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// Instance states, as State reports them.
const (
	StateStopped    = "stopped"
	StateStarting   = "starting"
	StateRunning    = "running"
	StateRestarting = "restarting"
	StateAttached   = "attached"
)

// Instance is one nginx: a master that restyplane started and supervises, or, in attach
// mode, one that someone else started and restyplane only reloads by signal.
type Instance struct {
	opts  Options
	l     layout
	admin *AdminClient

	// op serializes what changes the process or the conf in place: start, restart,
	// reload, stop. It may be held for seconds (a reload waits for its confirmation).
	op sync.Mutex
	// mu guards the fields below and is only held for a moment, so that State and PID
	// answer at once even while a reload runs.
	mu          sync.Mutex
	state       string
	proc        *master // the supervised master; nil in attach mode
	attachedPID int
	gen         string // the generation of the conf in place
	stopping    chan struct{}
	stopOnce    sync.Once
	background  chan struct{} // closed when the supervisor or attach watcher returns

	restarted chan struct{}
	// pushCounters are the counters the last backend push answered (CountersWithPush),
	// until Counters takes them.
	pushCounters keptCounters
}

// NewInstance returns a stopped instance for opts; Start runs it.
func NewInstance(opts Options) *Instance {
	opts = opts.withDefaults()
	if opts.WorkerDir == "" {
		opts.WorkerDir = chooseWorkerDir(opts)
	}
	l := newLayout(opts.Prefix)
	return &Instance{opts: opts, l: l, admin: NewAdminClient(l.Socket()), state: StateStopped,
		stopping: make(chan struct{}), background: make(chan struct{}), restarted: make(chan struct{}, 1)}
}

// Admin returns the client of the instance's admin socket.
func (in *Instance) Admin() *AdminClient { return in.admin }

// Options returns the options the instance runs with, defaults filled in.
func (in *Instance) Options() Options { return in.opts }

// Prefix returns the instance directory.
func (in *Instance) Prefix() string { return in.opts.Prefix }

// State says whether the instance runs: stopped, starting, running, restarting or attached.
func (in *Instance) State() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.state
}

// PID returns the master's pid, 0 when none runs.
func (in *Instance) PID() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.proc != nil {
		return in.proc.pid
	}
	return in.attachedPID
}

// Generation returns the generation of the conf in place.
func (in *Instance) Generation() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.gen
}

// Restarted receives a value after nginx was restarted with empty shared memory (by the
// supervisor, or by someone else in attach mode); the applier then pushes everything again.
// Notifications coalesce: one value may stand for several restarts.
func (in *Instance) Restarted() <-chan struct{} { return in.restarted }

func (in *Instance) notifyRestarted() {
	select {
	case in.restarted <- struct{}{}:
	default:
	}
}

// Start writes the prefix and starts nginx with conf (and the files of certs) as the
// first generation, then supervises it until Stop. With a nil conf it starts with the conf
// already in place (the last good one of a previous run) or, in a fresh prefix, with an
// empty config that answers 404 to everything. It returns once the admin endpoint answers.
//
// nginx outlives the process that started it (see master). So if an nginx of this prefix
// still runs, left by a run that crashed, was killed, or stopped with KeepRunning, Start
// adopts it instead of starting a second one: it supervises that master as its own and,
// given a conf other than the one in place, reloads it (see adopt).
func (in *Instance) Start(ctx context.Context, conf []byte, certs []api.Certificate, generation string) error {
	if err := in.opts.CheckBinary(); err != nil {
		return err
	}
	in.op.Lock()
	defer in.op.Unlock()
	select {
	case <-in.stopping:
		return errors.New("start nginx: the instance was stopped; make a new one")
	default:
	}
	if in.State() != StateStopped || in.PID() != 0 {
		return errors.New("start nginx: the instance was already started")
	}
	if err := in.prepare(); err != nil {
		return fmt.Errorf("prepare prefix %s: %w", in.l, err)
	}
	in.l.pruneTests()
	if pid := in.l.runningPID(); pid != 0 {
		return in.adopt(ctx, pid, conf, certs, generation)
	}
	if conf == nil && in.l.current() == "" {
		var err error
		generation = "0"
		if conf, err = render.Conf(api.Config{Settings: api.DefaultSettings()}, in.opts.RenderOptions(generation)); err != nil {
			return err
		}
	}
	if conf != nil {
		dir, err := in.l.newConfDir(conf, certs, false)
		if err != nil {
			return err
		}
		if err := in.test(ctx, dir); err != nil {
			os.RemoveAll(dir)
			return err
		}
		prev := in.l.current()
		if err := in.l.link(dir); err != nil {
			return err
		}
		in.l.prune(dir, prev)
	}
	in.setState(StateStarting)
	p, st, err := in.launch(ctx)
	if err != nil {
		in.setState(StateStopped)
		return err
	}
	in.mu.Lock()
	in.proc, in.gen, in.state = p, st.Generation, StateRunning
	in.mu.Unlock()
	go in.supervise(p)
	return nil
}

// Stop stops nginx gracefully (QUIT, then KILL after the stop timeout) and ends
// supervision. With KeepRunning, or in attach mode, it only stops watching and leaves
// nginx serving: the next Start on the prefix adopts it.
func (in *Instance) Stop(ctx context.Context) error {
	in.stopOnce.Do(func() { close(in.stopping) })
	if in.State() != StateStopped {
		select {
		case <-in.background:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	in.op.Lock()
	defer in.op.Unlock()
	in.mu.Lock()
	p := in.proc
	in.state, in.proc, in.attachedPID = StateStopped, nil, 0
	in.mu.Unlock()
	if p == nil {
		return nil
	}
	if in.opts.KeepRunning {
		in.opts.Logger.Info("leaving nginx running", "pid", p.pid, "prefix", in.l.String())
		return nil
	}
	if err := p.stop(in.opts.StopTimeout); err != nil {
		return err
	}
	return removeWorkerDir(in.opts.WorkerDir)
}

func (in *Instance) setState(s string) {
	in.mu.Lock()
	in.state = s
	in.mu.Unlock()
}
