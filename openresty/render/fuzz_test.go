package render_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// fuzzInput is every value of a config that reaches nginx.conf and comes from a user; gw
// are Gateway API's, on a server of their own.
type fuzzInput struct {
	host, prefix, exact, regex, header, value, rewrite, backend, cert, gzip, timeout, size string
	gw                                                                                     gatewayInput
}

// defaultHeaderNames are the headers every location sets itself; a location header of the
// same name replaces one, which changes the shape, so the placeholder keeps the name.
var defaultHeaderNames = []string{"Host", "X-Real-IP", "X-Forwarded-For", "X-Forwarded-Proto",
	"X-Forwarded-Host", "X-Forwarded-Port", "Upgrade", "Connection"}

// benign maps an input to placeholders that make the same decisions in the renderer (a
// root prefix, a replaced default header, an empty optional value) but cannot carry
// anything but letters.
func (in fuzzInput) benign() fuzzInput {
	b := fuzzInput{host: "h.example", prefix: "/p", exact: "/e", regex: "^/r", header: "X-H", value: "v",
		backend: "b", cert: "c", gzip: "text/x", timeout: "1s", size: "1k"}
	if strings.TrimRight(in.prefix, "/") == "" {
		b.prefix = "/"
	}
	if in.host == api.CatchAllHostname { // the catch-all's block is the default server
		b.host = api.CatchAllHostname
	}
	for _, d := range defaultHeaderNames {
		if strings.EqualFold(in.header, d) {
			b.header = d
		}
	}
	if in.rewrite != "" {
		b.rewrite = "/w"
	}
	if in.timeout == "" {
		b.timeout = ""
	}
	b.gw = in.gw.benign()
	return b
}

func (in fuzzInput) config() api.Config {
	s := api.DefaultSettings()
	s.GzipTypes = []string{in.gzip}
	s.ClientMaxBodySize = in.size
	s.ProxyReadTimeout = "60s"
	headers := []api.Header{{Name: in.header, Value: in.value}}
	srv := api.Server{Name: "s", Hostnames: []string{in.host}, TLS: &api.ServerTLS{Certificate: in.cert, Redirect: true},
		Locations: []api.Location{
			{Path: in.prefix, Match: api.MatchPrefix, Backend: in.backend, Rewrite: in.rewrite, SetHeaders: headers},
			// Longer than the prefix, so first in nginx's order in the real and the placeholder
			// config alike; without a rewrite the two share a block.
			{Path: in.second(), Match: api.MatchPrefix, Backend: in.backend, SetHeaders: headers},
			{Path: in.exact, Match: api.MatchExact, Backend: in.backend, Timeouts: &api.Timeouts{Read: in.timeout}},
			{Path: in.regex, Match: api.MatchRegex, Backend: in.backend},
		}}
	cfg := api.Config{Settings: s, Servers: []api.Server{srv},
		Backends:     []api.Backend{{Name: in.backend}},
		Certificates: []api.Certificate{{Name: in.cert}}}
	gw, ok := in.gw.server(in.backend)
	if !ok || in.host == gatewayHost {
		cfg.Servers = nil // not valid: checkNoInjection skips it
		return cfg
	}
	cfg.Servers = append(cfg.Servers, gw)
	if in.gw.mirror != in.backend {
		cfg.Backends = append(cfg.Backends, api.Backend{Name: in.gw.mirror})
	}
	return cfg
}

// second is the path of a prefix location nested in the fuzzed one.
func (in fuzzInput) second() string { return strings.TrimRight(in.prefix, "/") + "/second" }

// valid reports whether api accepts the config: only such configs reach the renderer.
func valid(cfg api.Config) bool {
	if cfg.Settings.Validate() != nil || len(cfg.Servers) == 0 {
		return false
	}
	for _, b := range cfg.Backends {
		if b.Validate() != nil {
			return false
		}
	}
	for i := range cfg.Servers {
		cfg.Servers[i].Normalize()
		if cfg.Servers[i].Validate() != nil {
			return false
		}
	}
	return true
}

var fuzzOptions = render.Options{Generation: "7", Prefix: "/srv/restyplane", ProxyListen: "127.0.0.1:8080",
	TLSListen: "127.0.0.1:8443", Modules: []string{"/usr/lib/nginx/modules/ngx_http_lua_module.so"}, LuaPath: "/usr/share/lua/5.1/?.lua", StubStatus: true}

