package quietconn

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An HTTP server on a Listener gets wrapped connections and serves on them.
func TestListenerServesHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "f.txt")
	body := strings.Repeat("restyplane ", 100000)
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 8)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, file)
	}), ConnState: func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted <- c
		}
	}}
	go srv.Serve(Listener{ln})
	t.Cleanup(func() { srv.Close() })
	resp, err := http.Get("http://" + ln.Addr().String() + "/file")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(got) != body {
		t.Fatalf("GET /file: %d bytes, err %v; want %d bytes", len(got), err, len(body))
	}
	if c := <-accepted; func() bool { _, ok := c.(*Conn); return !ok }() {
		t.Fatalf("accepted %T, want *Conn", c)
	}
}

// ReadFrom copies a whole file to the other end (through the socket's own ReadFrom).
func TestReadFrom(t *testing.T) {
	q, s := pair(t, "tcp")
	file := filepath.Join(t.TempDir(), "f")
	body := strings.Repeat("0123456789", 1<<17)
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := make(chan []byte)
	go func() {
		got, _ := io.ReadAll(s)
		done <- got
	}()
	n, err := q.(io.ReaderFrom).ReadFrom(f)
	if err != nil || n != int64(len(body)) {
		t.Fatalf("ReadFrom = %d, %v; want %d", n, err, len(body))
	}
	q.(*Conn).CloseWrite()
	if got := <-done; string(got) != body {
		t.Fatalf("the other end read %d bytes, want %d", len(got), len(body))
	}
}

// CloseWrite shuts the wrapped socket's writing side: the other end reads the end while
// it can still write.
func TestCloseWrite(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			q, s := pair(t, network)
			if err := q.(*Conn).CloseWrite(); err != nil {
				t.Fatal(err)
			}
			if n, err := s.Read(make([]byte, 1)); n != 0 || err != io.EOF {
				t.Fatalf("read after CloseWrite = %d, %v; want the end", n, err)
			}
			if _, err := s.Write([]byte("still")); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, 5)
			if _, err := io.ReadFull(q, got); err != nil || string(got) != "still" {
				t.Fatalf("read %q, %v", got, err)
			}
		})
	}
}
