package bench

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

// fleetLoad is a bounded load through every data plane by clients that never retry: each
// request is a POST whose body cannot be replayed (no GetBody), so Go's transport sends it
// once, and every error or non-200 answer counts as a failure.
type fleetLoad struct {
	ok, failed atomic.Int64
	mu         sync.Mutex
	errs       []string
	stop       chan struct{}
	wg         sync.WaitGroup
}

// startFleetLoad runs one client per proxy, each until stop, max requests or within, with
// a pause between requests so that the load leaves the cores to the processes it measures.
func startFleetLoad(proxies []string, host string, max int, within, pause time.Duration) *fleetLoad {
	l := &fleetLoad{stop: make(chan struct{})}
	deadline := time.Now().Add(within)
	for _, proxy := range proxies {
		l.wg.Add(1)
		go func(proxy string) {
			defer l.wg.Done()
			c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer c.CloseIdleConnections()
			for i := 0; i < max && time.Now().Before(deadline); i++ {
				select {
				case <-l.stop:
					return
				case <-time.After(pause):
				}
				l.one(c, proxy, host)
			}
		}(proxy)
	}
	return l
}

func (l *fleetLoad) one(c *http.Client, proxy, host string) {
	req, _ := http.NewRequest("POST", proxy+"/load", io.NopCloser(strings.NewReader("x")))
	req.Host, req.ContentLength, req.GetBody = host, 1, nil
	resp, err := c.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && (resp.StatusCode != 200 || resp.Header.Get("X-Upstream") == "") {
			err = fmt.Errorf("status %d from %q", resp.StatusCode, resp.Header.Get("X-Upstream"))
		}
	}
	if err != nil {
		l.failed.Add(1)
		l.mu.Lock()
		if len(l.errs) < 5 {
			l.errs = append(l.errs, err.Error())
		}
		l.mu.Unlock()
		return
	}
	l.ok.Add(1)
}

// waitMore waits until n more requests succeeded than when it was called.
func (l *fleetLoad) waitMore(tb testing.TB, n int64, within time.Duration, what string) {
	tb.Helper()
	from := l.ok.Load()
	deadline := time.Now().Add(within)
	for l.ok.Load() < from+n {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: %d requests succeeded in %s, want %d (failed %d: %v)", what, l.ok.Load()-from, within, n, l.failed.Load(), l.errs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// end stops the clients and returns what they counted.
func (l *fleetLoad) end() (ok, failed int64, errs []string) {
	close(l.stop)
	l.wg.Wait()
	return l.ok.Load(), l.failed.Load(), l.errs
}