// checkNoInjection renders in and its benign placeholders and fails if the two differ in
// anything but argument values: no accepted value may add a directive, a block or an
// argument. It also checks that the user's values come back from nginx's tokenizer intact.
func checkNoInjection(t *testing.T, in fuzzInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	header, regex := false, false
	prefixRe := ""
	server := ""
	for _, s := range got {
		if s.name == "server_name" {
			server = strings.Join(s.args, " ")
		}
		if server == gatewayHost {
			continue // checkGateway's
		}
		switch {
		case s.name == "server_name" && !cmp.Equal(s.args, []string{in.host}):
			t.Fatalf("server_name args = %q, want [%q]", s.args, in.host)
		case s.name == "proxy_set_header" && cmp.Equal(s.args, []string{in.header, in.value}):
			header = true
		case s.name == "location" && len(s.args) == 2 && s.args[0] == "~" && s.args[1] == in.regex:
			regex = true
		case s.name == "location" && len(s.args) == 2 && s.args[0] == "~":
			prefixRe = s.args[1]
			checkPrefixRegex(t, prefixRe, strings.TrimRight(in.prefix, "/"), in.second())
		case s.name == "set" && s.args[0] == "$rp_routes" && s.args[1] != "":
			p := strings.TrimRight(in.prefix, "/")
			if want := in.second() + " " + in.backend + " " + p + " " + in.backend; s.args[1] != want {
				t.Fatalf("routes %q after nginx's tokenizer, want %q", s.args[1], want)
			}
			if !strings.HasPrefix(prefixRe, "^(?<rp_prefix>") {
				t.Fatalf("block with routes has regex %q, which captures no rp_prefix", prefixRe)
			}
			checkPrefixRegex(t, prefixRe, p, in.second())
		case s.name == "rewrite" && !strings.HasPrefix(s.args[1], in.rewrite):
			t.Fatalf("rewrite to %q after nginx's tokenizer, want it to start with %q", s.args[1], in.rewrite)
		}
	}
	if !header {
		t.Fatalf("no proxy_set_header %q %q survives nginx's tokenizer intact", in.header, in.value)
	}
	if !regex {
		t.Fatalf("no regex location %q survives nginx's tokenizer intact", in.regex)
	}
	checkGateway(t, in.gw, got, real)
}

// checkPrefixRegex fails unless re, the regex of a prefix location or of a block that
// prefixes share, follows the Ingress rule for prefix for the prefixes it covers, which are
// among prefixes: a path matches if it is one of them or goes on below one with a "/", and
// a shared block captures the longest such prefix in rp_prefix. It probes around every
// prefix, however many of the path's characters are regex syntax. Go's regexp reads these
// escapes and the named group as PCRE does.
func checkPrefixRegex(t *testing.T, re string, prefixes ...string) {
	t.Helper()
	c, err := regexp.Compile(re)
	if err != nil {
		t.Fatalf("prefixes %q became regex %q, which does not compile: %v", prefixes, re, err)
	}
	var covered []string
	for _, p := range prefixes {
		if p != "" && c.MatchString(p) {
			covered = append(covered, p)
		}
	}
	if len(covered) == 0 {
		t.Fatalf("regex %q matches none of the prefixes %q", re, prefixes)
	}
	owner := func(path string) string { // the longest covered prefix that path falls under
		best := ""
		for _, p := range covered {
			if (path == p || strings.HasPrefix(path, p+"/")) && len(p) > len(best) {
				best = p
			}
		}
		return best
	}
	group := c.SubexpIndex("rp_prefix")
	for _, p := range covered {
		for _, path := range []string{p, p + "/", p + "/x", p + "x", p + "\n", "/x" + p, p[:len(p)-1] + "/"} {
			want := owner(path)
			m := c.FindStringSubmatch(path)
			switch {
			case (m != nil) != (want != ""):
				t.Fatalf("prefixes %q became regex %q, which matches %q: %v, want %v", covered, re, path, m != nil, want != "")
			case m != nil && group >= 0 && m[group] != want:
				t.Fatalf("regex %q captures %q for %q, want %q", re, m[group], path, want)
			}
		}
	}
}

var fuzzSeeds = []fuzzInput{
	{"shop.example.com", "/api", "/health", `^/v[0-9]+/items$`, "X-Team", "checkout", "/", "shop-api", "shop-tls", "application/json", "5s", "1m", gatewaySeeds[0]},
	{"*.example.com", "/", "/", `^/a\.b`, "Host", "example.com", "", "b.1", "c-1", "text/css", "", "10k", gatewaySeeds[1]},
	{"a.example;return", "/x;return 200", "/y", `/a"b`, "X-A", `v" ; return 200 "x`, "/z{", "b", "c", "text/plain", "1s", "1m", gatewaySeeds[2]},
	{"example.*", "/a/b/", "/a/b", `^/(a|b)+[{}]{2}$`, "connection", "a b c", "/w/", "b", "c", "image/svg+xml", "500ms", "1", gatewaySeeds[3]},
	{"x.example", "/'quoted'", "/semi;colon", `^/\d+\}\{`, "X-Esc", `back\slash`, "/r", "b", "c", "text/*", "1h", "2m", gatewaySeeds[4]},
	{"x.example", "/%7B", "/#hash", `/$`, "X-Dollar", "$host", "/$uri", "b", "c", "text/x", "1s", "1m", gatewaySeeds[5]},
	{"x.example", "/a.b+c(d)*e/", "/a.b+c(d)*e", `^/a.b`, "X-A", "v", "/w.x", "b", "c", "text/x", "1s", "1m", gatewaySeeds[6]},
	{"_", "/", "/e", `^/r`, "X-A", "v", "", "b", "c", "text/x", "1s", "1m", gatewaySeeds[7]}, // the catch-all
	{"shop.example.com", "/api", "/health", `^/v[0-9]+/items$`, "X-Team", "checkout", "/", "shop-api", "shop-tls", "application/json", "5s", "1m", gatewaySeeds[8]},
	{"shop.example.com", "/api", "/health", `^/v[0-9]+/items$`, "X-Team", "checkout", "/", "shop-api", "shop-tls", "application/json", "5s", "1m", gatewaySeeds[9]},
}

