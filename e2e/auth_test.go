package e2e

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
