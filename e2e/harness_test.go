package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

const adminToken = "rp_e2e_admin_token_0123456789"

// TestMain removes the restyplane binary the tests built. Run by a test as another user
// with probeEnv set, the binary is the probe of TestAdminSocketNeverReachableByAnotherUser
// instead.
func TestMain(m *testing.M) {
	if paths := os.Getenv(probeEnv); paths != "" {
		os.Exit(probeSocket(strings.Split(paths, ",")))
	}
	os.Exit(rptest.Main(m))
}

// instance is a running restyplane with its managed nginx.
type instance struct {
	*rptest.Process
	t testing.TB
}

// start runs restyplane serve with a managed nginx, and waits until it is ready.
func start(t testing.TB, extra ...string) *instance {
	t.Helper()
	p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e test", Args: extra})
	return &instance{Process: p, t: t}
}

// call sends a JSON request to the API as admin and decodes the answer into out. It
// returns the status, 0 when no answer came.
func (in *instance) call(method, path string, body, out any) int {
	in.t.Helper()
	code, _, err := in.Call(adminToken, method, path, body, out)
	if err != nil && code != 0 {
		in.t.Fatalf("%s %s: %v", method, path, err)
	}
	return code
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
	return proxyGet(in.Proxy, host, path, hdr...)
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

// rollBackQuickly sets the automatic rollback to decide within a test's time: a 30 s
// window, 10 requests at least, half of them failing.
func (in *instance) rollBackQuickly() {
	in.t.Helper()
	set := map[string]any{}
	in.call("GET", "/api/v1/settings", nil, &set)
	set["rollbackWindow"], set["rollbackMinRequests"], set["rollbackErrorRatio"] = "30s", 10, 0.5
	delete(set, "version")
	in.must("PUT", "/api/v1/settings", set)
}
