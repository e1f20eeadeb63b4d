package nginx_test

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestCatchAllAnswersEveryUnnamedHost: a server naming the catch-all hostname answers every
// Host no server names, a request without Host, and HTTPS with the default certificate;
// named hosts keep their own servers, and a host named only for plain HTTP is not the
// catch-all's over HTTPS.
func TestCatchAllAnswersEveryUnnamedHost(t *testing.T) {
	all, plain, secure := startUpstream(t, "all", 0), startUpstream(t, "plain", 0), startUpstream(t, "secure", 0)
	backends := []api.Backend{backend("all", all), backend("plain", plain), backend("secure", secure)}
	tlsSrv := server("secure", "secure.test", "/", "secure")
	tlsSrv.TLS = &api.ServerTLS{Certificate: "secure-tls"}
	cfg := config(backends, server("catchall", api.CatchAllHostname, "/", "all"),
		server("plain", "plain.test", "/", "plain"), server("wild", "*.wild.test", "/", "plain"), tlsSrv)
	cert, key, _ := selfSigned(t, "secure.test")
	cfg.Certificates = []api.Certificate{{Name: "secure-tls", Cert: cert, Key: key}}
	in := startNginx(t, cfg)
	push(t, in, 2, backends...)
	addr := proxyAddr(in)

	for _, c := range []struct{ host, want string }{
		{"anything.test", "all"}, {"localhost", "all"}, {"127.0.0.1", "all"}, {"wild.test", "all"},
		{"plain.test", "plain"}, {"a.wild.test", "plain"}, {"secure.test", "secure"},
	} {
		if got := get(t, addr, c.host, "/x"); got.status != 200 || got.upstream != c.want {
			t.Errorf("GET %s/x = %d from %q, want 200 from %q", c.host, got.status, got.upstream, c.want)
		}
	}
	if status, upstream := http10(t, addr); status != 200 || upstream != "all" {
		t.Errorf("HTTP/1.0 without Host = %d from %q, want 200 from all", status, upstream)
	}
	tlsListen := in.Options().TLSListen
	for _, c := range []struct {
		sni, host string
		status    int
		want      string
	}{
		{"anything.test", "anything.test", 200, "all"},
		{"", "127.0.0.1", 200, "all"},
		{"secure.test", "secure.test", 200, "secure"},
		// plain.test is named, for HTTP only: the catch-all does not take it over HTTPS.
		{"plain.test", "plain.test", 404, ""},
		{"a.wild.test", "a.wild.test", 404, ""},
	} {
		if status, upstream := getTLS(t, tlsListen, c.sni, c.host, "/x"); status != c.status || upstream != c.want {
			t.Errorf("HTTPS %s (SNI %q) = %d from %q, want %d from %q", c.host, c.sni, status, upstream, c.status, c.want)
		}
	}
	if got := served(t, in, "anything.test").Subject.CommonName; got != "restyplane default server" {
		t.Errorf("the catch-all presented %q, want the default certificate", got)
	}
}

// TestCatchAllWithoutOtherServers: a config of the catch-all alone listens for HTTPS too.
func TestCatchAllWithoutOtherServers(t *testing.T) {
	all := startUpstream(t, "all", 0)
	backends := []api.Backend{backend("all", all)}
	in := startNginx(t, config(backends, server("catchall", api.CatchAllHostname, "/api", "all")))
	push(t, in, 2, backends...)
	if got := get(t, proxyAddr(in), "anything.test", "/api/x"); got.status != 200 || got.upstream != "all" {
		t.Fatalf("GET anything.test/api/x = %d from %q, want 200 from all", got.status, got.upstream)
	}
	if got := get(t, proxyAddr(in), "anything.test", "/other"); got.status != 404 {
		t.Fatalf("GET anything.test/other = %d, want 404 (no location claims it)", got.status)
	}
	if status, upstream := getTLS(t, in.Options().TLSListen, "anything.test", "anything.test", "/api/x"); status != 200 || upstream != "all" {
		t.Fatalf("HTTPS anything.test/api/x = %d from %q, want 200 from all", status, upstream)
	}
}

// http10 sends "GET /x HTTP/1.0" without a Host header to addr and returns the status and
// the upstream that answered.
func http10(t *testing.T, addr string) (int, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "GET /x HTTP/1.0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("HTTP/1.0 answer: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Upstream")
}

// getTLS sends one HTTPS request for path to addr with the SNI name (none if empty) and
// Host, and returns the status and the upstream that answered.
func getTLS(t *testing.T, addr, sni, host, path string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		TLSClientConfig: &tls.Config{ServerName: sni, InsecureSkipVerify: true}}}
	req, _ := http.NewRequest(http.MethodGet, "https://"+addr+path, nil)
	req.Host = host
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("HTTPS %s: %v", host, err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Upstream")
}
