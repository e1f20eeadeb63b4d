package bench

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

	"github.com/restyplane/restyplane/api"
)

const adminToken = "rp_bench_admin_token_0123456789"

// binary is cmd/restyplane, built once per test binary: every benchmark starts its own
// instance of it. TestMain removes it at the end.
var binary struct {
	once      sync.Once
	dir, path string
	err       error
}

func buildBinary() (string, error) {
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "restyplane-bench")
		if binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "restyplane")
		if out, err := exec.Command("go", "build", "-o", binary.path, "../cmd/restyplane").CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	return binary.path, binary.err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// instance is a running `restyplane serve` with its managed nginx.
type instance struct {
	tb      testing.TB
	api     string // http://127.0.0.1:port
	proxy   string // http://127.0.0.1:port
	dataDir string
	cmd     *exec.Cmd
	logs    *lockedBuffer
	client  *http.Client
	stopped sync.Once
}

// start runs restyplane serve on free loopback ports and waits until nginx runs and the
// first apply is done.
func start(tb testing.TB, extra ...string) *instance {
	tb.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		tb.Fatal("nginx is not installed: run `make install` (hack/install.sh installs nginx-light and libnginx-mod-http-lua)")
	}
	bin, err := buildBinary()
	if err != nil {
		tb.Fatal(err)
	}
	in := &instance{tb: tb, dataDir: tb.TempDir(), logs: &lockedBuffer{},
		client: &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	apiAddr, proxyAddr, tlsAddr := freeAddr(tb), freeAddr(tb), freeAddr(tb)
	in.api, in.proxy = "http://"+apiAddr, "http://"+proxyAddr
	in.cmd = exec.Command(bin, "serve", "--listen", apiAddr, "--data-dir", in.dataDir,
		"--proxy-listen", proxyAddr, "--tls-listen", tlsAddr, "--log-level", "warn")
	in.cmd.Args = append(in.cmd.Args, extra...)
	in.cmd.Env = append(os.Environ(), "RESTYPLANE_ADMIN_TOKEN="+adminToken)
	in.cmd.Stdout, in.cmd.Stderr = in.logs, in.logs
	if err := in.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(in.stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st api.Status
		if code, _ := in.call("GET", "/api/v1/status", nil, &st); code == 200 && (st.State == "running" && st.InSync || st.State == "off") {
			return in
		}
		if time.Now().After(deadline) {
			tb.Fatalf("restyplane did not become ready; logs:\n%s", in.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends restyplane with SIGINT, which stops its nginx too. A benchmark that starts
// several instances stops each before the next; the cleanup then has nothing left to do.
func (in *instance) stop() { in.stopped.Do(in.interrupt) }

func (in *instance) interrupt() {
	in.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { in.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		in.cmd.Process.Kill()
		<-done
	}
	if in.tb.Failed() {
		in.tb.Logf("restyplane logs:\n%s", in.logs)
	}
}

// call sends a JSON request to the API as admin and decodes a 2xx answer into out.
func (in *instance) call(method, path string, body, out any) (int, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, in.api+path, r)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("X-Change-Reason", "benchmark")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := in.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("%s %s = %d: %.300s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: decode: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// must is call that fails the benchmark on any error or non-2xx answer; call it from the
// benchmark's goroutine only, as Fatal requires.
func (in *instance) must(method, path string, body, out any) {
	in.tb.Helper()
	if _, err := in.call(method, path, body, out); err != nil {
		in.tb.Fatal(err)
	}
}

// write sends a write and returns the revision it made.
func (in *instance) write(method, path string, body any) (int64, error) {
	var res api.WriteResult
	if _, err := in.call(method, path, body, &res); err != nil {
		return 0, err
	}
	if res.Revision == nil {
		return 0, fmt.Errorf("%s %s made no revision", method, path)
	}
	return res.Revision.ID, nil
}

// mustWrite is write that fails the benchmark on error; call it from the benchmark's
// goroutine only.
func (in *instance) mustWrite(method, path string, body any) int64 {
	in.tb.Helper()
	rev, err := in.write(method, path, body)
	if err != nil {
		in.tb.Fatal(err)
	}
	return rev
}

// status returns GET /api/v1/status.
func (in *instance) status() api.Status {
	in.tb.Helper()
	var st api.Status
	in.must("GET", "/api/v1/status", nil, &st)
	return st
}

// waitApplied waits until revision rev (or a later one) runs, failing after timeout or
// when it was rejected.
func (in *instance) waitApplied(rev int64, timeout time.Duration) api.Status {
	in.tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		st := in.status()
		if st.Applied >= rev {
			return st
		}
		if st.Rejected != 0 && st.Rejected >= rev {
			in.tb.Fatalf("revision %d was rejected: %+v", rev, st.LastApply)
		}
		if time.Now().After(deadline) {
			in.tb.Fatalf("revision %d not applied within %s: %+v", rev, timeout, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// applies returns the newest apply records, newest first (at most 1000).
func (in *instance) applies(limit int) []api.ApplyRecord {
	in.tb.Helper()
	var list struct{ Items []api.ApplyRecord }
	in.must("GET", fmt.Sprintf("/api/v1/applies?limit=%d", limit), nil, &list)
	return list.Items
}

// setMinReloadInterval changes the one setting the benchmarks tune.
func (in *instance) setMinReloadInterval(d string) int64 {
	in.tb.Helper()
	var set api.Settings
	in.must("GET", "/api/v1/settings", nil, &set)
	set.MinReloadInterval, set.Version = d, 0
	return in.mustWrite("PUT", "/api/v1/settings", set)
}

func freeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// lockedBuffer collects the child's output, written from two copying goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
