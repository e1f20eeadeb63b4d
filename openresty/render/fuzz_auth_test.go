package render_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// authInput is every value of a location's auth policy that reaches nginx.conf
// or its Lua and comes from a user. FuzzRenderAuth extends FuzzRender's proof to them.
type authInput struct {
	realm, htpasswd, url, method, signin, header, redirect string
	// reqName and reqValue are a header set on the subrequest (an auth-snippet's).
	reqName, reqValue string
}

// benign maps the input to placeholders that make the same decisions in the renderer.
func (in authInput) benign() authInput {
	b := authInput{htpasswd: "h", url: "http://a", header: "X-U", reqName: "X-R", reqValue: "v"}
	// A header of the proxy's own that the subrequest's replaces: the same one.
	for _, d := range api.AuthRequestHeaders {
		if strings.EqualFold(in.reqName, d.Name) {
			b.reqName = d.Name
		}
	}
	// The variables the subrequest's location defines: the same ones, in the same order.
	if names, err := api.AuthURLVariables("url", in.url); err == nil {
		seen, q := map[string]bool{}, ""
		for _, n := range names {
			if n == "best_http_host" || n == "pass_access_scheme" || n == "escaped_request_uri" {
				if !seen[n] {
					seen[n] = true
					q += "&v=$" + n
				}
			}
		}
		if q != "" {
			b.url = "http://a/?" + q[1:]
		}
	}
	if in.realm != "" {
		b.realm = "r"
	}
	if in.method != "" {
		b.method = "GET"
	}
	if in.signin != "" {
		b.signin = "https://s"
	}
	if in.redirect != "" {
		b.redirect = "r"
	}
	return b
}

func (in authInput) config() api.Config {
	// Basic auth and a sign-in redirect do not go together: two locations hold them.
	basic := &api.LocationAuth{Basic: &api.BasicAuth{Htpasswd: in.htpasswd, Realm: in.realm},
		External: &api.ExternalAuth{URL: in.url, Method: in.method, ResponseHeaders: []string{in.header}, RequestRedirect: in.redirect}}
	external := &api.LocationAuth{External: &api.ExternalAuth{URL: in.url, Method: in.method, Signin: in.signin,
		ResponseHeaders: []string{in.header}, RequestRedirect: in.redirect,
		RequestHeaders: []api.Header{{Name: in.reqName, Value: in.reqValue}}}}
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"}, Locations: []api.Location{
		{Path: "/a", Match: api.MatchPrefix, Backend: "b", Auth: basic},
		{Path: "/a/b", Match: api.MatchPrefix, Backend: "b"},
		{Path: "/c", Match: api.MatchExact, Backend: "b", Auth: external},
	}}
	return api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv}, Backends: []api.Backend{{Name: "b"}},
		Htpasswds: []api.Htpasswd{{Name: in.htpasswd, Fingerprint: strings.Repeat("ab", 32)}}}
}

// checkAuthNoInjection fails if an accepted auth policy changes the structure of nginx.conf
// or does not come back from nginx's tokenizer intact.
func checkAuthNoInjection(t *testing.T, in authInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	realm := in.realm
	if realm == "" {
		realm = "Authentication Required"
	}
	seen := map[string]bool{}
	for _, s := range got {
		switch {
		case s.name == "auth_basic":
			seen["realm"] = cmp.Equal(s.args, []string{realm})
		case s.name == "proxy_pass" && !strings.Contains(s.args[0], "restyplane_upstream"):
			// A URL with a query and no path is sent to "/" with the query.
			want := in.url
			if scheme, rest, ok := strings.Cut(want, "://"); ok {
				if i := strings.IndexAny(rest, "/?"); i >= 0 && rest[i] == '?' {
					want = scheme + "://" + rest[:i] + "/" + rest[i:]
				}
			}
			seen["url"] = cmp.Equal(s.args, []string{want})
			if !seen["url"] {
				t.Fatalf("%+v: proxy_pass %q after nginx's tokenizer, want %q", in, s.args, want)
			}
		case s.name == "auth_request_set":
			seen["header"] = s.args[1] == "$upstream_http_"+strings.ReplaceAll(strings.ToLower(in.header), "-", "_")
		case s.name == "proxy_set_header" && s.args[0] == "X-Auth-Request-Redirect" && in.redirect != "":
			seen["redirect"] = cmp.Equal(s.args[1:], []string{in.redirect})
		case s.name == "proxy_set_header" && cmp.Equal(s.args, []string{in.reqName, in.reqValue}):
			seen["request header"] = true
		}
	}
	for _, k := range []string{"realm", "url", "header", "request header"} {
		if !seen[k] {
			t.Fatalf("%+v: the %s does not survive nginx's tokenizer intact:\n%s", in, k, real)
		}
	}
	if in.redirect != "" && !seen["redirect"] {
		t.Fatalf("%+v: the request redirect does not survive nginx's tokenizer intact", in)
	}
}

