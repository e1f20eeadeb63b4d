package nginx_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// TestWAF: with Debian's ModSecurity and Core Rule Set, a block policy answers 403 to a
// cross-site scripting and a SQL injection attempt and lets a plain request through; a
// detect policy lets the attack through to the upstream and writes what it found, rule
// and request, to the audit log; an excluded rule no longer counts; a location that
// opts out is not inspected.
func TestWAF(t *testing.T) {
	up := startUpstream(t, "web", 0)
	srv := server("shop", "shop.test", "/", "web", "/detect", "web", "/open", "web", "/lenient", "web")
	srv.WAF = &api.WAF{Mode: api.WAFBlock, CoreRules: true}
	srv.Locations[1].WAF = &api.WAF{Mode: api.WAFDetect, CoreRules: true, TransactionID: api.WAFIDClientRequest}
	srv.Locations[2].WAF = &api.WAF{Mode: api.WAFOff}
	// 941100 and 941110 are the rules that catch <script>: without them the score of the
	// XSS below stays under the threshold, and it passes.
	srv.Locations[3].WAF = &api.WAF{Mode: api.WAFBlock, CoreRules: true, ExcludeRules: []int{941100, 941110, 941160}}
	in := startNginx(t, config([]api.Backend{backend("web", up)}, srv))
	push(t, in, 1, backend("web", up))
	addr := proxyAddr(in)
	xss := "?q=" + url.QueryEscape("<script>alert(1)</script>")
	sqli := "?id=" + url.QueryEscape("1' OR 1=1--")

	for _, c := range []struct {
		path string
		want int
	}{
		{"/x?q=shoes", 200},
		{"/x" + xss, 403},
		{"/x" + sqli, 403},
		{"/detect/x" + xss, 200},
		{"/open/x" + xss, 200},
		{"/lenient/x" + xss, 200},
		{"/lenient/x" + sqli, 403},
	} {
		a := get(t, addr, "shop.test", c.path, "X-Request-ID", "req-"+strings.ReplaceAll(c.path[1:4], "/", "-"))
		if a.status != c.want {
			t.Errorf("GET %s = %d, want %d", c.path, a.status, c.want)
		}
		if c.want == 200 && a.upstream != "web" {
			t.Errorf("GET %s answered by %q, want the upstream", c.path, a.upstream)
		}
	}

	// The detect policy's finding is in the audit log, named by the client's request id.
	log := filepath.Join(in.Options().Prefix, "logs", "waf-audit.log")
	eventually(t, "the audit log names the detected XSS", 5*time.Second, func() bool {
		b, _ := os.ReadFile(log)
		for _, entry := range strings.Split(string(b), "-A--") {
			if strings.Contains(entry, "/detect/x") && strings.Contains(entry, `[id "941100"]`) && strings.Contains(entry, "req-det") {
				return true
			}
		}
		return false
	})
}

// TestWAFAuditLogStaysBounded: ModSecurity's audit log, which it never reopens, is cut
// back past MaxLogBytes (its previous content kept in .1), and the next finding starts
// the file again rather than at its old offset.
func TestWAFAuditLogStaysBounded(t *testing.T) {
	up := startUpstream(t, "web", 0)
	srv := server("shop", "shop.test", "/", "web")
	srv.WAF = &api.WAF{Mode: api.WAFDetect, CoreRules: true}
	const maxLog = 64 << 10
	in := startNginxWith(t, config([]api.Backend{backend("web", up)}, srv), func(o *nginx.Options) {
		o.MaxLogBytes, o.LogCheckEvery = maxLog, 20*time.Millisecond
	})
	push(t, in, 1, backend("web", up))
	xss := "/x?q=" + url.QueryEscape("<script>alert(1)</script>")
	for i := 0; i < 100; i++ {
		get(t, proxyAddr(in), "shop.test", xss)
	}
	log := filepath.Join(in.Options().Prefix, "logs", "waf-audit.log")
	size := func(f string) int64 {
		fi, err := os.Stat(f)
		if err != nil {
			return -1
		}
		return fi.Size()
	}
	eventually(t, "the audit log is cut back under its cap", 5*time.Second, func() bool { return size(log) <= maxLog })
	if size(log+".1") <= 0 {
		t.Fatalf("%s.1 is missing or empty: the findings before the cut are lost", log)
	}
	// ModSecurity writes a finding after its answer, so findings of the burst may still
	// come and take the file past its cap again, and a cut may take the next finding with
	// it into .1: the finding is sent again until one starts a file of its own.
	var b []byte
	deadline := time.Now().Add(10 * time.Second)
	for !(strings.Contains(string(b), "after-the-cut") && len(b) < maxLog && b[0] != 0) {
		if time.Now().After(deadline) {
			head := b[:min(len(b), 16)]
			t.Fatalf("the next finding does not start the file again within 10s: %d bytes, starting %q, the finding in it: %v",
				len(b), head, strings.Contains(string(b), "after-the-cut"))
		}
		get(t, proxyAddr(in), "shop.test", xss, "X-Request-ID", "after-the-cut")
		time.Sleep(50 * time.Millisecond)
		b, _ = os.ReadFile(log)
	}
}
