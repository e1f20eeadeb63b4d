package nginx

import (
	"context"
	"errors"
	"os"
	"time"
)

// launch starts a master with the conf in place and waits until a worker answers on the
// admin socket. The caller holds op.
func (in *Instance) launch(ctx context.Context) (*master, AdminStatus, error) {
	// A master that was killed leaves its socket and pid file behind; nginx would refuse
	// to bind the socket.
	os.Remove(in.l.Socket())
	os.Remove(in.l.PidFile())
	p, err := startProcess(in.opts.Binary, []string{"-p", in.l.String() + "/", "-c", in.l.conf()}, in.l.stderrLog(), in.opts.LogsTo)
	if err != nil {
		return nil, AdminStatus{}, err
	}
	st, err := in.waitReady(ctx, p.done, p.exitError)
	if err != nil {
		p.stop(in.opts.StopTimeout)
		return nil, AdminStatus{}, err
	}
	return p, st, nil
}

// waitReady polls the admin endpoint until a worker answers, the master exits (done), or
// the start timeout passes. Then it narrows the socket to 0600: nginx creates unix
// sockets world-writable. The socket's 0700 directory is what keeps others out from the
// start (see layout); the mode is a second lock.
func (in *Instance) waitReady(ctx context.Context, done <-chan struct{}, exited func() error) (AdminStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, in.opts.StartTimeout)
	defer cancel()
	for {
		st, err := in.admin.Status(ctx)
		if err == nil {
			if err := os.Chmod(in.l.Socket(), 0o600); err != nil {
				return st, err
			}
			return st, nil
		}
		select {
		case <-done:
			return st, exited()
		case <-ctx.Done():
			return st, errors.Join(errors.New("nginx started but its admin endpoint did not answer in time"), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// supervise restarts the master whenever it exits until Stop, keeps its logs rotated, with a backoff that grows
// while restarts keep failing, and tells the applier after each restart that shared
// memory starts empty. The first master may be an adopted one, not our child: done
// tells its end all the same.
func (in *Instance) supervise(p *master) {
	rotating := make(chan struct{})
	go func() { in.rotateLogs(); close(rotating) }()
	defer func() { <-rotating; close(in.background) }()
	const firstBackoff = 100 * time.Millisecond
	backoff, upSince := firstBackoff, time.Now()
	for {
		select {
		case <-in.stopping:
			return
		case <-p.done:
		}
		p.killGroup()
		in.opts.Logger.Warn("nginx master exited; restarting it", "pid", p.pid, "err", p.exitError())
		in.mu.Lock()
		in.state, in.proc = StateRestarting, nil
		in.mu.Unlock()
		// A master that stayed up for a while earns a quick restart.
		if time.Since(upSince) > 30*time.Second {
			backoff = firstBackoff
		}
		for {
			if !in.sleep(backoff) {
				return
			}
			backoff = min(2*backoff, in.opts.MaxBackoff)
			in.op.Lock()
			np, st, err := in.launch(context.Background())
			if err == nil {
				in.mu.Lock()
				in.proc, in.gen, in.state = np, st.Generation, StateRunning
				in.mu.Unlock()
			}
			in.op.Unlock()
			if err == nil {
				p = np
				break
			}
			in.opts.Logger.Error("restart nginx", "err", err, "retry in", backoff)
		}
		upSince = time.Now()
		in.opts.Logger.Info("nginx restarted", "pid", p.pid)
		in.notifyRestarted()
	}
}

// sleep waits d, or less if the instance is stopping; it reports whether it slept fully.
func (in *Instance) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-in.stopping:
		return false
	}
}
