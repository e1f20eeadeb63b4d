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

// nginxSystem is plain nginx, without Lua, whose upstream moves the way it did before
// dynamic configuration: the conf is rewritten and the master gets SIGHUP. Its settings
// follow restyplane's defaults (workers per core, keep-alive to clients and upstreams, an
// access log), so that the reload is the difference.
type nginxSystem struct {
	tb     testing.TB
	dir    string
	listen string
	cmd    *exec.Cmd
}

const plainNginxConf = `daemon off;
master_process on;
worker_processes auto;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log notice;
events {
    worker_connections 4096;
}
http {
    client_body_temp_path %[1]s/tmp/body;
    proxy_temp_path %[1]s/tmp/proxy;
    fastcgi_temp_path %[1]s/tmp/fastcgi;
    uwsgi_temp_path %[1]s/tmp/uwsgi;
    scgi_temp_path %[1]s/tmp/scgi;
    access_log %[1]s/access.log combined;
    keepalive_timeout 75s;
    keepalive_requests 1000;
    upstream web {
        server 127.0.0.1:%[3]d;
        keepalive 64;
    }
    server {
        listen %[2]s;
        location / {
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_pass http://web;
        }
    }
}
`

// startNginx runs a plain nginx master that proxies to upstream a.
func startNginx(tb testing.TB, a *upstream) *nginxSystem {
	tb.Helper()
	n := &nginxSystem{tb: tb, dir: tb.TempDir(), listen: rptest.FreeAddr(tb)}
	if err := os.MkdirAll(filepath.Join(n.dir, "tmp"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := n.writeConf(a); err != nil {
		tb.Fatal(err)
	}
	n.cmd = exec.Command("nginx", "-p", n.dir+"/", "-c", filepath.Join(n.dir, "nginx.conf"))
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &rptest.LockedBuffer{}
	n.cmd.Stdout, n.cmd.Stderr = out, out
	if err := n.cmd.Start(); err != nil {
		tb.Fatalf("start nginx: %v", err)
	}
	tb.Cleanup(func() {
		// QUIT ends the master and its workers gracefully; the group kill catches a worker
		// left behind.
		n.cmd.Process.Signal(syscall.SIGQUIT)
		done := make(chan struct{})
		go func() { n.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	waitServes(tb, n.listen, "", a.name, out)
	return n
}

func (n *nginxSystem) writeConf(u *upstream) error {
	conf := fmt.Sprintf(plainNginxConf, n.dir, n.listen, u.port)
	tmp := filepath.Join(n.dir, "nginx.conf.new")
	if err := os.WriteFile(tmp, []byte(conf), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(n.dir, "nginx.conf"))
}

func (n *nginxSystem) label() string { return "nginx, conf rewritten + reload (HUP)" }
func (n *nginxSystem) addr() string  { return n.listen }
func (n *nginxSystem) host() string  { return "plain.side.test" }

func (n *nginxSystem) switchTo(u *upstream) error {
	if err := n.writeConf(u); err != nil {
		return err
	}
	return n.cmd.Process.Signal(syscall.SIGHUP)
}
