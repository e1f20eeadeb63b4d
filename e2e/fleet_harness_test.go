package e2e

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// relay is a TCP relay on loopback between agents and the control plane: the test severs
// it (every open connection closes, new ones are refused at once) and restores it, and
// may point it at a restarted control plane on another port. It cuts exactly the control
// path, and leaves the data path (client to nginx to upstream) untouched.
type relay struct {
	ln     net.Listener
	mu     sync.Mutex
	target string
	cut    bool
	conns  map[net.Conn]bool
}

func newRelay(t testing.TB, target string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go r.serve()
	t.Cleanup(func() { ln.Close(); r.sever() })
	return r
}

// URL is the relay's address as a control-plane URL.
func (r *relay) URL() string { return "http://" + r.ln.Addr().String() }

func (r *relay) serve() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		cut, target := r.cut, r.target
		r.mu.Unlock()
		if cut {
			c.Close()
			continue
		}
		go r.pipe(c, target)
	}
}

func (r *relay) pipe(c net.Conn, target string) {
	u, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	r.mu.Lock()
	if r.cut {
		r.mu.Unlock()
		c.Close()
		u.Close()
		return
	}
	r.conns[c], r.conns[u] = true, true
	r.mu.Unlock()
	go func() { io.Copy(u, c); u.Close(); c.Close() }()
	io.Copy(c, u)
	c.Close()
	u.Close()
}

// sever closes every relayed connection and refuses new ones until restore.
func (r *relay) sever() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cut = true
	for c := range r.conns {
		c.Close()
	}
	r.conns = map[net.Conn]bool{}
}

// restore lets connections through again, to target when it is not empty.
func (r *relay) restore(target string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cut = false
	if target != "" {
		r.target = target
	}
}

// startControlPlane runs restyplane serve without OpenResty, with the extra flags, and
// returns it with a dataplane token's secret.
func startControlPlane(t testing.TB, dataDir string, extra ...string) (*instance, string) {
	t.Helper()
	p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e fleet test", DataDir: dataDir,
		Args: append([]string{"--openresty", "off"}, extra...)})
	in := &instance{Process: p, t: t}
	var tok struct {
		Secret string `json:"secret"`
	}
	code, body, _ := p.Call(adminToken, "POST", "/api/v1/tokens", map[string]any{"name": "dp", "role": "dataplane"}, &tok)
	if code != http.StatusCreated {
		t.Fatalf("create dataplane token = %d %s", code, body)
	}
	return in, tok.Secret
}

// fleetInstances returns GET /api/v1/instances by name.
func fleetInstances(in *instance) map[string]map[string]any {
	in.t.Helper()
	var list struct {
		Items []map[string]any `json:"items"`
		Head  float64          `json:"head"`
	}
	in.call("GET", "/api/v1/instances", nil, &list)
	out := map[string]map[string]any{}
	for _, it := range list.Items {
		it["head"] = list.Head
		out[it["name"].(string)] = it
	}
	return out
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// proxyGet sends GET path with host, and the header pairs, through the proxy at base.
func proxyGet(base, host, path string, hdr ...string) (int, string) {
	req, _ := http.NewRequestWithContext(context.Background(), "GET", base+path, nil)
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

// upstreamCounts sends n requests for host and path through the proxy at base and counts
// them by the upstream that answered (the first word of the body); any answer but 200
// fails the test.
func upstreamCounts(t testing.TB, base, host, path string, n int) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for range n {
		code, body := proxyGet(base, host, path)
		if code != 200 {
			t.Fatalf("GET %s%s through %s = %d %q", host, path, base, code, body)
		}
		counts[strings.Fields(body)[0]]++
	}
	return counts
}

// splitThreeToOne reports whether n requests went to upstreams a and b alone, by weights
// of 3 to 1 give or take chance: b got some, and a at least twice as many.
func splitThreeToOne(counts map[string]int, n int) bool {
	return counts["a"]+counts["b"] == n && counts["b"] > 0 && counts["a"] >= 2*counts["b"]
}
