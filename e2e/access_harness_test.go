package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// from sends a request through the proxy from the loopback or IPv6 address local, with
// headers, and returns the status and body; 0 and the error when no answer came.
func from(proxy, local, host, path string, hdr ...string) (int, string) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 5 * time.Second}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
	req, _ := http.NewRequestWithContext(context.Background(), "GET", proxy+path, nil)
	req.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// wantStatus fails unless a request from local answers want (and, for 200, comes from
// the upstream named up).
func wantStatus(t *testing.T, proxy, local, host, path string, want int, up string, hdr ...string) {
	t.Helper()
	code, body := from(proxy, local, host, path, hdr...)
	if code != want || (want == 200) != strings.HasPrefix(body, up+" ") {
		t.Fatalf("GET %s%s from %s %v = %d %q, want %d", host, path, local, hdr, code, body, want)
	}
}

// gate is a real upstream that holds every request until released, so that a test can
// keep connections open; entered counts the requests it holds or held.
type gate struct {
	release chan struct{}
	entered atomic.Int64
	ep      map[string]any
}

func newGate(t *testing.T) *gate {
	g := &gate{release: make(chan struct{})}
	g.ep = serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.entered.Add(1)
		select {
		case <-g.release:
		case <-time.After(60 * time.Second):
		}
		fmt.Fprintf(w, "gate %s\n", r.URL.Path)
	}))
	t.Cleanup(g.open)
	return g
}

// open releases every held request and every later one.
func (g *gate) open() {
	select {
	case <-g.release:
	default:
		close(g.release)
	}
}

// waitEntered waits until the gate holds n requests.
func (g *gate) waitEntered(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for g.entered.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the gate holds %d requests, want %d", g.entered.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// manyCIDRs returns n IPv4 /32s and /24s in 100.64.0.0/10, none of them loopback: an
// allow list the client is not in but for what the test adds.
func manyCIDRs(n int) []string {
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			out = append(out, fmt.Sprintf("100.%d.%d.0/24", 64+i/256%64, i%256))
		} else {
			out = append(out, fmt.Sprintf("100.%d.%d.7", 64+i/256%64, i%256))
		}
	}
	return out
}
