package render_test

import (
	"net/netip"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// passthroughInput is every user value of TLS passthrough that reaches nginx.conf: the
// hostname in the router's map, the backend's name, and its endpoint, which the stream
// upstream names. FuzzRenderPassthrough extends FuzzRender's proof to them.
type passthroughInput struct {
	host, backend, address string
	port, weight           int
}

// benign maps the input to placeholders that make the same decisions in the renderer.
// The hostname stays: in the router's map it is a statement's name, which the shapes
// compare; the check then proves that it comes back as exactly one statement.
func (in passthroughInput) benign() passthroughInput {
	return passthroughInput{host: in.host, backend: "b", address: "10.0.0.1", port: 1, weight: 1}
}

func (in passthroughInput) config() api.Config {
	srv := api.Server{Name: "s", Hostnames: []string{in.host}, Passthrough: &api.Passthrough{Backend: in.backend},
		Locations: []api.Location{{Path: "/", Match: api.MatchPrefix, Backend: "w"}}}
	tls := api.Server{Name: "t", Hostnames: []string{"t.example"}, TLS: &api.ServerTLS{Certificate: "c"},
		Locations: []api.Location{{Path: "/", Match: api.MatchPrefix, Backend: "w"}}}
	return api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv, tls},
		Backends: []api.Backend{{Name: "w"}, {Name: in.backend,
			Endpoints: []api.Endpoint{{Address: in.address, Port: in.port, Weight: in.weight}}}},
		Certificates: []api.Certificate{{Name: "c"}}}
}

// checkPassthroughNoInjection fails if an accepted passthrough changes the structure of
// nginx.conf or does not come back from nginx's tokenizer intact. An endpoint that is a
// name, not an address, is refused by the renderer for its server alone.
func checkPassthroughNoInjection(t *testing.T, in passthroughInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	a, err := netip.ParseAddr(in.address)
	if err != nil {
		if _, err := render.Conf(cfg, fuzzOptions); err == nil {
			t.Fatalf("%+v: a passthrough endpoint that is no address rendered", in)
		}
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	addr := a.String()
	if a.Is6() {
		addr = "[" + addr + "]"
	}
	weight := in.weight
	if weight < 1 {
		weight = 1
	}
	seen := map[string]bool{}
	hosts := 0
	for _, s := range got {
		switch {
		case s.name == in.host:
			hosts++
			seen["host"] = hosts == 1 && cmp.Equal(s.args, []string{"unix:" + fuzzOptions.Prefix + "/stream/passthrough-0.sock"})
		case s.name == "server" && len(s.args) == 2 && s.args[1] == "weight="+strconv.Itoa(weight):
			seen["peer"] = s.args[0] == addr+":"+strconv.Itoa(in.port)
		}
	}
	for _, k := range []string{"host", "peer"} {
		if !seen[k] {
			t.Fatalf("%+v: the %s does not survive nginx's tokenizer intact:\n%s", in, k, real)
		}
	}
}

var passthroughSeeds = []passthroughInput{
	{"argocd.example.com", "argocd", "10.0.0.21", 8443, 3},
	{"*.cd.example.com", "b", "fd00::1", 443, 0},
	{"h.example\";\n}\nserver {", `b"; proxy_pass x; #`, "10.0.0.1;", 1, 1},
	{"h.example", "b", "argocd.internal", 443, 1},
	{"h.*", "b", "::ffff:10.0.0.1", 65535, 1000},
}

func FuzzRenderPassthrough(f *testing.F) {
	for _, s := range passthroughSeeds {
		f.Add(s.host, s.backend, s.address, s.port, s.weight)
	}
	f.Fuzz(func(t *testing.T, host, backend, address string, port, weight int) {
		checkPassthroughNoInjection(t, passthroughInput{host, backend, address, port, weight})
	})
}

// TestRenderPassthroughAddsNoDirective is FuzzRenderPassthrough's bounded sibling for
// every `go test`.
func TestRenderPassthroughAddsNoDirective(t *testing.T) {
	h := newHostile(13)
	soupTest[passthroughInput]{inputs: 2000, least: 300, seeds: passthroughSeeds, check: checkPassthroughNoInjection, next: func(int) passthroughInput {
		in := passthroughSeeds[h.Intn(2)]
		switch h.Intn(5) {
		case 0:
			in.host = h.word("h")
		case 1:
			in.backend = h.word("b")
		case 2:
			in.address = h.word("1")
		case 3:
			in.port = h.Intn(70000) - 10
		case 4:
			in.weight = h.Intn(1100) - 10
		}
		return in
	}}.run(t)
}
