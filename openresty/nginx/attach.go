package nginx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Attach returns an instance for an nginx that someone else started with the prefix in
// opts and a conf rendered by restyplane (so that its admin socket answers). restyplane
// reloads it by signalling the pid in <prefix>/logs/nginx.pid and never stops it; when the
// pid changes, Restarted fires so that the applier pushes everything again.
func Attach(ctx context.Context, opts Options) (*Instance, error) {
	in := NewInstance(opts)
	pid := in.l.runningPID()
	if pid == 0 {
		return nil, fmt.Errorf("attach: no nginx runs with prefix %s (no live pid in %s)", in.l, in.l.PidFile())
	}
	if err := in.prepare(); err != nil {
		return nil, fmt.Errorf("prepare prefix %s: %w", in.l, err)
	}
	in.l.pruneTests()
	if err := in.l.adopt(); err != nil {
		return nil, err
	}
	st, err := in.admin.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("attach: the admin endpoint at %s does not answer (was nginx started with a conf rendered by restyplane?): %w", in.l.Socket(), err)
	}
	if err := os.Chmod(in.l.Socket(), 0o600); err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	in.state, in.attachedPID, in.gen = StateAttached, pid, st.Generation
	go in.watchAttached(pid)
	return in, nil
}

// watchAttached notices a new master (someone restarted nginx) by its pid file.
func (in *Instance) watchAttached(pid int) {
	defer close(in.background)
	for in.sleep(time.Second) {
		now := in.l.runningPID()
		if now == 0 || now == pid {
			continue
		}
		st, err := in.waitReady(context.Background(), nil, nil)
		if err != nil {
			in.opts.Logger.Warn("attached nginx restarted but does not answer yet", "pid", now, "err", err)
			continue
		}
		in.mu.Lock()
		in.attachedPID, in.gen = now, st.Generation
		in.mu.Unlock()
		pid = now
		in.notifyRestarted()
	}
}

// adopt turns a conf directory into the symlinked layout: the conf in place moves to
// confs/<n> and <prefix>/conf points at it.
func (l layout) adopt() error {
	fi, err := os.Lstat(l.confLink())
	if err != nil || fi.Mode()&os.ModeSymlink != 0 {
		return nil
	}
	dir := filepath.Join(l.confsDir(), strconv.Itoa(l.lastConfDir()+1))
	if err := os.Rename(l.confLink(), dir); err != nil {
		return fmt.Errorf("attach: move %s to %s: %w", l.confLink(), dir, err)
	}
	return l.link(dir)
}
