package nginx_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/openresty/render"
)

// wireClient is an HTTP/1 client on one connection at a time that, like wrk, never
// retries: it opens a new connection only when an answer asks it to close. It reads the
// Connection header lines as they came on the wire, before any parser merged them.
type wireClient struct {
	addr, host, proto, extra string
	conn                     net.Conn
	br                       *bufio.Reader
	raw                      bytes.Buffer
}

// wireAnswer is one answer as wireClient saw it.
type wireAnswer struct {
	status     int
	connection []string // the values of the Connection lines, in order
	reused     bool     // whether the request went on a connection that had served before
	closed     bool     // whether the answer asked the client to close
}

func newWireClient(addr, host string) *wireClient {
	return &wireClient{addr: addr, host: host, proto: "HTTP/1.1"}
}

func (w *wireClient) get(path string) (wireAnswer, error) {
	a := wireAnswer{reused: w.conn != nil}
	if w.conn == nil {
		c, err := net.DialTimeout("tcp", w.addr, 5*time.Second)
		if err != nil {
			return a, err
		}
		w.conn, w.br = c, bufio.NewReader(io.TeeReader(c, &w.raw))
	}
	w.raw.Reset()
	w.conn.SetDeadline(time.Now().Add(5 * time.Second))
	req := "GET " + path + " " + w.proto + "\r\nHost: " + w.host + "\r\n" + w.extra + "\r\n"
	if _, err := io.WriteString(w.conn, req); err != nil {
		w.close()
		return a, fmt.Errorf("write (reused connection: %v): %w", a.reused, err)
	}
	resp, err := http.ReadResponse(w.br, nil)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if err != nil {
		w.close()
		return a, fmt.Errorf("read (reused connection: %v): %w", a.reused, err)
	}
	head, _, _ := strings.Cut(w.raw.String(), "\r\n\r\n")
	for _, line := range strings.Split(head, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Connection") {
			a.connection = append(a.connection, strings.TrimSpace(v))
		}
	}
	a.status, a.closed = resp.StatusCode, resp.Close
	if resp.Close {
		w.close()
	}
	return a, nil
}

func (w *wireClient) close() {
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}

// goGet sends a GET with Go's own client and says whether it reused a connection and
// whether the answer told it to close.
func goGet(t *testing.T, c *http.Client, addr, host string) (reused, closed bool) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
	resp, err := c.Do(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if err != nil {
		t.Fatalf("GET with Go's client: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return reused, resp.Close
}

func draining(t *testing.T, in *nginx.Instance) bool {
	t.Helper()
	st, err := in.Admin().Status(ctx(t))
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	return st.Draining
}

func TestDrainAsksKeptAliveClientsToClose(t *testing.T) {
	up := startUpstream(t, "a", 0)
	cfg := config([]api.Backend{backend("web", up)}, server("shop", "shop.test", "/", "web"))
	in := startNginx(t, cfg)
	push(t, in, 2, cfg.Backends...)
	addr := proxyAddr(in)
	w := newWireClient(addr, "shop.test")
	defer w.close()
	goClient := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}

	// Outside a drain, the connection stays alive and nginx says so once.
	for i := 0; i < 2; i++ {
		a, err := w.get("/")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"keep-alive"}, a.connection); diff != "" || a.closed || a.reused != (i == 1) {
			t.Fatalf("answer %d before the drain: %+v; Connection lines (-want +got):\n%s", i, a, diff)
		}
	}
	goGet(t, goClient, addr, "shop.test")
	if reused, closed := goGet(t, goClient, addr, "shop.test"); !reused || closed {
		t.Fatalf("Go's client before the drain: reused %v, closed %v; want a kept-alive connection", reused, closed)
	}
	if draining(t, in) {
		t.Fatal("status reports draining before any drain")
	}

	// During a drain, the answer on the same kept-alive connection adds "close" after
	// nginx's own "keep-alive"; both wrk's parser and Go's close on it.
	if err := in.Admin().Drain(ctx(t), 10*time.Second); err != nil {
		t.Fatalf("drain: %v", err)
	}
	if !draining(t, in) {
		t.Fatal("status does not report the drain")
	}
	a, err := w.get("/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"keep-alive", "close"}, a.connection); diff != "" || !a.closed || !a.reused || a.status != 200 {
		t.Fatalf("answer during the drain: %+v; Connection lines (-want +got):\n%s", a, diff)
	}
	if reused, closed := goGet(t, goClient, addr, "shop.test"); !reused || !closed {
		t.Fatalf("Go's client during the drain: reused %v, closed %v; want its kept-alive connection told to close", reused, closed)
	}
	if reused, _ := goGet(t, goClient, addr, "shop.test"); reused {
		t.Fatal("Go's client reused the connection it was told to close")
	}
	// nginx's own answers (a host no server claims) are marked too.
	if a, err := newWireClient(addr, "nobody.test").get("/"); err != nil || a.status != 404 || !a.closed {
		t.Fatalf("404 during the drain: %+v, %v; want it marked close", a, err)
	}
	// An HTTP/1.0 client that did not ask to keep alive gets nginx's single "close".
	old := &wireClient{addr: addr, host: "shop.test", proto: "HTTP/1.0"}
	if a, err := old.get("/"); err != nil || !cmp.Equal(a.connection, []string{"close"}) {
		t.Fatalf("HTTP/1.0 during the drain: %+v, %v; want one Connection: close", a, err)
	}
	old = &wireClient{addr: addr, host: "shop.test", proto: "HTTP/1.0", extra: "Connection: keep-alive\r\n"}
	if a, err := old.get("/"); err != nil || !cmp.Equal(a.connection, []string{"keep-alive", "close"}) {
		t.Fatalf("HTTP/1.0 keep-alive during the drain: %+v, %v; want it told to close", a, err)
	}

	// Undrain: connections stay alive again.
	if err := in.Admin().Undrain(ctx(t)); err != nil {
		t.Fatalf("undrain: %v", err)
	}
	if draining(t, in) {
		t.Fatal("status reports draining after undrain")
	}
	for i := 0; i < 2; i++ {
		if a, err := w.get("/"); err != nil || a.closed || !cmp.Equal(a.connection, []string{"keep-alive"}) || a.reused != (i == 1) {
			t.Fatalf("answer %d after the drain: %+v, %v; want keep-alive", i, a, err)
		}
	}

	// The flag expires on its own, so a restyplane that dies mid-reload cannot leave the
	// proxy draining.
	if err := in.Admin().Drain(ctx(t), 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if !draining(t, in) {
		t.Fatal("status does not report the short drain")
	}
	eventually(t, "the drain flag expires", 3*time.Second, func() bool { return !draining(t, in) })
	if a, err := w.get("/"); err != nil || a.closed {
		t.Fatalf("answer after the flag expired: %+v, %v; want keep-alive", a, err)
	}
}

