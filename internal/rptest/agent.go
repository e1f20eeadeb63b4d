package rptest

import (
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// AgentOptions say how to start a `restyplane agent`.
type AgentOptions struct {
	// ControlPlane is the control plane's URL; Token a dataplane token.
	ControlPlane, Token string
	// Name is the instance name; DataDir empty means a fresh temporary directory.
	Name, DataDir string
	// Args are more flags.
	Args []string
	// Session runs the agent in a session of its own, as a service manager starts a
	// daemon (and as the agent starts its nginx). With the kernel's autogroups a busy
	// machine gives each session an equal share of its CPU: agents left in the test's
	// session share one slice with the test and each other.
	Session bool
}

// Agent is a running `restyplane agent` with its own nginx on free loopback ports.
type Agent struct {
	// Health is http://host:port of /healthz, /readyz and /metrics; Proxy is nginx's
	// HTTP listener as http://host:port, and TLS its HTTPS listener as host:port.
	Health, Proxy, TLS string
	DataDir            string
	Logs               *LockedBuffer

	tb      testing.TB
	args    []string
	session bool
	mu      sync.Mutex
	cmd     *exec.Cmd
	waited  chan struct{}
	stopped bool
}

// StartAgent runs restyplane agent and returns at once: a new agent may well not be ready.
// The test's cleanup stops it.
func StartAgent(tb testing.TB, o AgentOptions) *Agent {
	tb.Helper()
	if o.DataDir == "" {
		o.DataDir = tb.TempDir()
	}
	listen, proxy, tls := FreeAddr(tb), FreeAddr(tb), FreeAddr(tb)
	a := &Agent{Health: "http://" + listen, Proxy: "http://" + proxy, TLS: tls, DataDir: o.DataDir, Logs: &LockedBuffer{}, tb: tb, session: o.Session,
		args: append([]string{"agent", "--control-plane", o.ControlPlane, "--token", o.Token, "--name", o.Name,
			"--listen", listen, "--data-dir", o.DataDir, "--proxy-listen", proxy, "--tls-listen", tls}, o.Args...)}
	a.launch()
	tb.Cleanup(a.Stop)
	return a
}

func (a *Agent) launch() {
	a.tb.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cmd = exec.Command(Binary(a.tb), a.args...)
	a.cmd.Stdout, a.cmd.Stderr = a.Logs, a.Logs
	if a.session {
		a.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := a.cmd.Start(); err != nil {
		a.tb.Fatalf("start restyplane agent: %v", err)
	}
	a.waited = make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { _ = c.Wait(); close(done) }(a.cmd, a.waited)
	a.stopped = false
}

// Ready reports whether /readyz answers 200.
func (a *Agent) Ready() bool {
	resp, err := http.Get(a.Health + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// WaitReady waits until the agent is ready.
func (a *Agent) WaitReady(within time.Duration) {
	a.tb.Helper()
	deadline := time.Now().Add(within)
	for !a.Ready() {
		if time.Now().After(deadline) {
			a.tb.Fatalf("agent %s not ready within %s; logs:\n%s", a.args[6], within, a.Logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop ends the agent with SIGINT (which stops its nginx), KILL after 30 s.
func (a *Agent) Stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return
	}
	a.stopped = true
	_ = a.cmd.Process.Signal(os.Interrupt)
	select {
	case <-a.waited:
	case <-time.After(30 * time.Second):
		_ = a.cmd.Process.Signal(syscall.SIGKILL)
		<-a.waited
	}
	if a.tb.Failed() {
		a.tb.Logf("agent logs:\n%s", a.Logs)
	}
}

// Restart stops the agent and starts it again with the same flags, ports and data dir.
func (a *Agent) Restart() {
	a.tb.Helper()
	a.Stop()
	a.launch()
}

// PID is the running agent process's id.
func (a *Agent) PID() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cmd.Process.Pid
}
