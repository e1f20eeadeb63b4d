package nginx

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// master is one nginx master process: one this instance started, or one a previous run
// started and this one adopted. Either way it is not tied to restyplane's life: it runs in
// a session of its own (so a signal to restyplane's process group or terminal does not
// reach it), nothing kills it when restyplane dies, and its stderr goes to a file, which
// neither blocks nor breaks (EPIPE) when restyplane is gone.
type master struct {
	pid    int
	group  bool          // pid leads its own process group, which its workers share
	done   chan struct{} // closed when the master has exited
	err    error         // its exit status when it was our child, once done is closed
	stderr string        // the file its stderr goes to, to explain an early exit
}

// startProcess runs binary with args as the master of a new session, its stdout and
// stderr in the file stderr (truncated: no other master of the prefix runs by now), or
// on out when it is set (then stderr is not kept for an early exit's explanation).
func startProcess(binary string, args []string, stderr string, out *os.File) (*master, error) {
	f := out
	if f == nil {
		var err error
		if f, err = os.OpenFile(stderr, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600); err != nil {
			return nil, fmt.Errorf("start nginx: %w", err)
		}
		defer f.Close() // nginx holds its own copy
	} else {
		stderr = ""
	}
	cmd := exec.Command(binary, args...)
	// Setsid also makes nginx the leader of a process group of its own, which its workers
	// join: killGroup reaches workers that outlive a killed master.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	m := &master{pid: cmd.Process.Pid, group: true, done: make(chan struct{}), stderr: stderr}
	go func() {
		// Wait reaps the child; nothing else would.
		m.err = cmd.Wait()
		close(m.done)
	}()
	return m, nil
}

// adoptProcess watches pid, a master that this process did not start, so it cannot Wait
// for it: done closes when the process exits, as a pidfd tells, or as polling its state
// tells where pidfds are missing.
func adoptProcess(pid int, stderr string) *master {
	_, _, pgrp, _ := procStat(pid)
	m := &master{pid: pid, group: pgrp == pid, done: make(chan struct{}), stderr: stderr}
	go func() {
		defer close(m.done)
		if waitPidfd(pid) == nil {
			return
		}
		for alive(pid) {
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return m
}

// signal sends sig to the master.
func (m *master) signal(sig syscall.Signal) error {
	if err := syscall.Kill(m.pid, sig); err != nil {
		return fmt.Errorf("signal nginx master %d: %w", m.pid, err)
	}
	return nil
}

// killGroup kills whatever is left of the process group: workers outlive a master that
// was killed, and would keep the listening sockets. A pid stays reserved while it names a
// live process group, so this never reaches someone else's processes.
func (m *master) killGroup() {
	if m.group {
		syscall.Kill(-m.pid, syscall.SIGKILL)
	}
}

// stop asks the master to finish the requests in flight and exit (QUIT), and kills the
// group if it has not exited within timeout.
func (m *master) stop(timeout time.Duration) error {
	select {
	case <-m.done:
		m.killGroup()
		return nil
	default:
	}
	if err := m.signal(syscall.SIGQUIT); err != nil && !errors.Is(err, syscall.ESRCH) {
		m.killGroup()
	}
	select {
	case <-m.done:
		m.killGroup()
		return nil
	case <-time.After(timeout):
		m.killGroup()
		syscall.Kill(m.pid, syscall.SIGKILL)
		<-m.done
		return fmt.Errorf("nginx master %d did not stop within %s and was killed", m.pid, timeout)
	}
}

// exitError explains why the master exited, with the last lines it wrote to stderr.
func (m *master) exitError() error {
	msg := "exited"
	if m.err != nil {
		msg = m.err.Error()
	}
	if t := lastLines(m.stderr, 20); t != "" {
		return fmt.Errorf("nginx %s: %s", msg, t)
	}
	return fmt.Errorf("nginx %s", msg)
}

// lastLines returns the last n lines of the file at path (of its last 64 KiB).
func lastLines(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 64<<10 {
		f.Seek(fi.Size()-64<<10, io.SeekStart)
	}
	var lines []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		lines = append(lines, s.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
