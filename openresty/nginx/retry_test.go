package nginx_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// flaky is a real upstream that fails the first attempts of each request, as Gateway
// API's conformance backend does: ?id= names the request, ?fail=N fails its first N
// attempts, with ?code= (an HTTP status) or, without it, a connection reset, each after
// ?delay= (a duration) when given.
type flaky struct {
	upstream
	mu       sync.Mutex
	attempts map[string]int
}

func startFlaky(t *testing.T, name string) *flaky {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &flaky{upstream: upstream{name: name, port: l.Addr().(*net.TCPAddr).Port}, attempts: map[string]int{}}
	f.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		fail, _ := strconv.Atoi(q.Get("fail"))
		f.mu.Lock()
		f.attempts[q.Get("id")]++
		n := f.attempts[q.Get("id")]
		f.mu.Unlock()
		w.Header().Set("X-Upstream", name)
		if n > fail {
			io.WriteString(w, name)
			return
		}
		if d, err := time.ParseDuration(q.Get("delay")); err == nil {
			time.Sleep(d)
		}
		if code, err := strconv.Atoi(q.Get("code")); err == nil {
			w.WriteHeader(code)
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.(*net.TCPConn).SetLinger(0) // a reset, not a clean close
			conn.Close()
		}
	})}
	go f.srv.Serve(l)
	t.Cleanup(func() { f.srv.Close() })
	return f
}

// tries is how many attempts of request id the upstream has seen.
func (f *flaky) tries(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.attempts[id]
}

// sendRetry sends one request through the proxy and returns its status.
func sendRetry(t *testing.T, addr, method, path string) int {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader("body"))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "shop.test"
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestRetriesOfOneEndpoint: a location whose retry policy may go to the same peer again
// retries a backend of ONE endpoint, on the codes and connection errors it names, up to
// its tries, POST too with non_idempotent; a location with ingress-nginx's policy (a
// retry only moves to a peer not tried yet) still tries that endpoint once.
func TestRetriesOfOneEndpoint(t *testing.T) {
	up := startFlaky(t, "one")
	web := api.Backend{Name: "web", LoadBalance: api.RoundRobin, Endpoints: []api.Endpoint{up.endpoint()}}
	srv := server("shop", "shop.test", "/gateway", "web", "/ingress", "web", "/idempotent", "web")
	srv.Locations[0].Retry = &api.RetryPolicy{NextUpstream: []string{"error", "timeout", "http_500", "non_idempotent"}, Tries: 4, SamePeer: true}
	srv.Locations[1].Retry = &api.RetryPolicy{NextUpstream: []string{"error", "timeout", "http_500"}, Tries: 4}
	srv.Locations[2].Retry = &api.RetryPolicy{NextUpstream: []string{"error", "timeout", "http_500"}, Tries: 4, SamePeer: true}
	in := startNginx(t, config([]api.Backend{web}, srv))
	push(t, in, 2, web)
	for i, c := range []struct {
		method, path  string
		status, tries int
	}{
		{"GET", "/gateway?fail=2&code=500", 200, 3},
		{"GET", "/gateway?fail=3&code=500", 200, 4},
		{"GET", "/gateway?fail=4&code=500", 500, 4},
		{"GET", "/gateway?fail=2&code=503", 503, 1}, // not a code it retries
		{"GET", "/gateway?fail=2", 200, 3},          // connection reset: an error
		{"POST", "/gateway?fail=1&code=500", 200, 2},
		{"POST", "/idempotent?fail=1&code=500", 500, 1}, // without non_idempotent
		{"GET", "/idempotent?fail=1&code=500", 200, 2},
		{"GET", "/ingress?fail=1&code=500", 500, 1}, // no peer left that was not tried
	} {
		id := fmt.Sprintf("r%d", i)
		if got := sendRetry(t, proxyAddr(in), c.method, c.path+"&id="+id); got != c.status || up.tries(id) != c.tries {
			t.Errorf("%s %s: %d after %d attempts, want %d after %d", c.method, c.path, got, up.tries(id), c.status, c.tries)
		}
	}
}

// TestSamePeerTriesOthersFirst: with two endpoints, a retry that may go to the same peer
// goes to the other one first, then to either again.
func TestSamePeerTriesOthersFirst(t *testing.T) {
	a, b := startFlaky(t, "a"), startFlaky(t, "b")
	web := api.Backend{Name: "web", LoadBalance: api.RoundRobin, Endpoints: []api.Endpoint{a.endpoint(), b.endpoint()}}
	srv := server("shop", "shop.test", "/", "web")
	srv.Locations[0].Retry = &api.RetryPolicy{NextUpstream: []string{"http_500"}, Tries: 3, SamePeer: true}
	in := startNginx(t, config([]api.Backend{web}, srv))
	push(t, in, 2, web)
	for i := 0; i < 4; i++ {
		id := fmt.Sprintf("r%d", i)
		// Each endpoint counts its own attempts: the second attempt of a request meets the
		// other endpoint's first, which fails too, and the third succeeds on either.
		if got := sendRetry(t, proxyAddr(in), "GET", "/?fail=1&code=500&id="+id); got != 200 {
			t.Fatalf("request %d: %d, want 200", i, got)
		}
		if a.tries(id) != 1 && b.tries(id) != 1 || a.tries(id)+b.tries(id) != 3 {
			t.Fatalf("request %d: attempts a %d, b %d; want both tried once before either again", i, a.tries(id), b.tries(id))
		}
	}
}

// TestRetriesOfSlowAttempts: an attempt past the location's read timeout (Gateway API's
// backendRequest timeout) is retried on the same endpoint, and the retry policy's timeout
// (a request timeout) stops the retrying: no attempt starts after it, and the client gets
// the 504 of the last one.
func TestRetriesOfSlowAttempts(t *testing.T) {
	up := startFlaky(t, "one")
	web := api.Backend{Name: "web", LoadBalance: api.RoundRobin, Endpoints: []api.Endpoint{up.endpoint()}}
	srv := server("shop", "shop.test", "/backend", "web", "/request", "web")
	srv.Locations[0].Timeouts = &api.Timeouts{Read: "300ms", Send: "300ms"}
	srv.Locations[0].Retry = &api.RetryPolicy{NextUpstream: []string{"error", "timeout", "non_idempotent"}, Tries: 3, SamePeer: true}
	srv.Locations[1].Timeouts = &api.Timeouts{Read: "300ms", Send: "300ms"}
	srv.Locations[1].Retry = &api.RetryPolicy{NextUpstream: []string{"error", "timeout", "non_idempotent"}, Tries: 4, SamePeer: true, Timeout: "450ms"}
	in := startNginx(t, config([]api.Backend{web}, srv))
	push(t, in, 2, web)
	for i, c := range []struct {
		path          string
		status, tries int
	}{
		{"/backend?fail=2&delay=2s", 200, 3},
		{"/backend?fail=3&delay=2s", 504, 3},
		// The first attempt times out at 300 ms, the second starts before 450 ms and
		// times out at 600 ms: past the bound, no third.
		{"/request?fail=3&delay=2s", 504, 2},
	} {
		id := fmt.Sprintf("r%d", i)
		start := time.Now()
		got := sendRetry(t, proxyAddr(in), "GET", c.path+"&id="+id)
		if got != c.status || up.tries(id) != c.tries {
			t.Errorf("GET %s: %d after %d attempts in %v, want %d after %d", c.path, got, up.tries(id), time.Since(start), c.status, c.tries)
		}
	}
}
