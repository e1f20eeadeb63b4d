// Package rptest runs the real restyplane for the end-to-end tests, the browser tests and
// the benchmarks: cmd/restyplane built once per test binary, started as `restyplane serve`
// with its managed nginx on free loopback ports, spoken to over HTTP, and stopped with
// SIGINT as an operator would.
package rptest

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var built struct {
	once      sync.Once
	dir, path string
	err       error
}

// Binary returns cmd/restyplane, built on first use; Main removes it at the end.
func Binary(tb testing.TB) string {
	tb.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "restyplane-bin"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "restyplane")
		cmd := exec.Command("go", "build", "-o", built.path, "github.com/restyplane/restyplane/cmd/restyplane")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build cmd/restyplane: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.path
}

// Main runs the tests of a package that uses Binary and removes the binary afterwards:
// func TestMain(m *testing.M) { os.Exit(rptest.Main(m)) }.
func Main(m *testing.M) int {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	return code
}

// Options are what differs between the packages that start restyplane.
type Options struct {
	// Token is the first admin token, given through RESTYPLANE_ADMIN_TOKEN.
	Token string
	// Reason goes with every write as X-Change-Reason, so that the history says who wrote.
	Reason string
	// DataDir holds the history; empty means a fresh temporary directory.
	DataDir string
	// Args are more flags for `restyplane serve`.
	Args []string
	// Env are more environment variables (NAME=value) for `restyplane serve`.
	Env []string
	// API, Proxy and TLS are the loopback host:port addresses to listen on; empty means a
	// free port. Process.Options fills them, so that a restart finds the same addresses.
	API, Proxy, TLS string
	// Client sends the API requests; nil means one with a 2-minute timeout.
	Client *http.Client
	// HTTPS says the Args serve the API over TLS (--tls-cert, --tls-key) for the host
	// name "localhost": API is then https://localhost:port and Client must trust it.
	HTTPS bool
	// Binary is the restyplane to run; empty means Binary's build.
	Binary string
	// Credential runs restyplane as another user; nil runs it as the test's.
	Credential *syscall.Credential
	// Session runs restyplane in a session of its own, as a service manager starts a
	// daemon (see AgentOptions.Session).
	Session bool
}

// Process is a running `restyplane serve`.
type Process struct {
	// API serves the REST API and the web UI; Proxy is nginx's HTTP listener. Both are
	// http://127.0.0.1:port; TLS is nginx's HTTPS listener as 127.0.0.1:port.
	API, Proxy, TLS string
	DataDir         string
	// Logs is what the process wrote to stdout and stderr.
	Logs *LockedBuffer

	tb      testing.TB
	opts    Options
	cmd     *exec.Cmd
	stopped sync.Once
}

// Start runs restyplane serve and waits until its nginx runs the first revision (or, with
// --openresty=off, until the API answers). The test's cleanup stops it.
func Start(tb testing.TB, o Options) *Process {
	tb.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		tb.Fatal("nginx is not installed: run `make test` (hack/install.sh installs nginx-light and libnginx-mod-http-lua)")
	}
	if o.DataDir == "" {
		o.DataDir = tb.TempDir()
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 2 * time.Minute}
	}
	for _, a := range []*string{&o.API, &o.Proxy, &o.TLS} {
		if *a == "" {
			*a = FreeAddr(tb)
		}
	}
	apiURL := "http://" + o.API
	if o.HTTPS {
		apiURL = "https://localhost:" + o.API[strings.LastIndex(o.API, ":")+1:]
	}
	p := &Process{API: apiURL, Proxy: "http://" + o.Proxy, TLS: o.TLS,
		DataDir: o.DataDir, Logs: &LockedBuffer{}, tb: tb, opts: o}
	args := append([]string{"serve", "--listen", o.API, "--data-dir", o.DataDir,
		"--proxy-listen", o.Proxy, "--tls-listen", o.TLS}, o.Args...)
	bin := o.Binary
	if bin == "" {
		bin = Binary(tb)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: o.Credential, Setsid: o.Session}
	p.cmd.Env = append(append(os.Environ(), "RESTYPLANE_ADMIN_TOKEN="+o.Token), o.Env...)
	p.cmd.Stdout, p.cmd.Stderr = p.Logs, p.Logs
	if err := p.cmd.Start(); err != nil {
		tb.Fatalf("start restyplane: %v", err)
	}
	// nginx runs in a session of its own and outlives a killed restyplane (or one told to
	// leave it running): whatever is left of it goes once the test is over. Cleanups run
	// last-in first-out, so a restyplane started later on the same data directory has
	// stopped (and perhaps stopped the nginx it adopted) by then.
	tb.Cleanup(func() {
		p.Stop()
		p.killNginx()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st struct {
			State  string `json:"state"`
			InSync bool   `json:"inSync"`
		}
		code, _, _ := p.Call(o.Token, "GET", "/api/v1/status", nil, &st)
		if code == http.StatusOK && (st.State == "running" && st.InSync || st.State == "off") {
			return p
		}
		if time.Now().After(deadline) {
			tb.Fatalf("restyplane did not become ready (last status %d %+v); logs:\n%s", code, st, p.Logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop ends restyplane with SIGINT, which stops its nginx too (unless it was told to
// leave it running), and kills it if it has not exited within 30 seconds. It logs the
// process's output if the test failed. Stopping twice, or after Kill or Terminate, is
// stopping once.
func (p *Process) Stop() { p.end(os.Interrupt) }

// Terminate ends restyplane with SIGTERM, as a service manager would, and waits for it.
func (p *Process) Terminate() { p.end(syscall.SIGTERM) }

// Kill ends restyplane with SIGKILL, as a crash would: it cannot clean anything up.
func (p *Process) Kill() { p.end(syscall.SIGKILL) }

func (p *Process) end(sig os.Signal) {
	p.stopped.Do(func() {
		_ = p.cmd.Process.Signal(sig)
		done := make(chan struct{})
		go func() { _ = p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
		if p.tb.Failed() {
			p.tb.Logf("restyplane logs:\n%s", p.Logs)
		}
	})
}

// Options returns the options p was started with, its addresses filled in: Start them
// again, once p has exited, for a restyplane on the same data directory and ports.
func (p *Process) Options() Options { return p.opts }

// Restart starts restyplane again with the options of p, which must have exited.
func (p *Process) Restart(tb testing.TB) *Process {
	tb.Helper()
	return Start(tb, p.opts)
}

// PID is the restyplane process's id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// NginxPID returns the pid of the live nginx master in the pid file of the default
// prefix (<data dir>/openresty), 0 when none runs.
func (p *Process) NginxPID() int {
	data, err := os.ReadFile(filepath.Join(p.DataDir, "openresty", "logs", "nginx.pid"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// A zombie (state Z, after the command's closing parenthesis) runs nothing.
	if i := strings.LastIndexByte(string(stat), ')'); i < 0 || strings.HasPrefix(strings.TrimSpace(string(stat[i+1:])), "Z") {
		return 0
	}
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if !strings.Contains(string(cmdline), "nginx") {
		return 0
	}
	return pid
}

// killNginx kills the nginx master of the data directory with its process group (its
// workers), and waits until it is gone.
func (p *Process) killNginx() {
	pid := p.NginxPID()
	if pid == 0 {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for p.NginxPID() == pid && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}
