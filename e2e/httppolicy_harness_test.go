package e2e

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// CORS, redirects and WebSocket (policies): what the proxy must show however
// the policy was set, through REST or an Ingress annotation. Every upstream of these
// checks sets X-Upstream, so a test sees whether the upstream answered.

// corsOrigins is the allow list the tests set: one exact origin and one wildcard.
const corsOrigins = "https://app.test, https://*.apps.test"

// checkCORS checks host's /api, whose CORS policy allows corsOrigins, exposes
// X-Request-Id and keeps ingress-nginx's other defaults.
func checkCORS(t *testing.T, in *instance, host string) {
	t.Helper()
	for _, origin := range []string{"https://app.test", "https://eu.apps.test"} {
		resp, body := in.send("OPTIONS", host, "/api/x", "Origin", origin, "Access-Control-Request-Method", "PUT")
		if resp.StatusCode != 204 || resp.Header.Get("X-Upstream") != "" || body != "" {
			t.Fatalf("preflight from %s: %d %v %q, want 204 from the proxy", origin, resp.StatusCode, resp.Header, body)
		}
		for name, want := range map[string]string{
			"Access-Control-Allow-Origin":      origin,
			"Vary":                             "Origin",
			"Access-Control-Allow-Methods":     "GET, PUT, POST, DELETE, PATCH, OPTIONS",
			"Access-Control-Allow-Headers":     "DNT, Keep-Alive, User-Agent, X-Requested-With, If-Modified-Since, Cache-Control, Content-Type, Range, Authorization",
			"Access-Control-Allow-Credentials": "true",
			"Access-Control-Max-Age":           "1728000",
		} {
			if got := resp.Header.Get(name); got != want {
				t.Fatalf("preflight from %s: %s = %q, want %q", origin, name, got, want)
			}
		}
	}
	// A disallowed origin (one label too many for the wildcard, another scheme, another
	// site) gets no CORS headers: its preflight goes to the upstream like any request,
	// and the upstream's own CORS headers are hidden.
	for _, origin := range []string{"https://evil.test", "http://app.test", "https://a.b.apps.test", "https://apps.test"} {
		for _, method := range []string{"OPTIONS", "GET"} {
			resp, _ := in.send(method, host, "/api/x", "Origin", origin, "Access-Control-Request-Method", "PUT")
			if resp.StatusCode != 200 || resp.Header.Get("X-Upstream") == "" {
				t.Fatalf("%s from %s: %d %v, want the upstream's 200", method, origin, resp.StatusCode, resp.Header)
			}
			for name := range resp.Header {
				if strings.HasPrefix(name, "Access-Control-") {
					t.Fatalf("%s from %s: %s = %q, want no CORS header", method, origin, name, resp.Header.Get(name))
				}
			}
		}
	}
	// The actual request is answered by the upstream, with the CORS headers.
	resp, body := in.send("GET", host, "/api/x", "Origin", "https://app.test")
	if resp.StatusCode != 200 || resp.Header.Get("X-Upstream") == "" || !strings.Contains(body, "/api/x") {
		t.Fatalf("actual request: %d %v %q, want the upstream's answer", resp.StatusCode, resp.Header, body)
	}
	for name, want := range map[string]string{"Access-Control-Allow-Origin": "https://app.test",
		"Access-Control-Allow-Credentials": "true", "Access-Control-Expose-Headers": "X-Request-Id", "Vary": "Origin"} {
		if got := resp.Header.Get(name); got != want {
			t.Fatalf("actual request: %s = %q, want %q", name, got, want)
		}
	}
	if got := resp.Header.Get("Access-Control-Max-Age"); got != "" {
		t.Fatalf("actual request: Access-Control-Max-Age = %q, only a preflight has it", got)
	}
}

