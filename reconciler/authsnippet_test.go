package reconciler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
)

// TestAuthSnippet: Authelia's auth-snippet, as the corpus's homelab Ingresses write it,
// becomes the auth subrequest's request headers (the one already sent that way becomes
// nothing); any other directive, a variable outside the fixed list, and an auth-snippet
// without auth-url refuse the Ingress, naming why.
func TestAuthSnippet(t *testing.T) {
	a, err := parseAnnotations(map[string]string{
		nginxPrefix + "auth-url":    "http://authelia.authelia.svc.cluster.local/api/verify",
		nginxPrefix + "auth-signin": "https://auth.example.com/?rd=$scheme://$host$escaped_request_uri",
		nginxPrefix + "auth-snippet": `proxy_set_header X-Forwarded-Method $request_method;
proxy_set_header X-Forwarded-Proto $scheme;
proxy_set_header X-Forwarded-Host $http_host;
proxy_set_header X-Forwarded-Uri $request_uri;
proxy_set_header X-Forwarded-For $remote_addr;
`,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []api.Header{{Name: "X-Forwarded-Method", Value: "$request_method"}, {Name: "X-Forwarded-Host", Value: "$http_host"},
		{Name: "X-Forwarded-Uri", Value: "$request_uri"}, {Name: "X-Forwarded-For", Value: "$remote_addr"}}
	if a.auth == nil || a.auth.External == nil {
		t.Fatalf("auth %+v, want external auth", a.auth)
	}
	if diff := cmp.Diff(want, a.auth.External.RequestHeaders); diff != "" {
		t.Errorf("request headers (-want +got):\n%s", diff)
	}
	v, why := classify("auth-snippet", "proxy_set_header X-Forwarded-Proto $scheme;", false)
	if v != api.VerdictTranslated || !strings.Contains(why, "nothing: restyplane sends X-Forwarded-Proto on the auth subrequest this way already") {
		t.Errorf("classify = %s %q, want translated to nothing", v, why)
	}

	for in, msg := range map[string]string{
		"proxy_set_header X-Session $cookie_session;":     "names $cookie_session, which is not one of the variables",
		"proxy_set_header X-A ${host};":                   "braced variable",
		"lua_need_request_body on;":                       "directive lua_need_request_body is refused: it runs Lua",
		"access_by_lua_block { ngx.exit(200) }":           "directive access_by_lua_block is refused",
		"include /etc/nginx/auth.conf;":                   "directive include is refused: it reads a file",
		"proxy_pass_request_headers off;":                 "has no typed equivalent on the auth subrequest",
		"frobnicate on;":                                  "has no typed equivalent on the auth subrequest",
		"if ($request_uri ~ ^/oauth2/) { return 200; }":   "only proxy_set_header is translated",
		"proxy_set_header Host evil.example.com;":         "Host is set by the proxy on the auth subrequest itself",
		"proxy_set_header X-A a; proxy_set_header x-a b;": "set twice",
		"proxy_set_header X-A \"\";":                      "an empty value",
	} {
		_, err := parseAnnotations(map[string]string{nginxPrefix + "auth-url": "http://auth.test/verify", nginxPrefix + "auth-snippet": in})
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "auth-snippet") {
			t.Errorf("auth-snippet %q: %v, want a refusal naming auth-snippet and containing %q", in, err, msg)
		}
	}
	if _, err := parseAnnotations(map[string]string{nginxPrefix + "auth-snippet": "proxy_set_header X-A a;"}); err == nil || !strings.Contains(err.Error(), "auth-snippet needs auth-url") {
		t.Errorf("auth-snippet without auth-url: %v, want a refusal", err)
	}
}
