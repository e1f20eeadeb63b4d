package quietconn

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// pair returns a quiet client conn and the server's plain end, over network.
func pair(t *testing.T, network string) (net.Conn, net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s.sock")
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial(network, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	q := Wrap(c)
	if _, ok := q.(*Conn); !ok {
		t.Fatalf("Wrap(%T) = %T, want *Conn", c, q)
	}
	t.Cleanup(func() { q.Close(); s.Close() })
	return q, s
}

// TestBytesGoBothWays: 4 MiB each way, more than the socket buffers hold, so that both
// sides wait for the other through the poller, arrive whole and in order.
func TestBytesGoBothWays(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			q, s := pair(t, network)
			out := bytes.Repeat([]byte("0123456789abcdef"), 1<<18)
			errs := make(chan error, 2)
			go func() {
				_, err := q.Write(out)
				errs <- err
			}()
			got := make([]byte, len(out))
			if _, err := io.ReadFull(s, got); err != nil {
				t.Fatalf("read what the quiet side wrote: %v", err)
			}
			if err := <-errs; err != nil {
				t.Fatalf("quiet write: %v", err)
			}
			if !bytes.Equal(got, out) {
				t.Fatal("the bytes read differ from those written")
			}
			go func() {
				_, err := s.Write(out)
				errs <- err
			}()
			back := make([]byte, len(out))
			if _, err := io.ReadFull(q, back); err != nil {
				t.Fatalf("quiet read: %v", err)
			}
			if err := <-errs; err != nil {
				t.Fatalf("write to the quiet side: %v", err)
			}
			if !bytes.Equal(back, out) {
				t.Fatal("the bytes the quiet side read differ from those written")
			}
		})
	}
}

// TestEndAndErrors: a peer that closes is io.EOF; a read past the deadline is a timeout,
// as net.Conn reports it; a closed conn is net.ErrClosed.
func TestEndAndErrors(t *testing.T) {
	q, s := pair(t, "tcp")
	if err := q.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	_, err := q.Read(make([]byte, 8))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past the deadline: %v, want a timeout", err)
	}
	if err := q.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("last"))
	s.Close()
	got, err := io.ReadAll(q)
	if err != nil || string(got) != "last" {
		t.Fatalf("read to the end = %q, %v; want \"last\" and no error (io.EOF)", got, err)
	}
	q.Close()
	if _, err := q.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write on a closed conn: %v, want net.ErrClosed", err)
	}
}

// TestWrapLeavesOtherConns: a conn with no socket of its own is returned as it is.
func TestWrapLeavesOtherConns(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if got := Wrap(a); got != a {
		t.Fatalf("Wrap(net.Pipe) = %T, want the pipe itself", got)
	}
}
