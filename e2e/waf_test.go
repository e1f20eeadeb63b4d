package e2e

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWAFThroughREST: a server's WAF policy in block mode, with the OWASP Core Rule Set
// of Debian's modsecurity-crs, answers a cross-site scripting attempt and a SQL injection
// 403 before the upstream sees them; a location in detect mode lets the same attack
// through to its upstream and writes the finding, with the client's request id, to the
// audit log; a plain request passes both. Bad policies are answered 400 naming the field.
func TestWAFThroughREST(t *testing.T) {
	in := start(t)
	in.must("POST", "/api/v1/backends", backend("web", serveLoopback(t, headerEcho("web"))))
	detect := location("/detect", "web")
	detect["waf"] = map[string]any{"mode": "detect", "coreRules": true, "transactionID": "client_request_id"}
	srv := server("shop", "shop.test", location("/", "web"), detect)
	srv["waf"] = map[string]any{"mode": "block", "coreRules": true, "paranoiaLevel": 1}
	in.must("POST", "/api/v1/servers", srv)
	in.waitSynced()

	xss := "?q=" + url.QueryEscape("<script>alert(1)</script>")
	sqli := "?id=" + url.QueryEscape("1' OR 1=1--")
	for _, c := range []struct {
		path string
		want int
	}{
		{"/x?q=shoes", 200}, {"/x" + xss, 403}, {"/x" + sqli, 403},
		{"/detect/x?q=shoes", 200}, {"/detect/x" + xss, 200}, {"/detect/x" + sqli, 200},
	} {
		resp, body := in.do("shop.test", c.path, "X-Request-ID", "e2e-waf-"+strings.TrimPrefix(strings.SplitN(c.path, "/x", 2)[0], "/"))
		if resp.StatusCode != c.want || c.want == 200 && !strings.HasPrefix(body, "web ") {
			t.Errorf("GET %s = %d %q, want %d", c.path, resp.StatusCode, body, c.want)
		}
	}
	// What detect found is in the audit log, named by the client's request id.
	log := filepath.Join(in.DataDir, "openresty", "logs", "waf-audit.log")
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(log)
		if s := string(b); strings.Contains(s, "e2e-waf-detect") && strings.Contains(s, `[id "941100"]`) && strings.Contains(s, `[id "942100"]`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the audit log %s does not name the detected XSS and SQL injection with the request id:\n%.3000s", log, b)
		}
		time.Sleep(50 * time.Millisecond)
	}

	for _, c := range []struct {
		waf   map[string]any
		field string
	}{
		{map[string]any{"mode": "on"}, "waf.mode"},
		{map[string]any{"mode": "block", "paranoiaLevel": 2}, "waf.paranoiaLevel"},
		{map[string]any{"mode": "block", "coreRules": true, "paranoiaLevel": 5}, "waf.paranoiaLevel"},
		{map[string]any{"mode": "block", "excludeRules": []int{0}}, "waf.excludeRules[0]"},
		{map[string]any{"mode": "block", "transactionID": "$host"}, "waf.transactionID"},
	} {
		bad := server("bad", "bad.test", location("/", "web"))
		bad["waf"] = c.waf
		var out struct{ Error struct{ Field string } }
		if code := in.call("POST", "/api/v1/servers", bad, &out); code != 400 || out.Error.Field != c.field {
			t.Errorf("POST a server with waf %v = %d %v, want 400 naming %s", c.waf, code, out, c.field)
		}
	}
}