var authSeeds = []authInput{
	{"shop admin", "admins", "http://auth.internal:8080/verify", "GET", "https://login.example.com/start?x=1", "X-User", "https://shop.example.com/after", "X-Forwarded-Uri", "$request_uri"},
	{"", "a", "https://[::1]/v", "", "", "X-Email", "", "X-Forwarded-For", "$remote_addr"},
	{`r" ; return 200 "x`, "a;b", "http://a/$host", "GET;", "https://s/\"]]..os.exit()--", "X-A;B", `$request_uri`, "X-R\"", "v\"; proxy_pass http://evil; \""},
	{"a}b{c", "x", "http://a/b c", "POST", "https://s/?rd=1'", "X", "r\nq", "Host", "$host"},
	// Auth variables: only the listed ones, only where the grammar has them.
	{"", "a", "http://a/v?rd=$escaped_request_uri&s=$pass_access_scheme&h=$best_http_host&e=$escaped_request_uri", "",
		"https://$host/oauth2/start?rd=$escaped_request_uri", "X-A", "", "X-Forwarded-Method", "$request_method"},
	{"", "a", "http://a/?x=$host$request_uri;proxy_pass", "", "https://$host;/x", "X-A", "", "X-B", "$host$cookie_x"},
	{"", "a", "http://a/?x=${host}", "", "https://$remote_addr/?rd=$lua", "X-A", "", "X-B", "${host}"},
	{"", "a", "http://a/?x=$scheme\"", "", "https://s/?rd=$scheme://$http_host$request_uri\"]]", "X-A", "", "X-B", "$scheme://$http_host{x}"},
}

func FuzzRenderAuth(f *testing.F) {
	for _, s := range authSeeds {
		f.Add(s.realm, s.htpasswd, s.url, s.method, s.signin, s.header, s.redirect, s.reqName, s.reqValue)
	}
	f.Fuzz(func(t *testing.T, realm, htpasswd, url, method, signin, header, redirect, reqName, reqValue string) {
		checkAuthNoInjection(t, authInput{realm, htpasswd, url, method, signin, header, redirect, reqName, reqValue})
	})
}

// TestRenderAuthAddsNoDirective is FuzzRenderAuth's bounded sibling for every `go test`.
func TestRenderAuthAddsNoDirective(t *testing.T) {
	h := newHostile(11)
	soupTest[authInput]{inputs: 3000, least: 300, seeds: authSeeds, check: checkAuthNoInjection, next: func(int) authInput {
		in := authSeeds[0]
		switch h.Intn(8) {
		case 0:
			in.realm = h.word("r")
		case 1:
			in.url = h.word("http://a")
		case 2:
			in.signin = h.word("https://s/")
		case 3:
			in.header = h.word("X")
		case 4:
			in.redirect = h.word("r")
		case 5:
			in.method = h.word("")
		case 6:
			in.reqName = h.word("X")
		case 7:
			in.reqValue = h.word("$host")
		}
		return in
	}}.run(t)
}
