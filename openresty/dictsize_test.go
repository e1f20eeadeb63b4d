package openresty_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty"
	"github.com/restyplane/restyplane/store"
)

func TestSizeDictsHasAFloorStepsAndHeadroom(t *testing.T) {
	empty := openresty.SizeDicts(nil, nil)
	if empty.Backends < 1 || empty.Certificates < 1 {
		t.Fatalf("empty state: %+v, want a floor of at least 1 MiB", empty)
	}
	backends := map[string]*api.Backend{}
	var size []int
	for i := 0; i < 4000; i++ {
		name := fmt.Sprintf("backend-%04d", i)
		b := &api.Backend{Name: name}
		for p := 0; p < 10; p++ {
			b.Endpoints = append(b.Endpoints, api.Endpoint{Address: "10.0.0.1", Port: 8000 + p})
		}
		backends[name] = b
		if i%20 == 0 {
			size = append(size, openresty.SizeDicts(backends, nil).Backends)
		}
	}
	if size[0] != empty.Backends { // one backend
		t.Errorf("one backend: %d MiB, want the floor %d", size[0], empty.Backends)
	}
	steps := 0
	for i := 1; i < len(size); i++ {
		if size[i] < size[i-1] {
			t.Fatalf("size shrank from %d to %d MiB by backend %d", size[i-1], size[i], 20*i)
		}
		if size[i] != size[i-1] {
			steps++
			if size[i] != 2*size[i-1] {
				t.Errorf("size went from %d to %d MiB: want power-of-two steps", size[i-1], size[i])
			}
		}
	}
	if steps == 0 || steps > 6 {
		t.Errorf("%d size steps over 4000 backends: want a few", steps)
	}
	// Headroom: the dict is at least four times the JSON the Lua side stores.
	encoded := 0
	for _, b := range backends {
		j, _ := json.Marshal(b)
		encoded += len(j)
	}
	if got := size[len(size)-1] << 20; got < 4*encoded {
		t.Errorf("dict of %d bytes for %d bytes of JSON: want at least 4 times", got, encoded)
	}
	// Certificates are sized apart from backends, from their PEM.
	certs := map[string]*api.Certificate{"big": {Name: "big", Cert: strings.Repeat("c", 8<<20), Key: "k"}}
	if got := openresty.SizeDicts(backends, certs); got.Certificates < 32 || got.Backends != size[len(size)-1] {
		t.Errorf("8 MiB of PEM: %+v, want certificates at least 32 MiB and backends unchanged", got)
	}
	// Same state, same sizes, and the same rendered conf.
	cfg := api.Config{Settings: api.DefaultSettings(), Certificates: []api.Certificate{*certs["big"]}}
	o := openresty.RenderOptions{Prefix: "/tmp/rp", ProxyListen: "127.0.0.1:80", TLSListen: "127.0.0.1:443"}
	a, err := openresty.Render(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := openresty.Render(cfg, o)
	if string(a) != string(b) || !strings.Contains(string(a), fmt.Sprintf("lua_shared_dict restyplane_certificates %dm;", got(openresty.SizeDicts(nil, certs)))) {
		t.Errorf("conf is not deterministic or does not name the certificates' size")
	}
}

func got(d openresty.DictSizes) int { return d.Certificates }

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
	in   *openresty.Instance
	port int
}

func newBigConfig(t *testing.T, in *openresty.Instance) *bigConfig {
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
	floor := openresty.SizeDicts(nil, nil).Backends
	backends := map[string]*api.Backend{}
	n := 0
	for ; openresty.SizeDicts(backends, nil).Backends == floor; n++ {
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
			if r := get(c.t, proxyAddr(c.in), "big.example.com", fmt.Sprintf("/b%03d", i)); r.status != 200 || r.upstream != "up" {
				return false
			}
		}
		return true
	}
}

func startRealApplier(t *testing.T, s *store.Store, in *openresty.Instance) *openresty.Applier {
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
	in := startNginx(t, config(nil))
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
	in := startNginx(t, config(nil))
	c := newBigConfig(t, in)
	n := c.pastFloor()
	c.write(n)
	a := startRealApplier(t, c.s, in)
	eventually(t, fmt.Sprintf("all %d backends route after the first apply", n), 60*time.Second, c.allRoute(n))
	checkLastApply(t, a)
}
