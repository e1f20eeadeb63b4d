package render_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// httpInput is every user value of the CORS and redirect policies that reaches
// nginx.conf or its Lua. FuzzRenderHTTPPolicy extends FuzzRender's proof to them.
type httpInput struct {
	origin, method, header, expose, url, appRoot string
	// capURL is a regex location's redirect that names its groups (rewrite-target to a URL).
	capURL string
}

// benign maps the input to placeholders that make the same decisions in the renderer.
func (in httpInput) benign() httpInput {
	b := httpInput{origin: "https://o.test", method: "GET", header: "X", expose: "X", url: "https://r", appRoot: "/a", capURL: "https://r/$1"}
	// A redirect without a URL is one of parts (none given: the request's own URL), which
	// the renderer writes from the request's scheme, host and port.
	switch {
	case in.url == "":
		b.url = ""
	case in.url[0] == '/':
		b.url = "/r"
	}
	// The regex location's redirect is written by its kind: parts, a path, a URL, a URL
	// with groups.
	switch {
	case in.capURL == "":
		b.capURL = ""
	case strings.HasPrefix(in.capURL, "/"):
		b.capURL = "/r"
	case !strings.Contains(in.capURL, "$"):
		b.capURL = "https://r"
	}
	if in.appRoot == "" {
		b.appRoot = ""
	}
	return b
}

func (in httpInput) config() api.Config {
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"}, AppRoot: in.appRoot, WWWRedirect: true, ForceSSLRedirect: true,
		Locations: []api.Location{
			{Path: "/a", Match: api.MatchPrefix, Backend: "b", CORS: &api.CORS{AllowOrigins: []string{in.origin},
				AllowMethods: []string{in.method}, AllowHeaders: []string{in.header}, ExposeHeaders: []string{in.expose}, Rules: api.CORSRulesGatewayAPI}},
			{Path: "/a/b", Match: api.MatchPrefix, Backend: "b"},
			{Path: "/c", Match: api.MatchExact, Redirect: &api.Redirect{URL: in.url, Code: 308}},
			{Path: "^/old/(.*)", Match: api.MatchRegex, Backend: "b", Redirect: &api.Redirect{URL: in.capURL, Code: 302}},
		}}
	return api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv}, Backends: []api.Backend{{Name: "b"}}}
}

// checkHTTPNoInjection fails if an accepted CORS or redirect policy changes the structure
// of nginx.conf, or its redirect URL or app root does not come back intact.
func checkHTTPNoInjection(t *testing.T, in httpInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	// What the redirects and the app root came back as, after nginx's tokenizer.
	var returned, set []string
	appRoot := false
	for _, s := range got {
		switch {
		case s.name == "return" && len(s.args) == 2 && (s.args[0] == "308" || s.args[0] == "302"):
			returned = append(returned, s.args[1])
		case s.name == "set" && s.args[0] == "$rp_redirect":
			set = append(set, s.args[1])
		case s.name == "set" && s.args[0] == "$rp_app_root":
			appRoot = cmp.Equal(s.args[1:], []string{in.appRoot})
		}
	}
	came := func(url string) bool {
		switch {
		case url == "":
			return true // parts: no URL of the input's to come back
		case strings.HasPrefix(url, "/"):
			return slices.Contains(set, url)
		case strings.Contains(url, "$"):
			return slices.Contains(returned, url+"$is_args$args")
		}
		return slices.Contains(returned, url)
	}
	if !came(in.url) || !came(in.capURL) || (in.appRoot != "" && !appRoot) {
		t.Fatalf("%+v: the redirect URLs or app root do not survive nginx's tokenizer intact:\n%s", in, real)
	}
}

var httpSeeds = []httpInput{
	{"https://app.example.com", "GET", "Content-Type", "X-Request-Id", "https://new.example.com/x?y=1", "/app", "https://new.example.gov.uk/$1"},
	{"https://*.example.com:8443", "PATCH", "X", "Y", "/new?a=1", "/a/b", "http://[::1]:8080/$1/x?a=$1"},
	{"*", "GET", "X", "X", "http://[::1]:8080/p", "/x", "https://a/$1$1"},
	{`https://a.test"]]..os.exit()--`, "GET;", "X;Y", "X}", "https://a/$request_uri", "/a b", "https://a/$host"},
	{"https://a.test\n", "G\"", "X", "X", "/a\"; return 200 \"", "/a;b", "https://a/$1\"; return 200 \""},
	{"https://a.test", "GET", "X", "X", "https://a", "/a", "https://a/$2"},
	{"https://a.test", "GET", "X", "X", "https://a", "/a", "/$1"},
}

func FuzzRenderHTTPPolicy(f *testing.F) {
	for _, s := range httpSeeds {
		f.Add(s.origin, s.method, s.header, s.expose, s.url, s.appRoot, s.capURL)
	}
	f.Fuzz(func(t *testing.T, origin, method, header, expose, url, appRoot, capURL string) {
		checkHTTPNoInjection(t, httpInput{origin, method, header, expose, url, appRoot, capURL})
	})
}

// TestRenderHTTPPolicyAddsNoDirective is FuzzRenderHTTPPolicy's bounded sibling for every
// `go test`.
func TestRenderHTTPPolicyAddsNoDirective(t *testing.T) {
	h := newHostile(11)
	soupTest[httpInput]{inputs: 3000, least: 300, seeds: httpSeeds, check: checkHTTPNoInjection, next: func(i int) httpInput {
		in := httpSeeds[i%2]
		switch h.Intn(7) {
		case 0:
			in.origin = h.word("https://")
		case 1:
			in.method = h.word("G")
		case 2:
			in.header = h.word("X")
		case 3:
			in.expose = h.word("X")
		case 4:
			in.url = h.word([]string{"https://a", "/"}[h.Intn(2)])
		case 5:
			in.appRoot = h.word("/")
		case 6:
			in.capURL = h.word("https://a/$1")
		}
		return in
	}}.run(t)
}
