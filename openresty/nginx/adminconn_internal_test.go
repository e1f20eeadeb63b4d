package nginx

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// fakeAdmin serves the admin socket's HTTP/1.1 with answer, which gets each connection's
// number (from 1) and the number of the request on it (from 1) and answers or closes.
func fakeAdmin(t *testing.T, answer func(c net.Conn, conn, req int) bool) (socket string, requests *atomic.Int64) {
	t.Helper()
	socket = filepath.Join(t.TempDir(), "admin.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	requests = &atomic.Int64{}
	go func() {
		for conn := 1; ; conn++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(conn int) {
				defer c.Close()
				br := bufio.NewReader(c)
				for req := 1; ; req++ {
					r, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					r.Body.Close()
					requests.Add(1)
					if !answer(c, conn, req) {
						return
					}
				}
			}(conn)
		}
	}()
	return socket, requests
}

const chunkedOK = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
	"e\r\n{\"version\":1}\n\r\n0\r\n\r\n"

// bothConns runs test with a polled kept connection and with an unpolled one.
func bothConns(t *testing.T, test func(t *testing.T, unpolled bool)) {
	t.Run("polled", func(t *testing.T) { test(t, false) })
	t.Run("unpolled", func(t *testing.T) { test(t, true) })
}

func tripCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestKeptConnRetriesAClosedConnection: nginx closes an idle kept-alive connection (its
// keepalive_timeout, or a worker a reload retired); the next request goes once more, on a
// new connection, and gets its answer.
func TestKeptConnRetriesAClosedConnection(t *testing.T) {
	bothConns(t, func(t *testing.T, unpolled bool) {
		socket, requests := fakeAdmin(t, func(c net.Conn, conn, req int) bool {
			c.Write([]byte(chunkedOK))
			return false // close the connection after each answer, without saying so
		})
		k := &keptConn{socket: socket, unpolled: unpolled}
		for i := 1; i <= 3; i++ {
			status, body, err := k.roundTrip(tripCtx(t), http.MethodPost, "/backends", []byte(`{"version":1}`))
			if err != nil || status != http.StatusOK || string(body) != "{\"version\":1}\n" {
				t.Fatalf("request %d: %d %q %v, want 200 and the answer", i, status, body, err)
			}
		}
		if got := requests.Load(); got != 3 {
			t.Fatalf("the server got %d requests, want 3: each sent once on a live connection", got)
		}
	})
}

// TestKeptConnKeepsItsConnection: answers that keep the connection alive are read whole
// (chunked), and the next request goes on the same connection; "Connection: close" makes
// the next one dial.
func TestKeptConnKeepsItsConnection(t *testing.T) {
	bothConns(t, func(t *testing.T, unpolled bool) {
		var conns atomic.Int64
		socket, _ := fakeAdmin(t, func(c net.Conn, conn, req int) bool {
			conns.Store(int64(conn))
			if req == 2 {
				c.Write([]byte("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 18\r\n\r\n{\"error\":\"gone\"}\r\n"))
				return false
			}
			c.Write([]byte(chunkedOK))
			return true
		})
		k := &keptConn{socket: socket, unpolled: unpolled}
		want := []struct {
			status int
			conns  int64
		}{{200, 1}, {404, 1}, {200, 2}}
		for i, w := range want {
			status, _, err := k.roundTrip(tripCtx(t), http.MethodGet, "/counters", nil)
			if err != nil || status != w.status || conns.Load() != w.conns {
				t.Fatalf("request %d: status %d on connection %d (%v), want %d on %d", i+1, status, conns.Load(), err, w.status, w.conns)
			}
		}
	})
}

// TestKeptConnSendsNothingTwiceOnceAnswered: a connection that breaks in the middle of an
// answer is an error; the request, which reached the server, is not sent again.
func TestKeptConnSendsNothingTwiceOnceAnswered(t *testing.T) {
	bothConns(t, func(t *testing.T, unpolled bool) {
		socket, requests := fakeAdmin(t, func(c net.Conn, conn, req int) bool {
			if conn == 1 && req == 1 {
				c.Write([]byte(chunkedOK))
				return true
			}
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"ver"))
			return false
		})
		k := &keptConn{socket: socket, unpolled: unpolled}
		if _, _, err := k.roundTrip(tripCtx(t), http.MethodPost, "/backends", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := k.roundTrip(tripCtx(t), http.MethodPost, "/backends", []byte(`{}`)); err == nil {
			t.Fatal("a cut answer was taken for a whole one")
		}
		if got := requests.Load(); got != 2 {
			t.Fatalf("the server got %d requests, want 2: the cut one not sent again", got)
		}
	})
}

// TestKeptConnAnswerReadLater: a request sent with start has its answer read by end,
// after it came; the connection then serves the next request, and a closed one is
// dialled again with the request sent once more, as in a round trip.
func TestKeptConnAnswerReadLater(t *testing.T) {
	bothConns(t, func(t *testing.T, unpolled bool) {
		socket, requests := fakeAdmin(t, func(c net.Conn, conn, req int) bool {
			c.Write([]byte(chunkedOK))
			return req < 2 // the second answer closes the connection, unannounced
		})
		k := &keptConn{socket: socket, unpolled: unpolled}
		for i := 1; i <= 3; i++ {
			x, err := k.start(tripCtx(t), http.MethodPost, "/backends", []byte(`{"version":1}`))
			if err != nil {
				t.Fatal(err)
			}
			// The answer comes before end looks (unless the request went on the closed
			// connection: end sends it again).
			for wait := time.Now().Add(time.Second); requests.Load() < int64(i) && time.Now().Before(wait); {
				time.Sleep(time.Millisecond)
			}
			status, body, err := x.end(tripCtx(t))
			if err != nil || status != http.StatusOK || string(body) != "{\"version\":1}\n" {
				t.Fatalf("request %d: %d %q %v, want 200 and the answer", i, status, body, err)
			}
		}
		if got := requests.Load(); got != 3 {
			t.Fatalf("the server got %d requests, want 3", got)
		}
	})
}
