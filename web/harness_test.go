package web_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// adminSecret is the first admin token, given to restyplane through RESTYPLANE_ADMIN_TOKEN.
const adminSecret = "rp_web_test_admin_token_0123456789"

// TestMain removes the restyplane binary the tests built from ../cmd/restyplane, so that
// the browser talks to exactly what users run.
func TestMain(m *testing.M) {
	code := rptest.Main(m)
	removeBrowserNetns()
	os.Exit(code)
}

// restyplane is a running restyplane serve, with the OpenResty it manages and its own
// SQLite history.
type restyplane struct {
	*rptest.Process
	t testing.TB
}

// startRestyplane runs restyplane on loopback ports with a fresh history, and waits until
// its API answers and OpenResty runs.
func startRestyplane(t testing.TB) *restyplane {
	t.Helper()
	p := rptest.Start(t, rptest.Options{Token: adminSecret, Reason: "browser test setup"})
	return &restyplane{Process: p, t: t}
}

// call sends a JSON request to the API with a token and decodes the answer into out. It
// returns the status code, 0 when the request failed.
func (r *restyplane) call(token, method, path string, body, out any) int {
	r.t.Helper()
	code, _, err := r.Call(token, method, path, body, out)
	if err != nil && code != 0 {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	return code
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
	req, err := http.NewRequest("GET", r.Proxy+path, nil)
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