// TestReloadLosesNoKeptAliveRequest runs clients on kept-alive connections that never
// retry, as wrk does, through reloads: some send requests back to back, some pause up to
// 30 ms between them, some wait 150 ms for a slow upstream (their answer is still on its
// way when the old worker shuts down, which then says "close" itself). None may meet a
// closed socket, some must have been told to close, and the flag is down after each
// reload. Without the drain, a run of this test loses a few dozen requests.
func TestReloadLosesNoKeptAliveRequest(t *testing.T) {
	const reloads = 6
	fast, slow := startUpstream(t, "fast", 0), startUpstream(t, "slow", 150*time.Millisecond)
	backends := []api.Backend{backend("fast", fast), backend("slow", slow)}
	routes := []string{"/", "fast", "/slow", "slow"}
	in := startNginx(t, config(backends, server("shop", "shop.test", routes...)))
	push(t, in, 2, backends...)

	pause := 30 * time.Millisecond
	load := startLoad(proxyAddr(in), "shop.test", []loadClient{{path: "/"}, {path: "/"}, {path: "/"}, {path: "/"},
		{path: "/", pause: pause}, {path: "/", pause: pause}, {path: "/slow"}, {path: "/slow"}})
	time.Sleep(300 * time.Millisecond)
	for k := 0; k < reloads; k++ {
		r := routes
		if k%2 == 0 {
			r = append(r[:len(r):len(r)], "/extra", "fast")
		}
		gen := itoa(k + 2)
		conf, err := in.Render(config(backends, server("shop", "shop.test", r...)), gen)
		if err != nil {
			t.Fatal(err)
		}
		if err := in.Reload(ctx(t), conf, nil, gen); err != nil {
			load.end()
			t.Fatalf("reload %d: %v", k, err)
		}
		if draining(t, in) {
			t.Errorf("the drain flag is still up after reload %d", k)
		}
		time.Sleep(200 * time.Millisecond)
	}
	served, closes, errs := load.end()
	if len(errs) > 0 {
		t.Fatalf("%d of %d requests failed across %d reloads:\n%s", len(errs), served+len(errs), reloads, strings.Join(errs, "\n"))
	}
	if closes == 0 {
		t.Fatalf("none of %d answers asked to close during %d reloads", served, reloads)
	}
	w := newWireClient(proxyAddr(in), "shop.test")
	defer w.close()
	for i := 0; i < 2; i++ {
		if a, err := w.get("/"); err != nil || a.closed || a.reused != (i == 1) {
			t.Fatalf("answer %d after the reloads: %+v, %v; want the connection kept alive", i, a, err)
		}
	}
	t.Logf("%d requests, %d told to close, none lost across %d reloads", served, closes, reloads)
}

func TestFailedReloadLowersTheDrainFlag(t *testing.T) {
	up := startUpstream(t, "a", 0)
	cfg := config([]api.Backend{backend("web", up)}, server("shop", "shop.test", "/", "web"))
	in := startNginx(t, cfg)
	push(t, in, 2, cfg.Backends...)

	// The master refuses a listen address it cannot bind, after the flag went up.
	busy := startUpstream(t, "busy", 0)
	o := in.Options()
	o.ProxyListen = "127.0.0.1:" + itoa(busy.port)
	conf, err := render.Conf(cfg, o.RenderOptions("2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Reload(ctx(t), conf, nil, "2"); err == nil {
		t.Fatal("reload to an address in use succeeded")
	}
	if draining(t, in) {
		t.Fatal("the drain flag is still up after a refused reload")
	}
	if a, err := newWireClient(proxyAddr(in), "shop.test").get("/"); err != nil || a.closed {
		t.Fatalf("answer after the refused reload: %+v, %v; want keep-alive", a, err)
	}

	// A conf that nginx -t rejects never raises it.
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := in.Reload(c, []byte("this is not nginx.conf"), nil, "3"); err == nil {
		t.Fatal("reload of a broken conf succeeded")
	}
	if draining(t, in) {
		t.Fatal("the drain flag is up after a conf nginx -t refused")
	}
}
