package e2e

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is an upstream that answers with its name and the request's URI, and keeps
// what it was sent, for a mirror's copies.
type recorder struct {
	name string
	mu   sync.Mutex
	got  []string // "<method> <host> <uri> <body>"
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got = append(rc.got, strings.TrimSpace(r.Method+" "+r.Host+" "+r.URL.RequestURI()+" "+string(body)))
	rc.mu.Unlock()
	w.Header().Set("X-Upstream", rc.name)
	io.WriteString(w, rc.name+" "+r.URL.RequestURI()+"\n")
}

// requests returns what the recorder was sent so far.
func (rc *recorder) requests() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.got...)
}

// waitRequests waits until the recorder was sent at least n requests and returns them.
func (rc *recorder) waitRequests(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := rc.requests()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was sent %d requests, want %d: %q", rc.name, len(got), n, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// request sends a request through the proxy at addr (host:port), with a method, a body and
// headers, that follows no redirect.
func (in *instance) request(addr, method, host, path, body string, hdr ...string) (*http.Response, string) {
	in.t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	if err != nil {
		in.t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := *proxyClient
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		in.t.Fatalf("%s %s%s on %s: %v", method, host, path, addr, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, strings.TrimSpace(string(b))
}

// proxyAddr is the proxy's plain-HTTP host:port.
func (in *instance) proxyAddr() string { return strings.TrimPrefix(in.Proxy, "http://") }

// badServer posts server and fails unless the answer is 400 naming field.
func (in *instance) badServer(t *testing.T, srv map[string]any, field string) {
	t.Helper()
	var out struct {
		Error struct{ Field, Message string }
	}
	if code := in.call("POST", "/api/v1/servers", srv, &out); code != 400 || out.Error.Field != field {
		t.Errorf("POST %v = %d %+v, want 400 naming %s", srv, code, out, field)
		return
	}
	t.Logf("%s: %s", field, out.Error.Message)
}
