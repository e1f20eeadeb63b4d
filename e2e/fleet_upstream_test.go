package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestFleetCarriesCACertificates: a CA bundle reaches an agent's data plane through the
// feed, is written to <prefix>/ca/<sha256>.pem, and the agent's nginx verifies an HTTPS
// upstream against it (policies).
func TestFleetCarriesCACertificates(t *testing.T) {
	const secret = "rp_e2e_dataplane_upstream_0123456789"
	t.Setenv("RESTYPLANE_DATAPLANE_TOKEN", secret)
	p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e fleet upstream", Args: []string{"--openresty", "off"}})
	cp := &instance{Process: p, t: t}
	ca := newTestCA(t, "fleet ca")
	cp.must("POST", "/api/v1/caCertificates", map[string]any{"name": "fleet-ca", "cert": ca.PEM})
	cp.must("POST", "/api/v1/backends", withProtocol(backend("secure", tlsUpstream(t, "secure", ca, "api.internal", nil)), "https",
		upstreamTLS("fleet-ca", "api.internal")))
	cp.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "secure")))

	prefix := t.TempDir()
	ag := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: p.API, Token: secret, Name: "edge-upstream",
		Args: []string{"--openresty-prefix", filepath.Join(prefix, "openresty")}})
	ag.WaitReady(30 * time.Second)
	req, _ := http.NewRequest("GET", ag.Proxy+"/x", nil)
	req.Host = "shop.test"
	resp, err := proxyClient.Do(req)
	if err != nil {
		t.Fatalf("GET through the agent: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if body := strings.TrimSpace(string(b)); resp.StatusCode != 200 || !strings.HasPrefix(body, "secure /x host=shop.test") {
		t.Fatalf("agent, verified HTTPS upstream: %d %q", resp.StatusCode, body)
	}
	files, _ := filepath.Glob(filepath.Join(prefix, "openresty", "ca", "*.pem"))
	if len(files) != 1 {
		t.Fatalf("agent's CA files: %v", files)
	}
	if got, err := os.ReadFile(files[0]); err != nil || string(got) != ca.PEM {
		t.Fatalf("agent's CA file: %v, want the bundle", err)
	}
}
