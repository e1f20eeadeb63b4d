package bench

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// upstream is a real HTTP server on loopback that answers every request with its name, in
// the X-Upstream header and the body, and counts what it served.
type upstream struct {
	name   string
	port   int
	served atomic.Int64
}

func newUpstream(tb testing.TB, name string) *upstream {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	u := &upstream{name: name, port: l.Addr().(*net.TCPAddr).Port}
	body := []byte(name + "\n")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.served.Add(1)
		w.Header().Set("X-Upstream", name)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	tb.Cleanup(func() { srv.Close() })
	return u
}

func (u *upstream) endpoints() []api.Endpoint {
	return []api.Endpoint{{Address: "127.0.0.1", Port: u.port, Weight: 1}}
}

// proxyClient sends requests through the proxy on one kept-alive connection, as a client
// that polls would.
type proxyClient struct {
	url    string
	client *http.Client
}

func newProxyClient(in *instance) *proxyClient {
	return &proxyClient{url: in.Proxy, client: &http.Client{Timeout: 5 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}}
}

// get requests path on host and returns the status and the upstream that answered.
func (p *proxyClient) get(host, path string) (int, string, error) {
	req, err := http.NewRequest("GET", p.url+path, nil)
	if err != nil {
		return 0, "", err
	}
	req.Host = host
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Upstream"), nil
}
