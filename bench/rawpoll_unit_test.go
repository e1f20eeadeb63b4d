package bench

import (
	"net"
	"net/http"
	"sync/atomic"
	"testing"
)

// TestRawPollerReadsAnswers: the benchmark's poller reads status and X-Upstream from
// answers with a length and chunked ones, keeps its connection across them, and dials
// again after the server closed it.
func TestRawPollerReadsAnswers(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Upstream", r.URL.Query().Get("u"))
		switch r.URL.Path {
		case "/chunked":
			w.Write([]byte("part one "))
			w.(http.Flusher).Flush()
			w.Write([]byte("part two"))
		case "/close":
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusTeapot)
		default:
			w.Header().Set("Content-Length", "3")
			w.Write([]byte("ok\n"))
		}
	}), ConnState: func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}}
	go srv.Serve(l)
	defer srv.Close()
	url := "http://" + l.Addr().String()
	var prev *rawPoller
	for i, tc := range []struct {
		path     string
		code     int
		upstream string
	}{{"/?u=a", 200, "a"}, {"/chunked?u=b", 200, "b"}, {"/?u=c", 200, "c"}, {"/close?u=d", 418, "d"}, {"/?u=e", 200, "e"}} {
		p := newRawPoller(url, "example.test", tc.path)
		if i > 0 { // the previous poller's connection, as one poller would go on
			p.conn, p.r = prev.conn, prev.r
		}
		code, up, err := p.get()
		if err != nil || code != tc.code || up != tc.upstream {
			t.Fatalf("%s: %d %q %v, want %d %q", tc.path, code, up, err, tc.code, tc.upstream)
		}
		prev = p
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (one closed by the server)", n)
	}
}
