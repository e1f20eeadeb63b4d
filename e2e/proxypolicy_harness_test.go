package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// policyAnswer is what the upstreams of the body, retry and error page tests (policies)
// answer, on loopback and in the network namespace alike: an upstream whose
// name starts with "fail" is always 503; a request with X-Code is an error backend's and
// is answered with that code and the headers the proxy passed; a path ending in /missing
// is 404; a request with a body is answered with its length. It reports whether it
// answered; other requests are the caller's.
func policyAnswer(name string, w http.ResponseWriter, r *http.Request) bool {
	w.Header().Set("X-Upstream", name)
	switch {
	case strings.HasPrefix(name, "fail"):
		w.WriteHeader(503)
		fmt.Fprintf(w, "%s unavailable\n", name)
	case r.Header.Get("X-Code") != "":
		code, err := strconv.Atoi(r.Header.Get("X-Code"))
		if err != nil || code < 100 || code > 599 {
			code = 500
		}
		w.WriteHeader(code)
		fmt.Fprintf(w, "%s code=%s uri=%s format=%s namespace=%s ingress=%s service=%s port=%s rid=%t\n", name,
			r.Header.Get("X-Code"), r.Header.Get("X-Original-URI"), r.Header.Get("X-Format"), r.Header.Get("X-Namespace"),
			r.Header.Get("X-Ingress-Name"), r.Header.Get("X-Service-Name"), r.Header.Get("X-Service-Port"),
			r.Header.Get("X-Request-ID") != "")
	case strings.HasSuffix(r.URL.Path, "/missing"):
		w.WriteHeader(404)
		fmt.Fprintf(w, "%s missing\n", name)
	case r.Method == "POST":
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%s %s len=%d\n", name, r.URL.Path, n)
	default:
		return false
	}
	return true
}

// proxyPolicyUpstream serves policyAnswer (and its name and path otherwise) on loopback and
// counts its requests.
func proxyPolicyUpstream(t testing.TB, name string) (map[string]any, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	ep := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if !policyAnswer(name, w, r) {
			fmt.Fprintf(w, "%s %s\n", name, r.URL.Path)
		}
	}))
	return ep, &hits
}

// post sends a body of n bytes through the proxy.
func (in *instance) post(host, path string, n int) (int, string) {
	in.t.Helper()
	req, _ := http.NewRequest("POST", in.Proxy+path, strings.NewReader(strings.Repeat("x", n)))
	req.Host = host
	resp, err := proxyClient.Do(req)
	if err != nil {
		in.t.Fatalf("POST %s%s: %v", host, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// checkBodySize: host's /upload takes bodies up to 1k; a larger one is 413 and never
// reaches the upstream.
func checkBodySize(t *testing.T, in *instance, host, upstream string) {
	t.Helper()
	if code, body := in.post(host, "/upload/x", 1000); code != 200 || body != upstream+" /upload/x len=1000" {
		t.Fatalf("body under the limit: %d %q, want 200 from %s with len=1000", code, body, upstream)
	}
	if code, body := in.post(host, "/upload/x", 4000); code != 413 || strings.Contains(body, upstream+" ") {
		t.Fatalf("body over the limit: %d %q, want 413", code, body)
	}
}

// checkRetry: host's /retry and /noretry route to a backend of a failing (503) and a
// healthy endpoint. /retry moves a 503 on to the other endpoint, so every request is
// answered by the healthy one, while the failing one did get some of them first;
// /noretry (tries 1) returns some 503s. failHits counts the failing endpoint's requests,
// where the test can count them.
func checkRetry(t *testing.T, in *instance, host, healthy string, failHits func() int64) {
	t.Helper()
	var before int64
	if failHits != nil {
		before = failHits()
	}
	for i := 0; i < 12; i++ {
		code, body := in.get(host, "/retry/x")
		if code != 200 || !strings.HasPrefix(body, healthy+" ") {
			t.Fatalf("retry request %d: %d %q, want 200 from %s", i, code, body, healthy)
		}
	}
	if failHits != nil && failHits() == before {
		t.Fatalf("the failing endpoint got none of 12 requests: the retry was never needed")
	}
	failed := 0
	for i := 0; i < 12; i++ {
		if code, _ := in.get(host, "/noretry/x"); code == 503 {
			failed++
		} else if code != 200 {
			t.Fatalf("tries=1 request %d: %d, want 200 or 503", i, code)
		}
	}
	if failed == 0 {
		t.Fatalf("with tries=1 no request of 12 got the failing endpoint's 503")
	}
}

// checkErrorPage: host's /err routes to upstream; its 404 is answered by the error
// backend errPages with X-Code and the other headers, and other answers pass.
func checkErrorPage(t *testing.T, in *instance, host, upstream, errPages, origin string) {
	t.Helper()
	resp, body := in.do(host, "/err/missing", "Accept", "text/html")
	want := errPages + " code=404 uri=/err/missing format=text/html " + origin + " rid=true"
	if resp.StatusCode != 404 || body != want {
		t.Fatalf("intercepted 404: %d %q, want 404 %q", resp.StatusCode, body, want)
	}
	if code, body := in.get(host, "/err/found"); code != 200 || !strings.HasPrefix(body, upstream+" /err/found") {
		t.Fatalf("not intercepted: %d %q, want 200 from %s", code, body, upstream)
	}
}

// checkRegex: host's /re/<digits> is a regex location.
func checkRegex(t *testing.T, in *instance, host, upstream string) {
	t.Helper()
	in.wantFrom(host, "/re/123", upstream)
	if code, body := in.get(host, "/re/abc"); code != 404 {
		t.Fatalf("/re/abc: %d %q, want 404 (the regex takes digits only)", code, body)
	}
}
