package nginx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/restyplane/restyplane/api"
)

// Test runs nginx -t on conf with the files of certs, in a throwaway directory: nothing
// that runs is touched. The error carries nginx's own text.
func (in *Instance) Test(ctx context.Context, conf []byte, certs []api.Certificate) error {
	if _, err := os.Stat(in.l.confsDir()); err != nil {
		// Never started here: lay out the prefix, which init_by_lua needs.
		if err := in.prepare(); err != nil {
			return fmt.Errorf("prepare prefix %s: %w", in.l, err)
		}
	}
	dir, err := in.l.newConfDir(conf, certs, true)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return in.test(ctx, dir)
}

// test runs nginx -t on the conf in dir.
func (in *Instance) test(ctx context.Context, dir string) error {
	cmd := exec.CommandContext(ctx, in.opts.Binary, "-t", "-q", "-p", in.l.String()+"/", "-c", filepath.Join(dir, "nginx.conf"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		text := strings.TrimSpace(string(out))
		if text == "" {
			text = err.Error()
		}
		return fmt.Errorf("nginx -t: %s", text)
	}
	return nil
}

// Reload brings in conf (with the files of certs) as generation: it writes them to a new
// directory, runs nginx -t, swaps the conf symlink atomically (the previous directory
// stays), raises the drain flag (see drain.go) so that kept-alive clients reconnect
// instead of meeting a closing worker, signals the master, waits until the admin endpoint
// reports the new generation and the old workers shut down, and lowers the flag. If any
// step fails, the previous conf goes back (and the master is signalled again if it may
// have loaded the new one), the flag comes down, and the error carries nginx's own text.
func (in *Instance) Reload(ctx context.Context, conf []byte, certs []api.Certificate, generation string) error {
	if generation == "" {
		return errors.New("reload: a generation is needed to confirm the reload")
	}
	in.op.Lock()
	defer in.op.Unlock()
	return in.reload(ctx, conf, certs, generation)
}

// reload is Reload for a caller that holds op.
func (in *Instance) reload(ctx context.Context, conf []byte, certs []api.Certificate, generation string) error {
	if st := in.State(); st != StateRunning && st != StateAttached {
		return fmt.Errorf("reload: nginx is %s", st)
	}
	dir, err := in.l.newConfDir(conf, certs, false)
	if err != nil {
		return err
	}
	if err := in.test(ctx, dir); err != nil {
		os.RemoveAll(dir)
		return err
	}
	prev, prevGen := in.l.current(), in.Generation()
	if err := in.l.link(dir); err != nil {
		os.RemoveAll(dir)
		return err
	}
	in.drain(ctx)
	logStart, old := fileSize(in.workers().ErrorLog()), children(in.PID())
	err = in.hup()
	if err == nil {
		err = in.confirm(ctx, generation, old, logStart)
	}
	if err != nil {
		in.restore(prev, prevGen)
		in.undrain()
		os.RemoveAll(dir)
		return fmt.Errorf("reload to generation %s: %w", generation, err)
	}
	in.mu.Lock()
	in.gen = generation
	in.mu.Unlock()
	in.l.prune(dir, prev)
	in.undrain()
	return nil
}

// restore puts the previous conf back after a failed reload. If workers may run the new
// conf (the admin endpoint does not report the previous generation), it reloads again.
func (in *Instance) restore(prev, prevGen string) {
	if prev == "" {
		return
	}
	if err := in.l.link(prev); err != nil {
		in.opts.Logger.Error("restore the previous nginx.conf", "err", err)
		return
	}
	ctx := context.Background()
	if st, err := in.admin.Status(ctx); err == nil && st.Generation == prevGen {
		return
	}
	logStart, old := fileSize(in.workers().ErrorLog()), children(in.PID())
	if err := in.hup(); err != nil {
		in.opts.Logger.Error("reload the previous nginx.conf", "err", err)
		return
	}
	if err := in.confirm(ctx, prevGen, old, logStart); err != nil {
		in.opts.Logger.Error("confirm the previous nginx.conf", "err", err)
	}
}

// hup asks the master to reload its conf. The caller holds op.
func (in *Instance) hup() error {
	in.mu.Lock()
	p := in.proc
	in.mu.Unlock()
	if p != nil {
		return p.signal(syscall.SIGHUP)
	}
	pid := in.l.runningPID()
	if pid == 0 {
		return errors.New("no nginx master runs with this prefix")
	}
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		return fmt.Errorf("signal nginx master %d: %w", pid, err)
	}
	return nil
}

// confirmAttempt bounds one status request of a confirmation. Each request has a
// connection of its own, and once, on a loaded machine, one went unanswered for the whole
// reload timeout (the cause is not known); a new request on a new connection goes to
// whichever worker accepts it then.
const confirmAttempt = 2 * time.Second

// confirm waits until a new worker (none of old, the workers from before the signal)
// reports generation: the generation alone would not tell a reload to the same generation
// from one the master refused. It then waits until no old worker accepts connections any
// more: the master signals the old workers only after it started the new ones and paused
// (100 ms in nginx), and until then they serve new connections with the previous conf.
// An [emerg] line that the master writes to the error log after logStart means it refused
// the conf and keeps the old one (a port that cannot be bound, say, which nginx -t does
// not check); that ends the wait at once.
func (in *Instance) confirm(ctx context.Context, generation string, old map[int]bool, logStart int64) error {
	ctx, cancel := context.WithTimeout(ctx, in.opts.ReloadTimeout)
	defer cancel()
	var last string
	for {
		actx, acancel := context.WithTimeout(ctx, confirmAttempt)
		st, err := in.admin.Status(actx)
		acancel()
		switch {
		case err != nil:
			last = err.Error()
		case st.Generation != generation || old[st.PID]:
			last = fmt.Sprintf("worker %d reports generation %q", st.PID, st.Generation)
		default:
			accepting := acceptingWorkers(old)
			if len(accepting) == 0 {
				return nil
			}
			last = fmt.Sprintf("workers %v of the previous conf still accept connections", accepting)
		}
		if emerg := emergSince(in.workers().ErrorLog(), logStart); emerg != "" {
			return fmt.Errorf("nginx refused the conf: %s", emerg)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not confirmed within %s: %s", in.opts.ReloadTimeout, last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// acceptingWorkers returns the processes among pids that are nginx workers still
// accepting connections. A worker closes its listening sockets when it takes the signal
// to shut down, and renames itself "worker process is shutting down" at that moment; a
// process that is gone accepts nothing either.
func acceptingWorkers(pids map[int]bool) []int {
	var out []int
	for pid := range pids {
		title, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		if bytes.Contains(title, []byte("worker process")) && !bytes.Contains(title, []byte("shutting down")) {
			out = append(out, pid)
		}
	}
	sort.Ints(out)
	return out
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// emergSince returns the [emerg] lines written to the log after offset.
func emergSince(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	var lines []string
	s := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for s.Scan() {
		if bytes.Contains(s.Bytes(), []byte("[emerg]")) {
			lines = append(lines, s.Text())
		}
	}
	return strings.Join(lines, "\n")
}
