package api

import (
	"strings"
	"testing"
)

// TestAuthURLVariables: an external auth's URL and sign-in URL name variables from the
// fixed list only, in the path and query; a sign-in URL's host may be the request's host,
// an auth service's may not; anything else after a '$' is refused, saying what may be.
func TestAuthURLVariables(t *testing.T) {
	good := []struct{ url, signin string }{
		{url: "http://auth.svc.cluster.local/verify?rd=$escaped_request_uri&h=$host"},
		{url: "http://demo-auth-service.default.svc.cluster.local?code=200"},
		{url: "https://auth.example.com/oauth2/auth?uri=$request_uri&scheme=$scheme"},
		{signin: "https://$host/oauth2/start?rd=$escaped_request_uri"},
		{signin: "http://$host/oauth2/start?rd=$escaped_request_uri"},
		{signin: "http://auth-proxy.example.com/oauth2/start?rd=$scheme://$http_host$request_uri"},
		{signin: "http://auth.127.0.0.1.nip.io/oauth2/start?rd=$pass_access_scheme://$http_host$escaped_request_uri"},
		{signin: "https://auth.example.com/?rd=$scheme://$host$escaped_request_uri"},
		{signin: "https://$best_http_host/start"},
	}
	for _, c := range good {
		if c.url != "" {
			if err := ValidExternalAuthURL("url", c.url); err != nil {
				t.Errorf("auth URL %q: %v", c.url, err)
			}
		}
		if c.signin != "" {
			if err := ValidSigninURL("signin", c.signin); err != nil {
				t.Errorf("sign-in URL %q: %v", c.signin, err)
			}
		}
	}
	bad := []struct{ url, signin, why string }{
		{url: "http://$host/oauth2/auth", why: "host may not be a variable"},
		{url: "http://auth.$host/verify", why: "host may not be a variable"},
		{url: "http://auth/verify?x=$remote_user", why: "$remote_user is not a variable"},
		{url: "http://auth/verify?x=${host}", why: "$ is not a variable"},
		{url: "http://auth/verify?x=$hostname", why: "$hostname is not"},
		{url: "http://auth/verify?x=$host;", why: "URI"},
		{url: "http://auth/verify?x=$", why: "$ is not"},
		{url: "http://auth/ver ify", why: "URL must be"},
		{signin: "https://$remote_addr/start", why: "$remote_addr is not"},
		{signin: "https://$scheme/start", why: "host may be a host name or one of"},
		{signin: "https://x$host/start", why: "host may be a host name or one of"},
		{signin: "$scheme://login.example.com/start", why: "URL must be"},
		{signin: "https://login.example.com/start?rd=$request_uri\"", why: "query"},
		{signin: "https://login.example.com/start?rd=$lua_code", why: "$lua_code is not"},
	}
	for _, c := range bad {
		var err error
		if c.url != "" {
			err = (&ExternalAuth{URL: c.url}).validate()
		} else {
			err = (&ExternalAuth{URL: "http://auth/verify", Signin: c.signin}).validate()
		}
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%q%q: %v, want an error saying %q", c.url, c.signin, err, c.why)
		}
	}
}
