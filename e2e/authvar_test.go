package e2e

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExternalAuthVariables: an external auth's URL and sign-in URL name ingress-nginx's
// auth variables, which the proxy fills from the request: the auth service gets the
// original URI escaped, the host and the scheme in its query, and a 401 redirects to
// oauth2-proxy's https://$host/oauth2/start?rd=$escaped_request_uri on the client's own
// host. A variable outside the list, or an auth service whose host is a variable, is 400.
func TestExternalAuthVariables(t *testing.T) {
	in := start(t)
	a := newAuthService(t)
	in.must("POST", "/api/v1/backends", backend("web", echoUpstream(t, "web")))
	vars := location("/vars", "web")
	vars["auth"] = map[string]any{"external": map[string]any{
		"url":    a.url + "?rd=$escaped_request_uri&h=$host&s=$pass_access_scheme&hh=$best_http_host&u=$request_uri",
		"signin": "https://$host/oauth2/start?rd=$escaped_request_uri", "responseHeaders": []string{"X-User"}}}
	in.must("POST", "/api/v1/servers", server("vars", "vars.test", vars))
	in.waitSynced()

	resp, body := in.do("vars.test", "/vars/p?x=1&y=a%20b", "Authorization", "Bearer good")
	if want := `web /vars/p user="alice"`; resp.StatusCode != 200 || body != want {
		t.Fatalf("allowed request: %d %q, want 200 %q", resp.StatusCode, body, want)
	}
	raw := a.lastRequestURI()
	u, err := url.ParseRequestURI(raw)
	if err != nil {
		t.Fatalf("the auth service got %q: %v", raw, err)
	}
	got := map[string]string{}
	for k := range u.Query() {
		got[k] = u.Query().Get(k)
	}
	want := map[string]string{"rd": "/vars/p?x=1&y=a%20b", "h": "vars.test", "s": "http", "hh": "vars.test"}
	// $request_uri goes into the query as it is, so its own '&' splits it there: what
	// $escaped_request_uri is for.
	want["u"], want["y"] = "/vars/p?x=1", "a b"
	if diff := cmp.Diff(want, got); diff != "" || u.Path != "/verify" {
		t.Fatalf("the auth service got %q (-want +got):\n%s", raw, diff)
	}

	resp, _ = in.do("vars.test", "/vars/p?x=1&y=2")
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != 302 || err != nil || loc.Scheme != "https" || loc.Host != "vars.test" || loc.Path != "/oauth2/start" {
		t.Fatalf("sign-in: %d Location %q, want 302 to https://vars.test/oauth2/start", resp.StatusCode, resp.Header.Get("Location"))
	}
	if rd := loc.Query()["rd"]; !cmp.Equal(rd, []string{"/vars/p?x=1&y=2"}) {
		t.Fatalf("sign-in rd = %q (Location %q), want the one escaped original URI", rd, resp.Header.Get("Location"))
	}

	for _, c := range []struct{ url, signin, why string }{
		{url: "http://$host/oauth2/auth", why: "host may not be a variable"},
		{url: a.url + "?u=$remote_user", why: "$remote_user is not a variable"},
		{url: a.url, signin: "https://$host/start?rd=$arg_next", why: "$arg_next is not a variable"},
	} {
		bad := location("/vars", "web")
		ext := map[string]any{"url": c.url}
		if c.signin != "" {
			ext["signin"] = c.signin
		}
		bad["auth"] = map[string]any{"external": ext}
		var out struct{ Error map[string]any }
		code := in.call("PUT", "/api/v1/servers/vars", server("vars", "vars.test", bad), &out)
		if msg := fmt.Sprint(out.Error["message"]); code != 400 || !strings.Contains(msg, c.why) {
			t.Fatalf("%q %q: %d %v, want 400 saying %q", c.url, c.signin, code, out, c.why)
		}
	}
}
