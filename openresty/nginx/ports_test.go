package nginx_test

import (
	"crypto/tls"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestServersOnTheirOwnPorts: one hostname serves other locations on a port of its own;
// each own port answers 404 for hosts no server there names, unless a catch-all holds
// it; a server's own HTTPS port serves its certificate and is where its redirect goes.
func TestServersOnTheirOwnPorts(t *testing.T) {
	v1, v2, v3 := startUpstream(t, "v1", 0), startUpstream(t, "v2", 0), startUpstream(t, "v3", 0)
	backends := []api.Backend{backend("v1", v1), backend("v2", v2), backend("v3", v3)}
	p8080, p8090, p9443 := freePort(t), freePort(t), freePort(t)
	foo := server("foo", "foo.test", "/", "v1")
	foo8080 := server("foo-8080", "foo.test", "/", "v2")
	foo8080.Port = p8080
	bar8080 := server("bar-8080", "bar.test", "/", "v2")
	bar8080.Port = p8080
	bar8080.TLS = &api.ServerTLS{Certificate: "bar-tls", Port: p9443, Redirect: true}
	any8090 := server("any-8090", "_", "/", "v3")
	any8090.Port = p8090
	cert, key, _ := selfSigned(t, "bar.test")
	cfg := config(backends, foo, foo8080, bar8080, any8090)
	cfg.Certificates = []api.Certificate{{Name: "bar-tls", Cert: cert, Key: key}}
	in := startNginx(t, cfg)
	push(t, in, 2, backends...)
	at := func(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
	for _, c := range []struct {
		addr, host string
		status     int
		upstream   string
	}{
		{proxyAddr(in), "foo.test", 200, "v1"},
		{at(p8080), "foo.test", 200, "v2"},
		{proxyAddr(in), "bar.test", 404, ""},
		{at(p8080), "nobody.test", 404, ""},
		{at(p8090), "foo.test", 200, "v3"},
		{at(p8090), "nobody.test", 200, "v3"},
	} {
		if got := get(t, c.addr, c.host, "/"); got.status != c.status || got.upstream != c.upstream {
			t.Errorf("GET %s on %s = %d from %q, want %d from %q", c.host, c.addr, got.status, got.upstream, c.status, c.upstream)
		}
	}
	if got, want := get(t, at(p8080), "bar.test", "/x?y=1"), "https://bar.test:"+strconv.Itoa(p9443)+"/x?y=1"; got.status != 308 || got.header.Get("Location") != want {
		t.Errorf("GET bar.test on its own port = %d to %q, want 308 to %q", got.status, got.header.Get("Location"), want)
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for host, want := range map[string]int{"bar.test": 200, "nobody.test": 404} {
		req, _ := http.NewRequest(http.MethodGet, "https://"+at(p9443)+"/", nil)
		req.Host = host
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("https %s on its own port: %v", host, err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || (want == 200 && resp.Header.Get("X-Upstream") != "v2") {
			t.Errorf("https %s on its own port = %d from %q, want %d", host, resp.StatusCode, resp.Header.Get("X-Upstream"), want)
		}
	}
}
