package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// load is a bounded load of clients that never retry: each request is a POST (Go's
// transport replays only idempotent requests) on kept-alive connections, so a request
// fails whenever nginx fails it, and a connection refused is a failure too.
type load struct {
	ok, failed atomic.Int64
	mu         sync.Mutex
	errs       []string
	stop       chan struct{}
	wg         sync.WaitGroup
}

// startLoad runs clients (per proxy) against host through each of proxies until stopLoad,
// or until each client sent max requests or a minute passed. An answer counts only when it
// is a 200 from a known upstream for /load.
func startLoad(proxies []string, host string, clients, max int) *load {
	l := &load{stop: make(chan struct{})}
	deadline := time.Now().Add(time.Minute)
	for i := 0; i < clients*len(proxies); i++ {
		proxy := proxies[i%len(proxies)]
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer c.CloseIdleConnections()
			for i := 0; i < max && time.Now().Before(deadline); i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				req, _ := http.NewRequest("POST", proxy+"/load", strings.NewReader("x"))
				req.Host = host
				resp, err := c.Do(req)
				if err == nil {
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || !strings.HasSuffix(strings.TrimSpace(string(body)), " /load") {
						err = fmt.Errorf("status %d: %q", resp.StatusCode, body)
					}
				}
				if err != nil {
					l.failed.Add(1)
					l.mu.Lock()
					if len(l.errs) < 5 {
						l.errs = append(l.errs, err.Error())
					}
					l.mu.Unlock()
					continue
				}
				l.ok.Add(1)
			}
		}()
	}
	return l
}

// waitMore waits until n more requests succeeded than when it was called.
func (l *load) waitMore(t *testing.T, n int64, what string) {
	t.Helper()
	from := l.ok.Load()
	deadline := time.Now().Add(20 * time.Second)
	for l.ok.Load() < from+n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d requests succeeded in 20s, want %d (failed %d: %v)", what, l.ok.Load()-from, n, l.failed.Load(), l.errs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stopLoad ends the clients and fails the test if any request failed.
func (l *load) stopLoad(t *testing.T) {
	t.Helper()
	close(l.stop)
	l.wg.Wait()
	if f := l.failed.Load(); f != 0 {
		t.Fatalf("%d of %d requests failed, want none; first errors: %v", f, f+l.ok.Load(), l.errs)
	}
	t.Logf("%d requests, none failed", l.ok.Load())
}
