package e2e

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"testing"
)

// headerUpstream is a real upstream that answers with the request headers it got, as
// JSON (Host among them, as it arrived), and counts the requests each of the proxy's connections to it carried.
type headerUpstream struct {
	ep    map[string]any
	mu    sync.Mutex
	conns map[string]int // requests by the proxy's connection (its address)
}

type connKey struct{}

func newHeaderUpstream(t testing.TB) *headerUpstream {
	t.Helper()
	u := &headerUpstream{conns: map[string]int{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c.RemoteAddr().String())
		},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u.mu.Lock()
			u.conns[r.Context().Value(connKey{}).(string)]++
			u.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			h := r.Header.Clone()
			h.Set("Host", r.Host) // net/http moves it out of the headers
			json.NewEncoder(w).Encode(h)
		}),
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	u.ep = map[string]any{"address": "127.0.0.1", "port": l.Addr().(*net.TCPAddr).Port, "weight": 1}
	return u
}

// reset forgets the connections counted so far.
func (u *headerUpstream) reset() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.conns = map[string]int{}
}

// perConn returns the most and the fewest requests one connection carried, and how many
// connections there were.
func (u *headerUpstream) perConn() (most, conns int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, n := range u.conns {
		most = max(most, n)
	}
	return most, len(u.conns)
}

// seen sends a request through the proxy with headers and returns the headers the
// upstream got.
func (in *instance) seen(host, path string, hdr ...string) http.Header {
	in.t.Helper()
	resp, body := in.send("GET", host, path, hdr...)
	var h http.Header
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &h) != nil {
		in.t.Fatalf("GET %s%s %v = %d %q, want 200 and the upstream's headers", host, path, hdr, resp.StatusCode, body)
	}
	return h
}

// putSettings replaces the settings with the current ones changed by over, and waits
// until the proxy runs them.
func (in *instance) putSettings(over map[string]any) {
	in.t.Helper()
	set := map[string]any{}
	in.call("GET", "/api/v1/settings", nil, &set)
	delete(set, "version")
	for k, v := range over {
		set[k] = v
	}
	in.must("PUT", "/api/v1/settings", set)
	in.waitSynced()
}