// gatewaySeeds are Gateway API's values of the seeds, valid and hostile.
var gatewaySeeds = []gatewayInput{
	{"GET", "X-Version", "2", `v[0-9]+(\.[0-9]+)?`, "animal", "whale", "/one", "example.org", "/new", "shadow", "9090"},
	{"", "x-canary", "yes please", `yes|always`, "q", "1 2", "", "", "", "shop-api", ""},
	{"POST", "X-A", `a"b`, `a b`, "a&b", "v$x", "/$uri", "a.example;return", "/x{", "m", "8080"},
	{"PATCH", "X_Under", "v", `(a+)+`, "Q.x", "v", "/w", "", "/", "m", "0"},
	{"get", "X-B", "}; return 200", `\}\{`, "n", `"`, "/f\n", "x.example", "/p", `sh"adow`, "abc"},
	{"DELETE", "X-B", `v\`, `[{}"]`, "n", "v", "/f", "x.example", "/p", "m", "8443"},
	{"OPTIONS", "X-B", "v", `a\z`, "n", "'v'", "/%7B", "x.example", "/a'b", "m", "65536"},
	{"TRACE", "X-B", "{v}", `\d{1,3}`, "n~", "v", "/f", "x.example", "/p", "m", "1"},
	{"HEAD", "X-B", "v", `\]\]`, "n", "v]]", "/f", "x.example", "/p", "m", ""},
	{"CONNECT", "X-B", `--[[`, `-*`, "n", "--", "/f", "x.example", "/p", "m", ""},
}

func FuzzRender(f *testing.F) {
	for _, s := range fuzzSeeds {
		g := s.gw
		f.Add(s.host, s.prefix, s.exact, s.regex, s.header, s.value, s.rewrite, s.backend, s.cert, s.gzip, s.timeout, s.size,
			g.method, g.matchHeader, g.matchValue, g.matchRegex, g.queryName, g.queryValue, g.rewriteFull, g.redirectHost, g.redirectPrefix, g.mirror, g.port)
	}
	f.Fuzz(func(t *testing.T, host, prefix, exact, regex, header, value, rewrite, backend, cert, gzip, timeout, size,
		method, matchHeader, matchValue, matchRegex, queryName, queryValue, rewriteFull, redirectHost, redirectPrefix, mirror, port string) {
		checkNoInjection(t, fuzzInput{host, prefix, exact, regex, header, value, rewrite, backend, cert, gzip, timeout, size,
			gatewayInput{method, matchHeader, matchValue, matchRegex, queryName, queryValue, rewriteFull, redirectHost, redirectPrefix, mirror, port}})
	})
}

// TestRenderAddsNoDirective is FuzzRender's bounded sibling for every `go test`: inputs
// built from the characters that matter to nginx's tokenizer, from a fixed seed.
func TestRenderAddsNoDirective(t *testing.T) {
	h := newHostile(1)
	soupTest[fuzzInput]{inputs: 3000, least: 100, seeds: fuzzSeeds, check: checkNoInjection, next: func(int) fuzzInput {
		// Change one or two values of a valid config, so that many inputs pass validation.
		in := fuzzSeeds[0]
		for n := 1 + h.Intn(2); n > 0; n-- {
			switch h.Intn(17) {
			case 0:
				in.host = h.word("h")
			case 1:
				in.prefix = h.word("/")
			case 2:
				in.exact = h.word("/")
			case 3:
				in.regex = h.word("^/")
			case 4:
				in.header = h.word("X")
			case 5:
				in.value = h.word("v")
			case 6:
				in.rewrite = h.word("/")
			case 7:
				in.gzip = "text/" + h.word("p")
			case 8:
				in.rewrite = "" // the prefixes then share a block
			case 9:
				in.gw.matchHeader = h.word("X")
			case 10:
				in.gw.matchValue = h.word("v")
			case 11:
				in.gw.matchRegex = h.word("r")
			case 12:
				in.gw.queryName, in.gw.queryValue = h.word("q"), h.word("v")
			case 13:
				in.gw.rewriteFull = h.word("/")
			case 14:
				in.gw.redirectHost = h.word("h")
			case 15:
				in.gw.redirectPrefix = h.word("/")
			case 16:
				in.gw.method, in.gw.mirror = "", h.word("m")
			}
		}
		return in
	}}.run(t)
}
