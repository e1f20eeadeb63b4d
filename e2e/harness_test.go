package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const adminToken = "rp_e2e_admin_token_0123456789"

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds cmd/restyplane once per test run.
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "restyplane-e2e")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "restyplane")
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/restyplane").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// instance is a running restyplane with its managed nginx.
type instance struct {
	t       testing.TB
	api     string // http://127.0.0.1:port
	proxy   string // http://127.0.0.1:port
	tls     string // 127.0.0.1:port
	dataDir string
	cmd     *exec.Cmd
	logs    *bytes.Buffer
}

// start runs restyplane serve with a managed nginx, and waits until it is ready.
func start(t testing.TB, extra ...string) *instance {
	t.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Fatal("nginx is not installed: run `make test` (hack/install.sh installs nginx-light and libnginx-mod-http-lua)")
	}
	in := &instance{t: t, dataDir: t.TempDir(), logs: &bytes.Buffer{}}
	apiPort, proxyPort, tlsPort := freePort(t), freePort(t), freePort(t)
	in.api = fmt.Sprintf("http://127.0.0.1:%d", apiPort)
	in.proxy = fmt.Sprintf("http://127.0.0.1:%d", proxyPort)
	in.tls = fmt.Sprintf("127.0.0.1:%d", tlsPort)
	args := append([]string{"serve",
		"--listen", fmt.Sprintf("127.0.0.1:%d", apiPort),
		"--data-dir", in.dataDir,
		"--proxy-listen", fmt.Sprintf("127.0.0.1:%d", proxyPort),
		"--tls-listen", in.tls,
	}, extra...)
	in.cmd = exec.Command(binary(t), args...)
	in.cmd.Env = append(os.Environ(), "RESTYPLANE_ADMIN_TOKEN="+adminToken)
	in.cmd.Stdout, in.cmd.Stderr = in.logs, in.logs
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.stop)
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := map[string]any{}
		if code := in.call("GET", "/api/v1/status", nil, &st); code == 200 && st["state"] == "running" {
			return in
		}
		if time.Now().After(deadline) {
			t.Fatalf("restyplane did not become ready; logs:\n%s", in.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (in *instance) stop() {
	if in.cmd.Process == nil {
		return
	}
	in.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { in.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		in.cmd.Process.Kill()
		<-done
	}
	if in.t.Failed() {
		in.t.Logf("restyplane logs:\n%s", in.logs)
	}
}

// call sends a JSON request to the API as admin and decodes the answer into out.
func (in *instance) call(method, path string, body, out any) int {
	in.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, in.api+path, r)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("X-Change-Reason", "e2e test")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		json.Unmarshal(data, out)
	}
	return resp.StatusCode
}

// must is call that fails the test unless the status is 2xx.
func (in *instance) must(method, path string, body any) map[string]any {
	in.t.Helper()
	out := map[string]any{}
	if code := in.call(method, path, body, &out); code < 200 || code > 299 {
		in.t.Fatalf("%s %s = %d %v", method, path, code, out)
	}
	return out
}

// status returns GET /api/v1/status.
func (in *instance) status() map[string]any {
	in.t.Helper()
	st := map[string]any{}
	in.call("GET", "/api/v1/status", nil, &st)
	return st
}

// waitApplied waits until the applier ran the head revision (or stopped trying it) and
// returns the status.
func (in *instance) waitSynced() map[string]any {
	in.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := in.status()
		if st["inSync"] == true {
			return st
		}
		if time.Now().After(deadline) {
			in.t.Fatalf("not in sync: %v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// get sends a request through the proxy with a Host header.
func (in *instance) get(host, path string, hdr ...string) (int, string) {
	in.t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", in.proxy+path, nil)
	req.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := proxyClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

var proxyClient = &http.Client{Timeout: 5 * time.Second}

// upstream is a real HTTP server on loopback that answers with its name.
type upstream struct {
	name string
	port int
	srv  *http.Server
}

func newUpstream(t testing.TB, name string, status int, delay time.Duration) *upstream {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{name: name, port: l.Addr().(*net.TCPAddr).Port}
	u.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 {
			time.Sleep(delay)
		}
		w.Header().Set("X-Upstream", name)
		w.WriteHeader(status)
		fmt.Fprintf(w, "%s %s\n", name, r.URL.Path)
	})}
	go u.srv.Serve(l)
	t.Cleanup(func() { u.srv.Close() })
	return u
}

func (u *upstream) endpoint(weight int) map[string]any {
	return map[string]any{"address": "127.0.0.1", "port": u.port, "weight": weight}
}
