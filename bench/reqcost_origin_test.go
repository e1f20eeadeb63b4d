package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// originConf is the request-cost benchmark's upstream: an nginx that answers every
// request with 200 and a short body, logs nothing, and keeps the proxies' connections
// open as long as they like. Both proxies send it the same requests.
const originConf = `daemon off;
master_process on;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events {
    worker_connections 4096;
}
http {
    access_log off;
    keepalive_timeout 75s;
    keepalive_requests 1000000;
    server {
        listen %[2]s;
        location / {
            default_type text/plain;
            add_header X-Upstream origin;
            return 200 "ok\n";
        }
    }
}
`

// startOrigin runs the origin nginx and returns its host:port.
func startOrigin(tb testing.TB) string {
	tb.Helper()
	addr := rptest.FreeAddr(tb)
	dir := tb.TempDir()
	runNginxConf(tb, "nginx", dir, fmt.Sprintf(originConf, dir, addr))
	return addr
}

// runNginxConf writes conf into dir and runs binary (nginx, or a wrapper of it) as an
// nginx master on it until the benchmark ends, and returns the master's pid. Each master runs in a session of its own, as
// restyplane runs its nginx and as a service manager runs a daemon: with the kernel's
// autogroups, processes of one session share one slice of CPU on a busy machine, so a
// proxy in the benchmark's session (with wrk) and one in a session of its own would
// not be served alike.
func runNginxConf(tb testing.TB, binary, dir, conf string) int {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		tb.Fatal(err)
	}
	if out, err := exec.Command(binary, "-t", "-p", dir+"/", "-c", path).CombinedOutput(); err != nil {
		tb.Fatalf("nginx -t: %v\n%s\n%s", err, out, conf)
	}
	cmd := exec.Command(binary, "-p", dir+"/", "-c", path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out := &rptest.LockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start nginx: %v", err)
	}
	tb.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGQUIT)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	return cmd.Process.Pid
}
