package nginx_test

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// A request is counted under the backend that served it: the canary's alternative when the
// canary took it, the backend a shared prefix block routed it to, and otherwise the one
// its location names, although only the canary's requests keep state of their own.
func TestCountersNameTheBackendThatServed(t *testing.T) {
	stable, canary, other := startUpstream(t, "stable", 0), startUpstream(t, "canary", 0), startUpstream(t, "other", 0)
	main := backend("main", stable)
	main.Canary = &api.Canary{Backend: "main-v2", Header: "X-Canary"}
	v2, b := backend("main-v2", canary), backend("b", other)
	in := startNginx(t, config([]api.Backend{main, v2, b}, server("shop", "shop.test", "/a", "main", "/b", "b")))
	push(t, in, 2, main, v2, b)
	addr := proxyAddr(in)
	for i := 0; i < 3; i++ {
		if got := get(t, addr, "shop.test", "/a", "X-Canary", "always").upstream; got != "canary" {
			t.Fatalf("X-Canary: always went to %q", got)
		}
	}
	for i := 0; i < 2; i++ {
		if got := get(t, addr, "shop.test", "/a", "X-Canary", "never").upstream; got != "stable" {
			t.Fatalf("X-Canary: never went to %q", got)
		}
	}
	if got := get(t, addr, "shop.test", "/b/x").upstream; got != "other" {
		t.Fatalf("/b/x went to %q", got)
	}
	want := map[string]nginx.Counter{"main": {Requests: 2}, "main-v2": {Requests: 3}, "b": {Requests: 1}}
	var got map[string]nginx.Counter
	eventually(t, "backend counters", 5*time.Second, func() bool {
		var err error
		got, err = in.Counters(ctx(t), 0)
		return err == nil && cmp.Equal(got, want)
	})
}

// Each worker counts in its own memory and adds its counts to the shared dict on a timer:
// a reading, served by one worker, sees the requests every worker answered.
func TestCountersSumEveryWorker(t *testing.T) {
	up := startUpstream(t, "a", 0)
	web := backend("web", up)
	in := startNginx(t, config([]api.Backend{web}, server("one", "one.test", "/", "web")))
	push(t, in, 2, web)
	// Concurrent requests, each on a new connection, so that both workers take some.
	const n = 60
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			for j := 0; j < n/6; j++ {
				req, _ := http.NewRequest(http.MethodGet, "http://"+proxyAddr(in)+"/", nil)
				req.Host = "one.test"
				resp, err := c.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	eventually(t, "every worker's counts", 5*time.Second, func() bool {
		s, err := in.Admin().Counters(ctx(t))
		if err != nil || s["one"].Requests != n {
			return false
		}
		b, err := in.Counters(ctx(t), 0)
		return err == nil && b["web"].Requests == n
	})
}
