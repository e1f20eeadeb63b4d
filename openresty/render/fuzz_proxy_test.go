package render_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// proxyInput is every value of a location's proxy, retry and errors policies
// that reaches nginx.conf and comes from a user. FuzzRenderProxy extends FuzzRender's
// proof to them.
type proxyInput struct {
	bodySize, bufferSize, buffering, condition, timeout, errBackend, origin string
	code                                                                    int
}

// benign maps the input to placeholders that make the same decisions in the renderer.
func (in proxyInput) benign() proxyInput {
	b := proxyInput{bodySize: "1k", bufferSize: "4k", buffering: "on", condition: "error", timeout: "1s",
		errBackend: "e", origin: "o", code: 404}
	// An empty optional value leaves its directive out, in the placeholders too.
	for _, f := range []struct{ in, b *string }{{&in.bodySize, &b.bodySize}, {&in.bufferSize, &b.bufferSize},
		{&in.buffering, &b.buffering}, {&in.timeout, &b.timeout}} {
		if *f.in == "" {
			*f.b = ""
		}
	}
	return b
}

func (in proxyInput) config() api.Config {
	loc := api.Location{Path: "/a", Match: api.MatchPrefix, Backend: "b",
		Proxy: &api.ProxyPolicy{BodySize: in.bodySize, ClientBodyBufferSize: in.bodySize, Buffering: in.buffering,
			BufferSize: in.bufferSize, RequestBuffering: in.buffering, MaxTempFileSize: "0"},
		Retry: &api.RetryPolicy{NextUpstream: []string{in.condition}, Tries: 3, Timeout: in.timeout},
		Errors: &api.ErrorsPolicy{Codes: []int{in.code}, Backend: in.errBackend,
			Origin: &api.ErrorsOrigin{Namespace: in.origin, Ingress: in.origin, Service: in.origin, ServicePort: in.origin}}}
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"}, Locations: []api.Location{loc,
		{Path: "/c", Match: api.MatchExact, Backend: "b", Retry: loc.Retry, Errors: loc.Errors}}}
	return api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv},
		Backends: []api.Backend{{Name: "b"}, {Name: in.errBackend}}}
}

// checkProxyNoInjection fails if an accepted policy changes the structure of nginx.conf
// or does not come back from nginx's tokenizer intact.
func checkProxyNoInjection(t *testing.T, in proxyInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	wantArgs := map[string][]string{
		"client_max_body_size": {in.bodySize}, "proxy_buffering": {in.buffering},
		"proxy_buffers": {"4", in.bufferSize}, "proxy_next_upstream": {in.condition},
		"proxy_next_upstream_timeout": {in.timeout}, "error_page": {strconv.Itoa(in.code), "=", "@restyplane_error_0"},
	}
	for name, args := range wantArgs {
		if args[len(args)-1] == "" {
			delete(wantArgs, name) // an empty value renders no directive
		}
	}
	seen := map[string]bool{}
	for _, s := range got {
		if w, ok := wantArgs[s.name]; ok && s.depth > 2 {
			if !cmp.Equal(s.args, w) {
				t.Fatalf("%+v: %s %q after nginx's tokenizer, want %q", in, s.name, s.args, w)
			}
			seen[s.name] = true
		}
		if s.name == "set" && s.depth > 2 && s.args[0] == "$rp_error_namespace" && !cmp.Equal(s.args[1:], []string{in.origin}) {
			t.Fatalf("%+v: origin %q after nginx's tokenizer", in, s.args[1:])
		}
	}
	for name := range wantArgs {
		if !seen[name] {
			t.Fatalf("%+v: no %s in a location:\n%s", in, name, real)
		}
	}
}

var proxySeeds = []proxyInput{
	{"10m", "8k", "off", "http_503", "10s", "pages", "shop", 503},
	{"0", "1g", "on", "non_idempotent", "0s", "a.b", "x-1", 404},
	{`1k"; return 200 "x`, "8k;", "on;", "error timeout", "1s}", "a;b", `o" x`, 99},
	{"1K", "16M", "off", "$host", "5m", "x y", "o\n", 600},
}

func FuzzRenderProxy(f *testing.F) {
	for _, s := range proxySeeds {
		f.Add(s.bodySize, s.bufferSize, s.buffering, s.condition, s.timeout, s.errBackend, s.origin, s.code)
	}
	f.Fuzz(func(t *testing.T, body, buf, buffering, cond, timeout, errBackend, origin string, code int) {
		checkProxyNoInjection(t, proxyInput{body, buf, buffering, cond, timeout, errBackend, origin, code})
	})
}

// TestRenderProxyAddsNoDirective is FuzzRenderProxy's bounded sibling for every `go test`.
func TestRenderProxyAddsNoDirective(t *testing.T) {
	h := newHostile(12)
	h.soup, h.most = "abz09kmgKMG/._-~!&'()*+,=:@%$^|?[]{}\\\"; #\t\nxX*", 6 // the units of sizes and times too
	soupTest[proxyInput]{inputs: 3000, least: 300, seeds: proxySeeds, check: checkProxyNoInjection, next: func(int) proxyInput {
		in := proxySeeds[0]
		switch h.Intn(7) {
		case 0:
			in.bodySize = h.word("1")
		case 1:
			in.bufferSize = h.word("8")
		case 2:
			in.buffering = h.word("o")
		case 3:
			in.condition = h.word("http_")
		case 4:
			in.timeout = h.word("1")
		case 5:
			in.errBackend = h.word("p")
		case 6:
			in.origin = h.word("s")
		}
		return in
	}}.run(t)
}
