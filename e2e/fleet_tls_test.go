package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestFleetOverTLS: serve with --tls-cert/--tls-key answers the API and the feed over
// HTTPS only, RESTYPLANE_DATAPLANE_TOKEN makes the dataplane token at start, and an agent
// that trusts the certificate through --ca-file follows the feed and serves the config.
func TestFleetOverTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, "localhost", 1)
	certFile, keyFile := filepath.Join(dir, "cp.crt"), filepath.Join(dir, "cp.key")
	if err := os.WriteFile(certFile, []byte(cert), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(cert))
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	const secret = "rp_e2e_dataplane_from_env_0123456789"
	t.Setenv("RESTYPLANE_DATAPLANE_TOKEN", secret)
	p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e tls", Client: client, HTTPS: true,
		Args: []string{"--openresty", "off", "--tls-cert", certFile, "--tls-key", keyFile}})
	cp := &instance{Process: p, t: t}
	up := newUpstream(t, "a", 200, 0)
	cp.must("POST", "/api/v1/backends", backend("web", up.endpoint(1)))
	cp.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))

	ag := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: p.API, Token: secret, Name: "edge-tls",
		Args: []string{"--ca-file", certFile}})
	ag.WaitReady(30 * time.Second)
	if code, body := proxyGet(ag.Proxy, "shop.test", "/t"); code != 200 || body != "a /t" {
		t.Fatalf("agent over TLS = %d %q", code, body)
	}
	// The dataplane token from the environment reads the feed and nothing else.
	if code, _, _ := p.Call(secret, "GET", "/api/v1/backends", nil, nil); code != http.StatusForbidden {
		t.Fatalf("dataplane token on /backends = %d, want 403", code)
	}
}
