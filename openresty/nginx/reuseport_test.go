package nginx_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// TestConnectionsSpreadOverWorkers opens bursts of kept-alive connections, as a client
// pool or a load balancer in front opens them, to a proxy of two workers, and counts the
// connections each worker holds. With one listening socket that all workers wait on, the
// worker that happens to be awake takes most of a burst, often all of it: clients that
// keep their connections would load one worker while the other idles.
func TestConnectionsSpreadOverWorkers(t *testing.T) {
	up := startUpstream(t, "web", 0)
	b := backend("web", up)
	in := startNginxWith(t, config([]api.Backend{b}, server("web", "web.test", "/", "web")), func(o *nginx.Options) { o.ReusePort = true })
	push(t, in, 2, b)
	_, port, _ := net.SplitHostPort(proxyAddr(in))
	const bursts, conns = 50, 64
	for burst := 1; burst <= bursts; burst++ {
		open := dialBurst(t, proxyAddr(in), conns)
		held := heldConnections(t, in.PID(), port)
		for _, c := range open {
			c.Close()
		}
		if len(held) != 2 {
			t.Fatalf("burst %d: workers holding connections: %v, want 2 workers", burst, held)
		}
		for pid, n := range held {
			// Spread by a hash of each connection's addresses: fewer than 8 of 64 on one
			// side happens about once in 10^10 bursts.
			if n < 8 {
				t.Fatalf("burst %d: worker %d holds %d of %d connections (all: %v)", burst, pid, n, conns, held)
			}
		}
	}
}

// dialBurst opens n connections at once and sends one request on each, which it reads
// the answer to: then every connection is held by the worker that accepted it.
func dialBurst(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	open := make([]net.Conn, n)
	var wg sync.WaitGroup
	for i := range open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c, err := net.Dial("tcp", addr); err == nil {
				open[i] = c
			}
		}()
	}
	wg.Wait()
	for i, c := range open {
		if c == nil {
			t.Fatalf("connection %d: not opened", i+1)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: web.test\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("connection %d: status %d", i+1, resp.StatusCode)
		}
	}
	return open
}

// heldConnections counts, for each worker of master, the established TCP connections it
// holds on the local port.
func heldConnections(t *testing.T, master int, port string) map[int]int {
	t.Helper()
	p, _ := strconv.Atoi(port)
	established := map[string]bool{} // socket inodes
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) >= 10 && fs[3] == "01" && strings.HasSuffix(fs[1], fmt.Sprintf(":%04X", p)) {
				established[fs[9]] = true
			}
		}
	}
	out := map[int]int{}
	for _, pid := range workerPIDs(t, master) {
		out[pid] += 0
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			l, err := os.Readlink(fd)
			if err == nil && strings.HasPrefix(l, "socket:[") && established[strings.Trim(l[len("socket:"):], "[]")] {
				out[pid]++
			}
		}
	}
	return out
}

// TestWorkerCountChangeLosesNoRequest reloads with more workers, then fewer, while
// clients that never retry send requests, some on kept-alive connections and some on a
// new connection each. The instance listens as restyplane --reuse-port would on this
// machine: a socket per worker where the kernel hands over the connections of a closing
// one, one socket otherwise. A reload to fewer workers closes the sockets of the workers
// it removes: with a socket per worker and without the hand-over, a few requests in every
// run of this test met a reset. Not one may.
func TestWorkerCountChangeLosesNoRequest(t *testing.T) {
	up := startUpstream(t, "web", 0)
	backends := []api.Backend{backend("web", up)}
	in := startNginxWith(t, config(backends, server("shop", "shop.test", "/", "web")), func(o *nginx.Options) {
		o.ReusePort = nginx.MigratesRequests(nginx.MigrateReqSysctl)
	})
	push(t, in, 2, backends...)
	// Half the clients ask to close after each answer: a new connection meets the
	// listening sockets as they change, a kept-alive one the workers that leave.
	var clients []loadClient
	for k := 0; k < 8; k++ {
		c := loadClient{path: "/"}
		if k%2 == 1 {
			c.extra = "Connection: close\r\n"
		}
		clients = append(clients, c)
	}
	load := startLoad(proxyAddr(in), "shop.test", clients)
	time.Sleep(200 * time.Millisecond)
	for k, workers := range []int{4, 1, 3, 2} {
		cfg := config(backends, server("shop", "shop.test", "/", "web"))
		cfg.Settings.WorkerProcesses = workers
		gen := itoa(k + 2)
		conf, err := in.Render(cfg, gen)
		if err == nil {
			err = in.Reload(ctx(t), conf, nil, gen)
		}
		if err != nil {
			load.end()
			t.Fatalf("reload to %d workers: %v", workers, err)
		}
		time.Sleep(200 * time.Millisecond)
		if got := len(workerPIDs(t, in.PID())); got != workers {
			t.Errorf("after the reload to %d workers, %d run", workers, got)
		}
	}
	served, _, errs := load.end()
	if len(errs) > 0 {
		t.Fatalf("%d of %d requests failed across reloads that changed the workers:\n%s", len(errs), served+len(errs), strings.Join(errs[:min(len(errs), 20)], "\n"))
	}
	t.Logf("%d requests, none lost", served)
}
