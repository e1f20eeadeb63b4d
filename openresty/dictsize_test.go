package openresty_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/rptest"
	"github.com/restyplane/restyplane/openresty"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/openresty/render"
	"github.com/restyplane/restyplane/store"
)

// loopbackUpstream answers with its name on one port of 127.0.0.1 to 127.0.0.n, so that
// a backend may have n distinct endpoints that all answer.
func loopbackUpstream(t *testing.T, name string, n int) (port int) {
	t.Helper()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Upstream", name)
		io.WriteString(w, name)
	})}
	t.Cleanup(func() { srv.Close() })
	for try := 0; try < 20; try++ {
		first, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = first.Addr().(*net.TCPAddr).Port
		ls := []net.Listener{first}
		for k := 2; k <= n && err == nil; k++ {
			var l net.Listener
			if l, err = net.Listen("tcp", net.JoinHostPort(fmt.Sprintf("127.0.0.%d", k), strconv.Itoa(port))); err == nil {
				ls = append(ls, l)
			}
		}
		if err != nil {
			for _, l := range ls {
				l.Close()
			}
			continue
		}
		for _, l := range ls {
			go srv.Serve(l)
		}
		return port
	}
	t.Fatalf("no port free on 127.0.0.1-%d", n)
	return 0
}

// bigConfig writes to a store servers and backends of 100 endpoints each, all answering.
type bigConfig struct {
	t    *testing.T
	s    *store.Store
	in   *nginx.Instance
	port int
}

func newBigConfig(t *testing.T, in *nginx.Instance) *bigConfig {
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &bigConfig{t: t, s: s, in: in, port: loopbackUpstream(t, "up", 100)}
}

func (c *bigConfig) backend(i int) *api.Backend {
	b := &api.Backend{Name: fmt.Sprintf("b%03d", i), LoadBalance: api.RoundRobin}
	for k := 1; k <= 100; k++ {
		b.Endpoints = append(b.Endpoints, api.Endpoint{Address: fmt.Sprintf("127.0.0.%d", k), Port: c.port})
	}
	return b
}

// pastFloor is how many backends need a bigger dict than the floor.
func (c *bigConfig) pastFloor() int {
	floor := render.SizeDicts(nil, nil).Backends
	backends := map[string]*api.Backend{}
	n := 0
	for ; render.SizeDicts(backends, nil).Backends == floor; n++ {
		backends[c.backend(n).Name] = c.backend(n)
	}
	return n
}

// write stores n backends and a server routing /bNNN to each.
func (c *bigConfig) write(n int) {
	c.t.Helper()
	srv := &api.Server{Name: "big", Hostnames: []string{"big.example.com"}}
	var muts []api.Mutation
	for i := 0; i < n; i++ {
		muts = append(muts, api.Mutation{Kind: api.KindBackend, Backend: c.backend(i)})
		srv.Locations = append(srv.Locations, api.Location{Path: fmt.Sprintf("/b%03d", i), Match: api.MatchPrefix, Backend: c.backend(i).Name})
	}
	muts = append(muts, api.Mutation{Kind: api.KindServer, Server: srv})
	if _, err := c.s.Write(context.Background(), api.Meta{Actor: "t", Source: api.SourceAPI, Message: "grow"}, muts); err != nil {
		c.t.Fatal(err)
	}
}

// allRoute reports whether each of n backends answers through the proxy.
func (c *bigConfig) allRoute(n int) func() bool {
	return func() bool {
		for i := 0; i < n; i++ {
			if !routesToUp(c.t, c.in.Options().ProxyListen, "big.example.com", fmt.Sprintf("/b%03d", i)) {
				return false
			}
		}
		return true
	}
}

func startRealApplier(t *testing.T, s *store.Store, in *nginx.Instance) *openresty.Applier {
	a := openresty.NewApplier(s, in, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), "test")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return a
}

func checkLastApply(t *testing.T, a *openresty.Applier) {
	t.Helper()
	if st := a.Status(context.Background()); st.LastApply == nil || st.LastApply.Mode != api.ModeReload || len(st.LastApply.Skipped) != 0 {
		t.Errorf("last apply: %+v, want a reload that skipped nothing", st.LastApply)
	}
}

// A config that outgrows the shared dict's floor gets a bigger dict through a reload, and
// nginx starts the resized zone empty: the applier must push every backend after it.
func TestApplierPushesEverythingAfterADictResize(t *testing.T) {
	in := rptest.StartNginx(t, api.Config{Settings: twoWorkers()}, nil)
	c := newBigConfig(t, in)
	a := startRealApplier(t, c.s, in)
	c.write(2)
	eventually(t, "two backends route at the floor's size", 20*time.Second, c.allRoute(2))
	n := c.pastFloor()
	c.write(n)
	eventually(t, fmt.Sprintf("all %d backends route after the resize", n), 60*time.Second, c.allRoute(n))
	checkLastApply(t, a)
}

// The first apply finds nginx running the floor's dicts (restyplane started it with an
// empty conf) and a head past them: the same holds.
func TestFirstApplyPastTheFloorPushesAfterTheReload(t *testing.T) {
	in := rptest.StartNginx(t, api.Config{Settings: twoWorkers()}, nil)
	c := newBigConfig(t, in)
	n := c.pastFloor()
	c.write(n)
	a := startRealApplier(t, c.s, in)
	eventually(t, fmt.Sprintf("all %d backends route after the first apply", n), 60*time.Second, c.allRoute(n))
	checkLastApply(t, a)
}

// twoWorkers are the default settings with two workers, so that the test sees more than one.
func twoWorkers() api.Settings {
	s := api.DefaultSettings()
	s.WorkerProcesses = 2
	return s
}

// routesToUp reports whether a request for host and path through the proxy at addr
// answers 200 from the upstream named "up".
func routesToUp(t *testing.T, addr, host, path string) bool {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s%s: %v", host, path, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == http.StatusOK && resp.Header.Get("X-Upstream") == "up"
}

// eventually retries cond until it holds or the time is up.
func eventually(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
