package openresty

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is one nginx master started as a child, in a process group of its own so that
// its workers can be killed with it.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the master has exited
	err  error         // its exit status, once done is closed
	tail *tail
}

// startProcess runs binary with args. nginx's stderr goes to log line by line, and its
// last lines are kept to explain an early exit.
func startProcess(binary string, args []string, log *slog.Logger) (*process, error) {
	cmd := exec.Command(binary, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true,
		// If restyplane dies, nginx stops too (fast shutdown) instead of running on
		// unsupervised with an admin socket nobody drives.
		Pdeathsig: syscall.SIGTERM,
	}
	// stderr is a pipe of our own rather than cmd.StderrPipe: workers inherit it and
	// outlive a killed master, and Wait must return when the master exits, not when the
	// last worker closes its stderr.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start nginx: %w", err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	p := &process{cmd: cmd, done: make(chan struct{}), tail: &tail{max: 20}}
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	go func() {
		defer r.Close()
		s := bufio.NewScanner(r)
		for s.Scan() {
			p.tail.add(s.Text())
			log.Info("nginx", "pid", cmd.Process.Pid, "stderr", s.Text())
		}
		io.Copy(io.Discard, r)
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// signal sends sig to the master.
func (p *process) signal(sig syscall.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal nginx master %d: %w", p.pid(), err)
	}
	return nil
}

// killGroup kills whatever is left of the process group: workers outlive a master that
// was killed, and would keep the listening sockets.
func (p *process) killGroup() {
	syscall.Kill(-p.pid(), syscall.SIGKILL)
}

// stop asks the master to finish the requests in flight and exit (QUIT), and kills the
// group if it has not exited within timeout.
func (p *process) stop(timeout time.Duration) error {
	select {
	case <-p.done:
		p.killGroup()
		return nil
	default:
	}
	if err := p.signal(syscall.SIGQUIT); err != nil && !errors.Is(err, syscall.ESRCH) {
		p.killGroup()
	}
	select {
	case <-p.done:
		p.killGroup()
		return nil
	case <-time.After(timeout):
		p.killGroup()
		<-p.done
		return fmt.Errorf("nginx master %d did not stop within %s and was killed", p.pid(), timeout)
	}
}

// exitError explains why the master exited, with its last stderr lines.
func (p *process) exitError() error {
	msg := "exited"
	if p.err != nil {
		msg = p.err.Error()
	}
	if t := p.tail.String(); t != "" {
		return fmt.Errorf("nginx %s: %s", msg, t)
	}
	return fmt.Errorf("nginx %s", msg)
}

// tail keeps the last lines written to it.
type tail struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
