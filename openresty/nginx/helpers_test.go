package nginx_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/rptest"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// freePort returns a loopback port that was free a moment ago, outside the ephemeral range.
func freePort(t testing.TB) int { return rptest.FreePort(t) }

// startNginx starts a real nginx with the Lua module for cfg, in a fresh prefix, as
// generation "1". It fails, never skips, when nginx or the Lua module is missing.
func startNginx(t *testing.T, cfg api.Config) *nginx.Instance {
	t.Helper()
	return startNginxWith(t, cfg, nil)
}

// startNginxWith is startNginx with options that set changes before the start.
func startNginxWith(t *testing.T, cfg api.Config, set func(*nginx.Options)) *nginx.Instance {
	t.Helper()
	return rptest.StartNginx(t, cfg, set)
}

// proxyAddr returns the instance's HTTP listen address.
func proxyAddr(in *nginx.Instance) string { return in.Options().ProxyListen }

// upstream is a real HTTP server on 127.0.0.1 that answers with its own name.
type upstream struct {
	name string
	port int
	srv  *http.Server
}

// startUpstream starts an upstream; delay slows every answer, and a path ending in /fail
// answers 500.
func startUpstream(t *testing.T, name string, delay time.Duration) *upstream {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{name: name, port: l.Addr().(*net.TCPAddr).Port}
	u.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		w.Header().Set("X-Upstream", name)
		w.Header().Set("X-Path", r.URL.RequestURI())
		w.Header().Set("X-Team", r.Header.Get("X-Team"))
		if filepath.Base(r.URL.Path) == "fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		io.WriteString(w, name)
	})}
	go u.srv.Serve(l)
	t.Cleanup(func() { u.srv.Close() })
	return u
}

func (u *upstream) endpoint() api.Endpoint {
	return api.Endpoint{Address: "127.0.0.1", Port: u.port, Weight: 1}
}

// backend returns a round-robin backend over the upstreams.
func backend(name string, ups ...*upstream) api.Backend {
	b := api.Backend{Name: name, LoadBalance: api.RoundRobin}
	for _, u := range ups {
		b.Endpoints = append(b.Endpoints, u.endpoint())
	}
	return b
}

// server returns a server for host whose prefix locations route path→backend pairs.
func server(name, host string, routes ...string) api.Server {
	s := api.Server{Name: name, Hostnames: []string{host}}
	for i := 0; i+1 < len(routes); i += 2 {
		s.Locations = append(s.Locations, api.Location{Path: routes[i], Match: api.MatchPrefix, Backend: routes[i+1]})
	}
	return s
}

// config returns a config with two workers, so that every test sees more than one.
func config(backends []api.Backend, servers ...api.Server) api.Config {
	s := api.DefaultSettings()
	s.WorkerProcesses = 2
	return api.Config{Settings: s, Backends: backends, Servers: servers}
}

// push sends backends to the instance stamped with version.
func push(t *testing.T, in *nginx.Instance, version int64, backends ...api.Backend) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := in.Admin().PushBackends(ctx, version, backends, nil, false); err != nil {
		t.Fatalf("push backends: %v", err)
	}
}

// answer is what the proxy returned for one request.
type answer struct {
	status   int
	upstream string
	header   http.Header
}

// get sends one request through the proxy with the Host header host.
func get(t *testing.T, addr, host, path string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// A new connection per request lets either worker take it.
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s%s: %v", host, path, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return answer{status: resp.StatusCode, upstream: resp.Header.Get("X-Upstream"), header: resp.Header}
}

// selfSigned returns a PEM certificate for host and its key.
func selfSigned(t *testing.T, host string) (certPEM, keyPEM string, serial *big.Int) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err = rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})), serial
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

func splitHostPort(addr string) (string, string, error) { return net.SplitHostPort(addr) }
