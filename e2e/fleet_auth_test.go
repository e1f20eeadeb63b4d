package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestFleetCarriesHtpasswd: an htpasswd object reaches an agent's data plane through the
// feed like a certificate does, and the agent's nginx asks for its users.
func TestFleetCarriesHtpasswd(t *testing.T) {
	const secret = "rp_e2e_dataplane_auth_0123456789"
	t.Setenv("RESTYPLANE_DATAPLANE_TOKEN", secret)
	p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e fleet auth", Args: []string{"--openresty", "off"}})
	cp := &instance{Process: p, t: t}
	cp.must("POST", "/api/v1/backends", backend("web", echoUpstream(t, "web")))
	cp.must("POST", "/api/v1/htpasswds", map[string]any{"name": "admins", "content": htpasswdLines()})
	admin := location("/", "web")
	admin["auth"] = map[string]any{"basic": map[string]any{"htpasswd": "admins", "realm": "edge"}}
	cp.must("POST", "/api/v1/servers", server("shop", "shop.test", admin))

	prefix := searchablePrefix(t)
	ag := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: p.API, Token: secret, Name: "edge-auth",
		Args: []string{"--openresty-prefix", prefix}})
	ag.WaitReady(30 * time.Second)
	get := func(auth string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", ag.Proxy+"/x", nil)
		req.Host = "shop.test"
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := proxyClient.Do(req)
		if err != nil {
			t.Fatalf("GET through the agent: %v", err)
		}
		defer resp.Body.Close()
		b := make([]byte, 256)
		n, _ := resp.Body.Read(b)
		return resp, strings.TrimSpace(string(b[:n]))
	}
	if resp, body := get(basic("s512", "secret")); resp.StatusCode != 200 || !strings.HasPrefix(body, "web /x") {
		t.Fatalf("agent, right password: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(basic("s512", "wrong")); resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Basic realm="edge"` {
		t.Fatalf("agent, wrong password: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	files, _ := filepath.Glob(filepath.Join(prefix, "htpasswd", "admins-*"))
	if len(files) != 1 {
		t.Fatalf("agent's htpasswd files: %v", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("agent's htpasswd file: %v %v, want mode 0600", fi.Mode(), err)
	}
}
