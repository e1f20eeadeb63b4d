package conformance

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// proc is a program the harness runs for the length of a test. Its output goes to a file,
// and it is killed if the test process dies first (Pdeathsig), so that a killed run
// leaves nothing running.
type proc struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// startProc starts cmd with its output in the file logPath: as it is, or as a container
// runtime keeps a container's log when cri is set (see criLog).
func startProc(name, logPath string, cmd *exec.Cmd, cri bool) (*proc, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("%s's log: %w", name, err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if cri {
		l := &criLog{f: f}
		cmd.Stdout, cmd.Stderr = &criStream{log: l, stream: "stdout"}, &criStream{log: l, stream: "stderr"}
	}
	// A process group of its own: a terminal's ^C reaches the test, which stops its
	// programs in order, and stop can kill whatever the program started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// pid is the program's process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the program has ended, and how.
func (p *proc) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// stop ends the program with SIGTERM, and its process group with SIGKILL when it has not
// exited within grace. It returns once the program is gone.
func (p *proc) stop(grace time.Duration) {
	if done, _ := p.exited(); done {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
		<-p.done
	}
}

// tail returns the last n bytes of the program's output.
func (p *proc) tail(n int64) string {
	f, err := os.Open(p.log)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}
