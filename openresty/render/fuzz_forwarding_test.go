package render_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// forwardingInput is every value of the forwarding and keepalive settings, and of a
// backend's affinity cookie, that comes from a user. The settings are directives (a
// proxySetHeaders value with the variables it may name); the affinity goes to the
// balancer by a push and must leave the conf as it is. FuzzRenderForwarding extends
// FuzzRender's proof to them.
type forwardingInput struct {
	name, value, keepaliveTimeout  string
	keepaliveRequests              int
	forwarded                      bool
	cookie, path, domain, sameSite string
}

// benign maps the input to placeholders that make the same decisions in the renderer: a
// header that replaces a default keeps its name, an absent keepalive value stays absent.
func (in forwardingInput) benign() forwardingInput {
	b := forwardingInput{name: "X-H", value: "v", forwarded: in.forwarded, cookie: "c", path: "/p", domain: "d.example"}
	for _, d := range defaultHeaderNames {
		if strings.EqualFold(in.name, d) {
			b.name = d
		}
	}
	if in.keepaliveTimeout != "" {
		b.keepaliveTimeout = "1s"
	}
	if in.keepaliveRequests != 0 {
		b.keepaliveRequests = 1
	}
	return b
}

func (in forwardingInput) config() api.Config {
	s := api.DefaultSettings()
	s.UseForwardedHeaders = in.forwarded
	s.ProxySetHeaders = []api.ProxyHeader{{Name: in.name, Value: in.value}}
	s.UpstreamKeepaliveTimeout, s.UpstreamKeepaliveRequests = in.keepaliveTimeout, in.keepaliveRequests
	b := api.Backend{Name: "b", Affinity: &api.Affinity{Cookie: in.cookie, Mode: api.AffinityBalanced, Path: in.path,
		Domain: in.domain, SameSite: in.sameSite, Expires: 60, MaxAge: 60, Secure: true, ChangeOnFailure: true}}
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"}, Locations: []api.Location{
		{Path: "/", Match: api.MatchPrefix, Backend: "b"},
		{Path: "/own", Match: api.MatchPrefix, Backend: "b", SetHeaders: []api.Header{{Name: "X-Own", Value: "v"}}},
	}}
	return api.Config{Settings: s, Servers: []api.Server{srv}, Backends: []api.Backend{b}}
}

// checkForwardingNoInjection fails if accepted settings or affinity change the structure
// of nginx.conf, or the settings' directives do not come back from nginx's tokenizer
// intact.
func checkForwardingNoInjection(t *testing.T, in forwardingInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, _ := sameStructure(t, in, cfg, in.benign().config())
	headers := 0
	want := map[string][]string{}
	if in.keepaliveTimeout != "" {
		want["keepalive_timeout"] = []string{in.keepaliveTimeout}
	}
	if in.keepaliveRequests != 0 {
		want["keepalive_requests"] = []string{strconv.Itoa(in.keepaliveRequests)}
	}
	inUpstream := false
	for _, s := range got {
		switch {
		case s.name == "proxy_set_header" && cmp.Equal(s.args, []string{in.name, in.value}):
			headers++
		case s.name == "upstream":
			inUpstream = true
		case inUpstream && want[s.name] != nil:
			if !cmp.Equal(s.args, want[s.name]) {
				t.Fatalf("%+v: %s %q after nginx's tokenizer, want %q", in, s.name, s.args, want[s.name])
			}
			delete(want, s.name)
		}
	}
	if headers != 2 {
		t.Fatalf("%+v: proxy_set_header %q %q comes back intact in %d locations, want 2", in, in.name, in.value, headers)
	}
	if len(want) > 0 {
		t.Fatalf("%+v: directives missing from the upstream block: %v", in, want)
	}
}

var forwardingSeeds = []forwardingInput{
	{"X-Request-ID", "$request_id", "60s", 10000, true, "route", "/", "shop.example.com", "Lax"},
	{"X-Origin", "$scheme://$host:$server_port", "", 0, false, "INGRESSCOOKIE", "/shop", "example.com", "None"},
	{"X-Real-IP", "$realip_remote_addr", "500ms", 1, true, "a", "/a/b", "a.b.c", "Strict"},
	{"X-Team", "checkout {eu} #1; 'x'", "1h", 1000000, false, "c", "/%7B", "x.example", ""},
	{"X-A", "$host;return 200", "1s;", 5, true, "c;", "/a b", "$host", "Sometimes"},
	{"X-A\"", `v" ; more_set_headers "x`, "1 s", -1, false, "c d", "/a;Domain=evil", ".example.com", "lax"},
	{"X-B", "${host}", "\n", 0, true, "{", "/$uri", "*.example.com", "None;"},
	{"X-C", "$http_authorization", "", 0, false, "c", "/", "x.example", ""},
}

func FuzzRenderForwarding(f *testing.F) {
	for _, s := range forwardingSeeds {
		f.Add(s.name, s.value, s.keepaliveTimeout, s.keepaliveRequests, s.forwarded, s.cookie, s.path, s.domain, s.sameSite)
	}
	f.Fuzz(func(t *testing.T, name, value, timeout string, requests int, forwarded bool, cookie, path, domain, sameSite string) {
		checkForwardingNoInjection(t, forwardingInput{name, value, timeout, requests, forwarded, cookie, path, domain, sameSite})
	})
}

// TestRenderForwardingAddsNoDirective is FuzzRenderForwarding's bounded sibling for every
// `go test`.
func TestRenderForwardingAddsNoDirective(t *testing.T) {
	h := newHostile(13)
	soupTest[forwardingInput]{inputs: 3000, least: 300, seeds: forwardingSeeds, check: checkForwardingNoInjection, next: func(i int) forwardingInput {
		in := forwardingSeeds[i%3]
		switch h.Intn(7) {
		case 0:
			in.name = h.mutate(in.name)
		case 1, 2:
			in.value = h.mutate(in.value)
		case 3:
			in.keepaliveTimeout = h.mutate(in.keepaliveTimeout)
		case 4:
			in.path = h.mutate(in.path)
		case 5:
			in.domain = h.mutate(in.domain)
		case 6:
			in.cookie = h.mutate(in.cookie)
		}
		return in
	}}.run(t)
}