// checkRedirects checks host's redirects: /old (301 to https://new.test/x), /tmp (307 to
// the path /new?a=1 on the host), app root /app, and the www partner's 308.
func checkRedirects(t *testing.T, in *instance, host string) {
	t.Helper()
	for _, c := range []struct {
		host, path string
		code       int
		location   string
	}{
		{host, "/old/p?q=1", 301, "https://new.test/x"},
		{host, "/tmp", 307, "http://" + host + "/new?a=1"},
		{host, "/", 302, "http://" + host + "/app"},
		{"www." + host, "/p/q?r=1", 308, "http://" + host + "/p/q?r=1"},
	} {
		resp, body := in.do(c.host, c.path)
		if resp.StatusCode != c.code || resp.Header.Get("Location") != c.location || resp.Header.Get("X-Upstream") != "" {
			t.Fatalf("GET %s%s: %d Location %q (%q), want %d to %s", c.host, c.path, resp.StatusCode, resp.Header.Get("Location"), body, c.code, c.location)
		}
	}
	// The app root redirects "/" only.
	if resp, body := in.do(host, "/app"); resp.StatusCode != 200 || resp.Header.Get("X-Upstream") == "" {
		t.Fatalf("GET %s/app: %d %q, want the upstream", host, resp.StatusCode, body)
	}
}

// checkForceSSL checks that host redirects plain HTTP to HTTPS with a 308 and answers
// HTTPS from the upstream.
func checkForceSSL(t *testing.T, in *instance, host string) {
	t.Helper()
	_, port, _ := net.SplitHostPort(in.TLS)
	resp, _ := in.do(host, "/s?x=1")
	if want := "https://" + host + ":" + port + "/s?x=1"; resp.StatusCode != 308 || resp.Header.Get("Location") != want {
		t.Fatalf("HTTP: %d Location %q, want 308 to %s", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{ServerName: host, InsecureSkipVerify: true}}}
	req, _ := http.NewRequest("GET", "https://"+in.TLS+"/s?x=1", nil)
	req.Host = host
	r, err := c.Do(req)
	if err != nil {
		t.Fatalf("HTTPS: %v", err)
	}
	defer r.Body.Close()
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 || r.Header.Get("X-Upstream") == "" || !strings.Contains(string(body), "/s") {
		t.Fatalf("HTTPS: %d %q, want the upstream's answer", r.StatusCode, body)
	}
}

// checkWebSocket opens a WebSocket through the proxy to host's path (an echo server behind
// it) and exchanges messages both ways.
func checkWebSocket(t *testing.T, in *instance, host, path string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(in.Proxy, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	cfg, err := websocket.NewConfig("ws://"+host+path, "http://"+host)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := websocket.NewClient(cfg, conn)
	if err != nil {
		t.Fatalf("WebSocket handshake through the proxy for %s%s: %v", host, path, err)
	}
	defer ws.Close()
	for _, msg := range []string{"hello", "second message", strings.Repeat("x", 70000)} {
		if err := websocket.Message.Send(ws, msg); err != nil {
			t.Fatalf("send: %v", err)
		}
		var got string
		if err := websocket.Message.Receive(ws, &got); err != nil {
			t.Fatalf("receive: %v", err)
		}
		if got != "echo: "+msg {
			t.Fatalf("received %.40q, want the echo of %.40q", got, msg)
		}
	}
}

// wsEcho answers each WebSocket message with "echo: " and the message.
var wsEcho = websocket.Handler(func(ws *websocket.Conn) {
	for {
		var msg string
		if err := websocket.Message.Receive(ws, &msg); err != nil {
			return
		}
		if err := websocket.Message.Send(ws, "echo: "+msg); err != nil {
			return
		}
	}
})

// policyUpstream answers with X-Upstream, its own CORS header (which the proxy must hide)
// and the path; it serves a WebSocket echo at /ws.
func policyUpstream(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ws" {
			wsEcho.ServeHTTP(w, r)
			return
		}
		w.Header().Set("X-Upstream", name)
		w.Header().Set("Access-Control-Allow-Origin", "https://upstream-chose-this.test")
		io.WriteString(w, name+" "+r.URL.Path+"\n")
	})
}

// send is do with a method.
func (in *instance) send(method, host, path string, hdr ...string) (*http.Response, string) {
	in.t.Helper()
	req, _ := http.NewRequest(method, in.Proxy+path, nil)
	req.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := proxyClient.Do(req)
	if err != nil {
		in.t.Fatalf("%s %s%s: %v", method, host, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, strings.TrimSpace(string(b))
}
