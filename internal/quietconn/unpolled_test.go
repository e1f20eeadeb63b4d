package quietconn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// unpolledPair returns an Unpolled client and the server's plain end of a unix socket.
func unpolledPair(t *testing.T) (*Unpolled, net.Conn) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	u, err := DialUnix(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { u.Close(); s.Close() })
	return u, s
}

// TestUnpolledBytesGoBothWays: 4 MiB each way, more than the socket buffers hold, so
// that the Unpolled side waits in poll for room and for bytes, arrive whole and in order.
func TestUnpolledBytesGoBothWays(t *testing.T) {
	u, s := unpolledPair(t)
	out := bytes.Repeat([]byte("0123456789abcdef"), 1<<18)
	errs := make(chan error, 2)
	go func() {
		_, err := u.Write(out)
		errs <- err
	}()
	got := make([]byte, len(out))
	if _, err := io.ReadFull(s, got); err != nil || !bytes.Equal(got, out) {
		t.Fatalf("the server read %d bytes (%v), want the 4 MiB written", len(got), err)
	}
	go func() {
		_, err := s.Write(out)
		errs <- err
	}()
	if _, err := io.ReadFull(u, got); err != nil || !bytes.Equal(got, out) {
		t.Fatalf("Unpolled read %d bytes (%v), want the 4 MiB written", len(got), err)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if n, err := u.Read(got); n != 0 || err != io.EOF {
		t.Fatalf("read after the peer closed = %d, %v; want 0, EOF", n, err)
	}
}

// TestUnpolledAnswerWaitsInTheSocket: an answer that came before the reader looks is
// there when it does, whole; a read that finds nothing waits for what comes.
func TestUnpolledAnswerWaitsInTheSocket(t *testing.T) {
	u, s := unpolledPair(t)
	s.Write([]byte("early"))
	time.Sleep(50 * time.Millisecond)
	buf := make([]byte, 16)
	if n, err := u.Read(buf); err != nil || string(buf[:n]) != "early" {
		t.Fatalf("read = %q, %v; want the answer that came first", buf[:n], err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		s.Write([]byte("late"))
	}()
	if n, err := u.Read(buf); err != nil || string(buf[:n]) != "late" {
		t.Fatalf("read = %q, %v; want the answer waited for", buf[:n], err)
	}
}

// TestUnpolledDeadlineAndInterrupt: a wait ends at the deadline with
// os.ErrDeadlineExceeded, and at once on Interrupt from another goroutine.
func TestUnpolledDeadlineAndInterrupt(t *testing.T) {
	u, _ := unpolledPair(t)
	u.SetDeadline(time.Now().Add(50 * time.Millisecond))
	buf := make([]byte, 16)
	if _, err := u.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	u.SetDeadline(time.Time{})
	time.AfterFunc(50*time.Millisecond, u.Interrupt)
	done := make(chan error, 1)
	go func() {
		_, err := u.Read(buf)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("an interrupted read succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Interrupt did not end the wait")
	}
	u.Close()
	u.Interrupt() // after Close: nothing to shut down, no other socket touched
}

// TestDialUnixFails: no listener is an error that names the socket.
func TestDialUnixFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.sock")
	if _, err := DialUnix(context.Background(), path); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("dial with no socket: %v, want a not-exist error", err)
	}
}
