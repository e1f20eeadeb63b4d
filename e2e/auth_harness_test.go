package e2e

import (
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// htpasswdLines holds one user per hash format nginx on Debian verifies, all with the
// password "secret" (made with openssl passwd and libxcrypt's crypt(3) on Debian 12).
func htpasswdLines() string {
	sum := sha1.Sum([]byte("secret"))
	return strings.Join([]string{
		"apr:$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/",
		"sha:{SHA}" + base64.StdEncoding.EncodeToString(sum[:]),
		"bcrypt:$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
		"s256:$5$abc$qsg6EHbUzHQzF1POlD7zUwBINSELQxypPaeDcZe6vH0",
		"s512:$6$abcdefgh$ltjgWl6579NluT/Vi1nwEvcil.G5Nbc4NiXZaNGStk8PSwGfQv72N2CKPPrVACtLtip/cZ/1GM/O6IND4WQhG.",
	}, "\n") + "\n"
}

var htpasswdUsers = []string{"apr", "sha", "bcrypt", "s256", "s512"}

// echoUpstream is a real HTTP server that answers with its name, the path and the X-User
// header it received, so a test sees what the proxy passed upstream.
func echoUpstream(t testing.TB, name string) map[string]any {
	t.Helper()
	return serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s user=%q\n", name, r.URL.Path, r.Header.Get("X-User"))
	}))
}

// authService is a real external auth service: "Bearer good" passes as alice (X-User),
// "Bearer forbidden" is 403, anything else 401. It keeps the headers and the URI of the
// last request.
type authService struct {
	mu      sync.Mutex
	last    http.Header
	lastURI string
	url     string
}

func newAuthService(t testing.TB) *authService {
	t.Helper()
	return newAuthServiceOn(t, "127.0.0.1")
}

// newAuthServiceOn is newAuthService listening on ip: an Ingress's auth-url may not name
// this machine's loopback, so the Kubernetes tests use the host's end of their network
// namespace's veth, as a cluster's auth service would be another address.
func newAuthServiceOn(t testing.TB, ip string) *authService {
	t.Helper()
	a := &authService{}
	ep := serveOn(t, ip, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.last = r.Header.Clone()
		a.lastURI = r.RequestURI
		a.mu.Unlock()
		switch r.Header.Get("Authorization") {
		case "Bearer good":
			w.Header().Set("X-User", "alice")
			w.Header().Set("X-Secret-Internal", "not for upstream")
			w.WriteHeader(200)
		case "Bearer forbidden":
			w.WriteHeader(403)
		default:
			w.Header().Set("WWW-Authenticate", `Bearer realm="auth-service"`)
			w.WriteHeader(401)
		}
	}))
	a.url = fmt.Sprintf("http://%s/verify", net.JoinHostPort(ip, fmt.Sprint(ep["port"])))
	return a
}

func (a *authService) lastRequestURI() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastURI
}

func (a *authService) lastHeader(name string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last.Get(name)
}

// serveLoopback serves h on a loopback port the OS chose and returns it as an endpoint.
func serveLoopback(t testing.TB, h http.Handler) map[string]any {
	t.Helper()
	return serveOn(t, "127.0.0.1", h)
}

// serveOn is serveLoopback listening on ip: the Kubernetes tests use the host's end of
// their network namespace's veth, which an EndpointSlice may name.
func serveOn(t testing.TB, ip string, h http.Handler) map[string]any {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return map[string]any{"address": ip, "port": l.Addr().(*net.TCPAddr).Port, "weight": 1}
}

// do sends a request through the proxy and returns the response with its body read.
func (in *instance) do(host, path string, hdr ...string) (*http.Response, string) {
	in.t.Helper()
	req, _ := http.NewRequest("GET", in.Proxy+path, nil)
	req.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	noRedirect := *proxyClient
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noRedirect.Do(req)
	if err != nil {
		in.t.Fatalf("GET %s%s: %v", host, path, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp, strings.TrimSpace(b.String())
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// searchablePrefix returns an OpenResty prefix outside the data directory (which the
// store keeps 0700) whose parents nginx workers, which run as nobody when the tests run
// as root, may pass through to read the htpasswd files.
func searchablePrefix(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != "/tmp" && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "openresty")
}

// startSearchable is start with a searchablePrefix; it returns the prefix too.
func startSearchable(t *testing.T) (*instance, string) {
	t.Helper()
	prefix := searchablePrefix(t)
	return start(t, "--openresty-prefix", prefix), prefix
}
