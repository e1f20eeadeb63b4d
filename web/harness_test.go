package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// adminSecret is the first admin token, given to restyplane through RESTYPLANE_ADMIN_TOKEN.
const adminSecret = "rp_web_test_admin_token_0123456789"

// built is the restyplane binary, compiled once per test run from ../cmd/restyplane so
// that the browser talks to exactly what users run.
var built struct {
	once sync.Once
	path string
	err  error
}

func binary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "restyplane-web-bin")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "restyplane")
		out, err := exec.Command("go", "build", "-o", built.path, "../cmd/restyplane").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build ../cmd/restyplane: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// lockedBuffer collects the process output, written from exec's copying goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// restyplane is a running restyplane serve with its own SQLite history.
type restyplane struct {
	t       testing.TB
	url     string // the API and the web UI, http://127.0.0.1:port
	proxy   string // the managed OpenResty, http://127.0.0.1:port; "" without nginx
	dataDir string
	cmd     *exec.Cmd
	logs    *lockedBuffer
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRestyplane runs restyplane, with the OpenResty it manages, on loopback ports with a
// fresh history, and waits until its API answers and OpenResty runs.
func startRestyplane(t testing.TB) *restyplane {
	t.Helper()
	return startRestyplaneIn(t, t.TempDir())
}

// startRestyplaneIn is startRestyplane on the history in dataDir, to restart on it.
func startRestyplaneIn(t testing.TB, dataDir string) *restyplane {
	t.Helper()
	r := &restyplane{t: t, logs: &lockedBuffer{}, dataDir: dataDir}
	port := freePort(t)
	r.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Fatal("nginx is not installed: run `make test` (hack/install.sh installs nginx-light and libnginx-mod-http-lua)")
	}
	proxyPort, tlsPort := freePort(t), freePort(t)
	r.proxy = fmt.Sprintf("http://127.0.0.1:%d", proxyPort)
	args := []string{"serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--data-dir", dataDir,
		"--proxy-listen", fmt.Sprintf("127.0.0.1:%d", proxyPort), "--tls-listen", fmt.Sprintf("127.0.0.1:%d", tlsPort)}
	r.cmd = exec.Command(binary(t), args...)
	r.cmd.Env = append(os.Environ(), "RESTYPLANE_ADMIN_TOKEN="+adminSecret)
	r.cmd.Stdout, r.cmd.Stderr = r.logs, r.logs
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start restyplane: %v", err)
	}
	t.Cleanup(r.stop)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var st map[string]any
		code := r.call(adminSecret, "GET", "/api/v1/status", nil, &st)
		if code == http.StatusOK && st["state"] == "running" {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("restyplane did not become ready (last status %d %v); logs:\n%s", code, st, r.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (r *restyplane) stop() {
	if r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = r.cmd.Process.Kill()
		<-done
	}
	if r.t.Failed() {
		r.t.Logf("restyplane logs:\n%s", r.logs)
	}
}

// call sends a JSON request to the API with a token and decodes the answer into out. It
// returns the status code, 0 when the request failed.
func (r *restyplane) call(token, method, path string, body, out any) int {
	r.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			r.t.Fatalf("encode %s %s: %v", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, r.url+path, rd)
	if err != nil {
		r.t.Fatalf("new request %s %s: %v", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Change-Reason", "browser test setup")
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
		_ = json.Unmarshal(data, out)
	}
	return resp.StatusCode
}

// must is call as admin that fails the test unless the answer is 2xx.
func (r *restyplane) must(method, path string, body any) map[string]any {
	r.t.Helper()
	out := map[string]any{}
	if code := r.call(adminSecret, method, path, body, &out); code < 200 || code > 299 {
		r.t.Fatalf("%s %s = %d %v", method, path, code, out)
	}
	return out
}

// token creates a token with a role and returns its secret.
func (r *restyplane) token(name, role string) string {
	r.t.Helper()
	tok := r.must("POST", "/api/v1/tokens", map[string]any{"name": name, "role": role})
	secret, _ := tok["secret"].(string)
	if secret == "" {
		r.t.Fatalf("token %s has no secret: %v", name, tok)
	}
	return secret
}

// head returns the head revision.
func (r *restyplane) head() int64 {
	r.t.Helper()
	var st struct {
		Head int64 `json:"head"`
	}
	if code := r.call(adminSecret, "GET", "/api/v1/status", nil, &st); code != http.StatusOK {
		r.t.Fatalf("GET /api/v1/status = %d", code)
	}
	return st.Head
}

// proxyGet sends a request through the managed OpenResty with a Host header.
func (r *restyplane) proxyGet(host, path string) (int, string) {
	r.t.Helper()
	req, err := http.NewRequest("GET", r.proxy+path, nil)
	if err != nil {
		r.t.Fatalf("new proxy request: %v", err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// upstream is a real HTTP server for backends to point at; it answers with its name.
func upstream(t testing.TB, name string) (addr string, port int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen for upstream %s: %v", name, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "hello from %s\n", name)
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	a := l.Addr().(*net.TCPAddr)
	return a.IP.String(), a.Port
}
