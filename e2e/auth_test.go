package e2e

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
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
// "Bearer forbidden" is 403, anything else 401. It keeps the headers of the last request.
type authService struct {
	mu   sync.Mutex
	last http.Header
	url  string
}

func newAuthService(t testing.TB) *authService {
	t.Helper()
	a := &authService{}
	ep := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.last = r.Header.Clone()
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
	a.url = fmt.Sprintf("http://127.0.0.1:%v/verify", ep["port"])
	return a
}

func (a *authService) lastHeader(name string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last.Get(name)
}

// serveLoopback serves h on a loopback port the OS chose and returns it as an endpoint.
func serveLoopback(t testing.TB, h http.Handler) map[string]any {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return map[string]any{"address": "127.0.0.1", "port": l.Addr().(*net.TCPAddr).Port, "weight": 1}
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

// checkBasicAuth is what basic auth on host's /admin must show, however it was set.
func checkBasicAuth(t *testing.T, in *instance, host, upstream, realm string) {
	t.Helper()
	for _, u := range htpasswdUsers {
		resp, body := in.do(host, "/admin/x", "Authorization", basic(u, "secret"))
		if resp.StatusCode != 200 || !strings.HasPrefix(body, upstream+" /admin/x") {
			t.Fatalf("user %s with the right password: %d %q, want 200 from %s", u, resp.StatusCode, body, upstream)
		}
	}
	for _, auth := range []string{"", basic("apr", "wrong"), basic("nobody", "secret")} {
		resp, body := in.do(host, "/admin/x", "Authorization", auth)
		if resp.StatusCode != 401 || strings.Contains(body, upstream+" ") {
			t.Fatalf("Authorization %q: %d %q, want 401", auth, resp.StatusCode, body)
		}
		if got, want := resp.Header.Get("WWW-Authenticate"), `Basic realm="`+realm+`"`; got != want {
			t.Fatalf("WWW-Authenticate = %q, want %q", got, want)
		}
	}
	// Other locations of the server stay open.
	if resp, body := in.do(host, "/open"); resp.StatusCode != 200 {
		t.Fatalf("open location: %d %q", resp.StatusCode, body)
	}
}

// checkExternalAuth is what external auth on host's /ext and /login must show.
func checkExternalAuth(t *testing.T, in *instance, a *authService, host, upstream string) {
	t.Helper()
	// Allowed: the upstream answers and sees the auth service's X-User, not the client's.
	resp, body := in.do(host, "/ext/x", "Authorization", "Bearer good", "X-User", "mallory")
	if want := upstream + ` /ext/x user="alice"`; resp.StatusCode != 200 || body != want {
		t.Fatalf("allowed request: %d %q, want 200 %q", resp.StatusCode, body, want)
	}
	if got := a.lastHeader("X-Original-Url"); got != "http://"+host+"/ext/x" {
		t.Fatalf("auth service saw X-Original-URL %q", got)
	}
	// Denied: 401 and 403 come back to the client, the upstream never sees the request.
	for auth, want := range map[string]int{"": 401, "Bearer bad": 401, "Bearer forbidden": 403} {
		resp, body := in.do(host, "/ext/x", "Authorization", auth, "X-User", "mallory")
		if resp.StatusCode != want || strings.Contains(body, upstream+" ") {
			t.Fatalf("Authorization %q: %d %q, want %d", auth, resp.StatusCode, body, want)
		}
	}
	// With a sign-in URL a 401 is a redirect there, rd naming the original URL; a 403
	// stays a 403.
	resp, _ = in.do(host, "/login/p?x=1&y=2")
	if resp.StatusCode != 302 {
		t.Fatalf("sign-in: %d, want 302", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Scheme != "https" || loc.Host != "login.test" || loc.Path != "/start" {
		t.Fatalf("sign-in Location = %q", resp.Header.Get("Location"))
	}
	if got, want := loc.Query().Get("rd"), "http://"+host+"/login/p?x=1&y=2"; got != want {
		t.Fatalf("rd = %q, want %q", got, want)
	}
	if got := a.lastHeader("X-Auth-Request-Redirect"); got != "https://"+host+"/after" {
		t.Fatalf("X-Auth-Request-Redirect = %q, want the auth-request-redirect", got)
	}
	if resp, _ := in.do(host, "/login/p", "Authorization", "Bearer forbidden"); resp.StatusCode != 403 {
		t.Fatalf("sign-in location, forbidden: %d, want 403", resp.StatusCode)
	}
	if resp, body := in.do(host, "/login/p", "Authorization", "Bearer good"); resp.StatusCode != 200 || !strings.HasPrefix(body, upstream+" ") {
		t.Fatalf("sign-in location, allowed: %d %q", resp.StatusCode, body)
	}
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

func TestBasicAndExternalAuthThroughREST(t *testing.T) {
	in, prefix := startSearchable(t)
	a := newAuthService(t)
	in.must("POST", "/api/v1/backends", backend("web", echoUpstream(t, "web")))
	in.must("POST", "/api/v1/htpasswds", map[string]any{"name": "admins", "content": htpasswdLines()})
	admin := location("/admin", "web")
	admin["auth"] = map[string]any{"basic": map[string]any{"htpasswd": "admins", "realm": "shop admin"}}
	ext := location("/ext", "web")
	ext["auth"] = map[string]any{"external": map[string]any{"url": a.url, "responseHeaders": []string{"X-User"}}}
	login := location("/login", "web")
	login["auth"] = map[string]any{"external": map[string]any{"url": a.url, "responseHeaders": []string{"X-User"},
		"signin": "https://login.test/start", "requestRedirect": "https://shop.test/after"}}
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", admin, ext, login, location("/open", "web")))
	in.waitSynced()
	checkBasicAuth(t, in, "shop.test", "web", "shop admin")
	checkExternalAuth(t, in, a, "shop.test", "web")
	checkHtpasswdSecret(t, in, prefix, "admins")
}

// checkHtpasswdSecret shows that the API never returns the hashes, and that the file
// nginx reads is 0600 in a 0700 directory.
func checkHtpasswdSecret(t *testing.T, in *instance, prefix, name string) {
	t.Helper()
	for _, path := range []string{"/api/v1/htpasswds/" + name, "/api/v1/htpasswds", "/api/v1/config"} {
		_, raw, err := in.Call(adminToken, "GET", path, nil, nil)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		if strings.Contains(string(raw), "$apr1$") || strings.Contains(string(raw), "{SHA}") || strings.Contains(string(raw), `"content"`) {
			t.Fatalf("GET %s shows the hashes: %s", path, raw)
		}
	}
	var h struct {
		Users       []string `json:"users"`
		Fingerprint string   `json:"fingerprint"`
	}
	_, raw, _ := in.Call(adminToken, "GET", "/api/v1/htpasswds/"+name, nil, nil)
	if err := json.Unmarshal(raw, &h); err != nil || len(h.Users) != len(htpasswdUsers) || len(h.Fingerprint) != 64 {
		t.Fatalf("GET htpasswd = %s, want the users and a fingerprint", raw)
	}
	dir := filepath.Join(prefix, "htpasswd")
	files, _ := filepath.Glob(filepath.Join(dir, name+"-*"))
	if len(files) != 1 {
		t.Fatalf("htpasswd files %v, want one", files)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, files[0]: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != want {
			t.Fatalf("%s: %v %v, want mode %v", path, fi.Mode(), err, want)
		}
	}
}
