package nginx

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// startTitled starts a process whose command line reads title, as nginx retitles its
// workers.
func startTitled(t *testing.T, title string) int {
	t.Helper()
	cmd := &exec.Cmd{Path: "/bin/sleep", Args: []string{title, "30"}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

func TestAcceptingWorkersLeavesOutThoseShuttingDown(t *testing.T) {
	accepting := startTitled(t, "nginx: worker process")
	closing := startTitled(t, "nginx: worker process is shutting down")
	other := startTitled(t, "nginx: cache manager process")
	gone := exec.Command("/bin/true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	pids := map[int]bool{accepting: true, closing: true, other: true, gone.Process.Pid: true}
	if diff := cmp.Diff([]int{accepting}, acceptingWorkers(pids)); diff != "" {
		t.Fatalf("acceptingWorkers (-want +got):\n%s", diff)
	}
}

// TestConfirmRetriesAStatusRequestThatHangs: one status request that is never answered
// (seen once on a loaded machine: "not confirmed within 10s: admin GET /status: context
// deadline exceeded") must not take the whole reload timeout; the next one is answered.
func TestConfirmRetriesAStatusRequestThatHangs(t *testing.T) {
	in := NewInstance(Options{Prefix: t.TempDir(), ReloadTimeout: 5 * time.Second})
	if err := os.MkdirAll(in.l.socketDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", in.l.Socket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	held := make(chan net.Conn, 1)
	t.Cleanup(func() {
		select {
		case c := <-held:
			c.Close()
		default:
		}
	})
	go func() {
		for n := 0; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if n == 0 {
				held <- c // read nothing, answer nothing
				continue
			}
			go func(c net.Conn) {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				body := `{"generation":"7","pid":1}`
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
			}(c)
		}
	}()
	start := time.Now()
	if err := in.confirm(t.Context(), "7", map[int]bool{}, 0); err != nil {
		t.Fatalf("confirm: %v", err)
	}
	if d := time.Since(start); d >= in.opts.ReloadTimeout {
		t.Fatalf("confirmed after %v, the whole reload timeout", d)
	}
}
