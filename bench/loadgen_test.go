package bench

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// loadGen is the side-by-side benchmark's load: closed-loop clients, each on its own
// kept-alive connection, sending the next request as soon as the last answer is read. It
// speaks HTTP/1.1 itself instead of using net/http's Transport, because the Transport
// silently retries an idempotent request whose kept-alive connection the server closed,
// and a request lost that way is exactly what the benchmark counts: every error and
// every non-2xx answer is a failed request, and the client then opens a new connection.
type loadGen struct {
	addr, host string
	stop       chan struct{}
	wg         sync.WaitGroup
	started    time.Time
	stopped    time.Time

	ok, failed, reconnects atomic.Int64
	// last holds, per client, the upstream of its latest answer.
	last []atomic.Pointer[string]
	// watch, when set, waits for the first answer from one upstream.
	watch atomic.Pointer[switchWatch]

	errMu  sync.Mutex
	errors []string // the first few failures, for the report
}

// switchWatch is one switch in flight: the upstream it moves to and when the first
// answer from there arrived.
type switchWatch struct {
	to   string
	once sync.Once
	at   time.Time
	seen chan struct{}
}

// loadMaxDuration bounds a load run even if stop is never called.
const loadMaxDuration = 10 * time.Minute

// startLoadGen starts n clients against addr (host:port) with the Host header host.
func startLoadGen(addr, host string, n int) *loadGen {
	g := &loadGen{addr: addr, host: host, stop: make(chan struct{}), last: make([]atomic.Pointer[string], n), started: time.Now()}
	for i := 0; i < n; i++ {
		g.wg.Add(1)
		go g.client(i)
	}
	return g
}

// client is one closed loop. A failure closes its connection; the next request opens a
// new one.
func (g *loadGen) client(i int) {
	defer g.wg.Done()
	req := []byte("GET / HTTP/1.1\r\nHost: " + g.host + "\r\nUser-Agent: restyplane-bench\r\n\r\n")
	deadline := g.started.Add(loadMaxDuration)
	var conn net.Conn
	var br *bufio.Reader
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	for {
		select {
		case <-g.stop:
			return
		default:
		}
		if time.Now().After(deadline) {
			return
		}
		if conn == nil {
			c, err := net.DialTimeout("tcp", g.addr, 5*time.Second)
			if err != nil {
				g.fail(fmt.Sprintf("connect: %v", err))
				time.Sleep(time.Millisecond) // a refused connect returns at once; do not spin
				continue
			}
			conn, br = c, bufio.NewReaderSize(c, 4096)
			g.reconnects.Add(1)
		}
		from, keep, err := g.roundTrip(conn, br, req)
		if err != nil {
			g.fail(err.Error())
			conn.Close()
			conn = nil
			continue
		}
		g.ok.Add(1)
		g.last[i].Store(&from)
		if !keep {
			conn.Close()
			conn = nil
		}
	}
}

// roundTrip sends one request and reads its answer: the upstream that answered (X-Upstream)
// and whether the connection stays open. Any answer but a 200 is an error.
func (g *loadGen) roundTrip(conn net.Conn, br *bufio.Reader, req []byte) (from string, keep bool, err error) {
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write(req); err != nil {
		return "", false, fmt.Errorf("write: %w", err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return "", false, fmt.Errorf("read: %w", err)
	}
	at := time.Now()
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return "", false, fmt.Errorf("read body: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", false, fmt.Errorf("status %d", resp.StatusCode)
	}
	from = resp.Header.Get("X-Upstream")
	if w := g.watch.Load(); w != nil && from == w.to {
		w.once.Do(func() { w.at = at; close(w.seen) })
	}
	return from, !resp.Close, nil
}

func (g *loadGen) fail(msg string) {
	g.failed.Add(1)
	g.errMu.Lock()
	if len(g.errors) < 5 {
		g.errors = append(g.errors, msg)
	}
	g.errMu.Unlock()
}

// expect starts waiting for the first answer from upstream to.
func (g *loadGen) expect(to string) *switchWatch {
	w := &switchWatch{to: to, seen: make(chan struct{})}
	g.watch.Store(w)
	return w
}

// settled reports whether every client's latest answer came from upstream to.
func (g *loadGen) settled(to string) bool {
	for i := range g.last {
		if p := g.last[i].Load(); p == nil || *p != to {
			return false
		}
	}
	return true
}

// end stops the clients and waits for them.
func (g *loadGen) end() {
	close(g.stop)
	g.wg.Wait()
	g.stopped = time.Now()
}
