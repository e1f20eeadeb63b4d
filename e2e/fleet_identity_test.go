package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// joinSecret is the join token the control plane of TestFleetInstanceCredentials makes
// from RESTYPLANE_DATAPLANE_TOKEN.
const joinSecret = "rp_e2e_join_token_0123456789abcdef"

// TestFleetInstanceCredentials: two agents join with one join token and each gets a
// credential bound to its name, kept 0600 in its data dir. One agent's credential cannot
// report or read the feed under the other's name (with or without an agent id), and the
// join token itself does neither. Revoking one instance cuts it alone: the other still
// follows every change, the revoked one keeps serving what it held. The join token,
// deleted through the API, is not recreated by RESTYPLANE_DATAPLANE_TOKEN at the next start
// (the log says so), and the revocation outlives the restart.
func TestFleetInstanceCredentials(t *testing.T) {
	p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e identity test",
		Args: []string{"--openresty", "off"}, Env: []string{"RESTYPLANE_DATAPLANE_TOKEN=" + joinSecret}})
	cp := &instance{Process: p, t: t}
	one, two := newUpstream(t, "one", 200, 0), newUpstream(t, "two", 200, 0)
	cp.must("POST", "/api/v1/backends", backend("web", one.endpoint(1)))
	cp.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))

	a := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: cp.API, Token: joinSecret, Name: "edge-1"})
	b := rptest.StartAgent(t, rptest.AgentOptions{ControlPlane: cp.API, Token: joinSecret, Name: "edge-2"})
	a.WaitReady(30 * time.Second)
	b.WaitReady(30 * time.Second)
	credA, credB := credential(t, a.DataDir), credential(t, b.DataDir)
	if credA == joinSecret || credA == credB {
		t.Fatalf("edge-1 holds %q and edge-2 %q: want a credential of each one's own", credA, credB)
	}

	report := map[string]any{"version": "forged", "state": "running", "applied": 1}
	for _, h := range []map[string]string{nil, {"X-Restyplane-Agent-Id": strings.Repeat("ab", 16)}} {
		if code, body := send(t, cp.API, credA, "POST", "/api/v1/instances/edge-2/report", report, h); code != http.StatusForbidden {
			t.Fatalf("edge-1's credential reporting as edge-2 (headers %v) = %d %s, want 403", h, code, body)
		}
		if code, body := send(t, cp.API, credA, "GET", "/api/v1/feed?instance=edge-2", nil, h); code != http.StatusForbidden {
			t.Fatalf("edge-1's credential reading edge-2's feed (headers %v) = %d %s, want 403", h, code, body)
		}
	}
	if code, body := send(t, cp.API, joinSecret, "POST", "/api/v1/instances/edge-9/report", report, nil); code != http.StatusForbidden {
		t.Fatalf("the join token reporting = %d %s, want 403", code, body)
	}
	if code, body := send(t, cp.API, joinSecret, "GET", "/api/v1/feed?instance=edge-9", nil, nil); code != http.StatusForbidden {
		t.Fatalf("the join token reading the feed = %d %s, want 403", code, body)
	}

	cp.must("DELETE", "/api/v1/instances/edge-1/credential", nil)
	if code, body := send(t, cp.API, credA, "POST", "/api/v1/instances/edge-1/report", report, nil); code != http.StatusUnauthorized {
		t.Fatalf("a revoked credential reporting = %d %s, want 401", code, body)
	}
	cp.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{two.endpoint(1)}})
	waitFor(t, "the change through edge-2", 20*time.Second, func() bool {
		code, body := proxyGet(b.Proxy, "shop.test", "/")
		return code == 200 && body == "two /"
	})
	time.Sleep(time.Second)
	if code, body := proxyGet(a.Proxy, "shop.test", "/"); code != 200 || body != "one /" {
		t.Fatalf("revoked edge-1 = %d %q, want it to keep serving its last state (\"one /\")", code, body)
	}
	waitFor(t, "edge-1 to log its revocation", 20*time.Second, func() bool { return strings.Contains(a.Logs.String(), "revoked") })
	var audit struct {
		Items []struct{ Actor, Action, Target string } `json:"items"`
	}
	cp.call("GET", "/api/v1/audit?action=instance_revoke", nil, &audit)
	if len(audit.Items) != 1 || audit.Items[0].Target != "instance/edge-1" || audit.Items[0].Actor != "admin" {
		t.Fatalf("audit of the revocation = %+v, want one instance_revoke of instance/edge-1 by admin", audit.Items)
	}

	var toks struct {
		Items []struct {
			ID   int64
			Name string
		} `json:"items"`
	}
	cp.call("GET", "/api/v1/tokens", nil, &toks)
	deleted := false
	for _, tok := range toks.Items {
		if tok.Name == "dataplane" {
			cp.must("DELETE", "/api/v1/tokens/"+strconv.FormatInt(tok.ID, 10), nil)
			deleted = true
		}
	}
	if !deleted {
		t.Fatalf("no token named dataplane among %+v", toks.Items)
	}
	p.Stop()
	cp = &instance{Process: p.Restart(t), t: t}
	if code, body := send(t, cp.API, joinSecret, "POST", "/api/v1/instances/edge-3/join", nil, nil); code != http.StatusUnauthorized {
		t.Fatalf("joining with the deleted join token after a restart = %d %s, want 401", code, body)
	}
	if !strings.Contains(cp.Logs.String(), "not recreated") {
		t.Fatalf("the restarted control plane does not say that RESTYPLANE_DATAPLANE_TOKEN was not recreated; logs:\n%s", cp.Logs)
	}
	if code, body := send(t, cp.API, credA, "POST", "/api/v1/instances/edge-1/report", report, nil); code != http.StatusUnauthorized {
		t.Fatalf("the revoked credential after a restart = %d %s, want 401", code, body)
	}
	cp.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{one.endpoint(1)}})
	waitFor(t, "a change through edge-2 after the restart", 30*time.Second, func() bool {
		code, body := proxyGet(b.Proxy, "shop.test", "/")
		return code == 200 && body == "one /"
	})
}

// credential reads the credential an agent keeps in its data dir, and checks that only its
// owner may read it.
func credential(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "credential")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the agent keeps no credential: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s has mode %v, want 0600", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// send is one API request with token and extra headers; it returns the status and body.
func send(t *testing.T, base, token, method, path string, body any, header map[string]string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	// A feed that is let through streams on: its first line is enough.
	b, _ := bufio.NewReader(io.LimitReader(resp.Body, 64<<10)).ReadString('\n')
	return resp.StatusCode, b
}
