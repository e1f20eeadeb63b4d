package openresty_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/rptest"
	"github.com/restyplane/restyplane/openresty"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/store"
)

// TestAnswerLater: with AnswerLater, as an agent runs it, an endpoint change reaches
// traffic as soon as nginx stores the push, while the applier reads nginx's answer only
// at the end of the wait: what runs and the apply record change then, and the record
// still ends when nginx stored the push. A newer revision ends the wait at once.
func TestAnswerLater(t *testing.T) {
	const wait = 3 * time.Second
	in := rptest.StartNginx(t, api.Config{Settings: api.DefaultSettings()}, func(o *nginx.Options) { o.CountersWithPush = true })
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ports := map[string]int{"a": loopbackUpstream(t, "a", 1), "b": loopbackUpstream(t, "b", 1)}
	to := func(up string, more ...api.Mutation) int64 {
		t.Helper()
		b := &api.Backend{Name: "web", Endpoints: []api.Endpoint{{Address: "127.0.0.1", Port: ports[up]}}}
		rev, err := s.Write(context.Background(), api.Meta{Actor: "t", Source: api.SourceAPI, Message: "to " + up},
			append([]api.Mutation{{Kind: api.KindBackend, Backend: b}}, more...))
		if err != nil {
			t.Fatal(err)
		}
		return rev.Revision.ID
	}
	srv := &api.Server{Name: "later", Hostnames: []string{"later.example.com"}, Locations: []api.Location{{Path: "/", Backend: "web"}}}
	first := to("a", api.Mutation{Kind: api.KindServer, Server: srv})

	a := openresty.NewApplier(s, in, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), "test")
	a.AnswerLater(wait)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	applied := func() int64 { return a.Status(context.Background()).Applied }
	eventually(t, "the first revision applied", 60*time.Second, func() bool { return applied() == first })

	t0 := time.Now()
	second := to("b")
	eventually(t, "traffic moved to b", wait, func() bool { return upstreamOf(t, in.Options().ProxyListen) == "b" })
	live := time.Since(t0)
	if got := applied(); got != first {
		t.Fatalf("applied %d as soon as traffic moved (%s after the write), want %d until the answer is read", got, live, first)
	}
	eventually(t, "the second revision applied", 2*wait, func() bool { return applied() == second })
	if read := time.Since(t0); read < wait-100*time.Millisecond {
		t.Errorf("the answer was read %s after the write, want the wait of %s", read, wait)
	}
	last := a.Status(context.Background()).LastApply
	if d := time.Duration(last.DurationMS * float64(time.Millisecond)); last.Revision != second || d > live {
		t.Errorf("last apply: revision %d, %s; want %d, ended when nginx stored it (traffic moved %s after the write)", last.Revision, d, second, live)
	}

	// Revision 3 is live and its answer waits to be read; revision 4 ends that wait, and
	// goes live without waiting for it.
	third := to("a")
	eventually(t, "traffic moved back to a", wait, func() bool { return upstreamOf(t, in.Options().ProxyListen) == "a" })
	t1 := time.Now()
	to("b")
	eventually(t, "traffic moved to b again", wait, func() bool { return upstreamOf(t, in.Options().ProxyListen) == "b" })
	if got := applied(); got != third {
		t.Errorf("applied %d once revision 4 was live, want %d: its write ends the wait for revision 3's answer", got, third)
	}
	if took := time.Since(t1); took > wait*2/3 {
		t.Errorf("revision 4 went live %s after its write, behind revision 3's wait of %s", took, wait)
	}
}

// upstreamOf is the upstream that answers later.example.com through the proxy at addr.
func upstreamOf(t *testing.T, addr string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "later.example.com"
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET later.example.com: %v", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.Header.Get("X-Upstream")
}
