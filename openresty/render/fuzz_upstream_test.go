package render_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// upstreamInput is every user value of the upstream policies that reaches
// nginx.conf: a backend's CA bundle, server name and client certificate names, a
// location's upstreamHost and forwardedPrefix, and the protocol.
type upstreamInput struct {
	protocol, ca, serverName, clientCert, host, prefix string
}

// benign maps the input to placeholders that make the same decisions in the renderer.
func (in upstreamInput) benign() upstreamInput {
	b := upstreamInput{protocol: in.protocol, ca: "c", clientCert: "k"}
	if in.serverName != "" {
		b.serverName = "s.example"
	}
	if in.host != "" {
		b.host = "h.example"
	}
	if in.prefix != "" {
		b.prefix = "/p"
	}
	return b
}

func (in upstreamInput) config() api.Config {
	tls := &api.UpstreamTLS{Verify: true, CACertificate: in.ca, ServerName: in.serverName, SNI: true, ClientCertificate: in.clientCert}
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"}, Locations: []api.Location{
		{Path: "/a", Match: api.MatchPrefix, Backend: "b", UpstreamHost: in.host, ForwardedPrefix: in.prefix},
		{Path: "/", Match: api.MatchPrefix, Backend: "b", Rewrite: "/v1", UpstreamHost: in.host},
		{Path: "/plain", Match: api.MatchExact, Backend: "p", ForwardedPrefix: in.prefix},
	}}
	return api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv},
		Backends:       []api.Backend{{Name: "b", Protocol: in.protocol, UpstreamTLS: tls}, {Name: "p"}},
		CACertificates: []api.CACertificate{{Name: in.ca, Fingerprint: strings.Repeat("ab", 32)}},
		Certificates:   []api.Certificate{{Name: in.clientCert, Cert: "c", Key: "k"}}}
}

// checkUpstreamNoInjection fails if an accepted upstream policy changes the structure of
// nginx.conf or does not come back from nginx's tokenizer intact.
func checkUpstreamNoInjection(t *testing.T, in upstreamInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	mod := "proxy"
	if in.protocol == api.ProtocolGRPCS {
		mod = "grpc"
	}
	name := in.serverName
	if name == "" {
		name = in.host
	}
	if name == "" {
		name = "$host"
	}
	seen := map[string]int{}
	for _, s := range got {
		switch {
		case s.name == mod+"_ssl_name":
			if !cmp.Equal(s.args, []string{name}) {
				t.Fatalf("%+v: %s %q, want %q", in, s.name, s.args, name)
			}
			seen["name"]++
		case strings.HasSuffix(s.name, "_set_header") && s.args[0] == "Host" && in.host != "":
			if s.args[1] != in.host && s.args[1] != "$rp_host" && s.args[1] != "$http_host" {
				t.Fatalf("%+v: Host %q", in, s.args[1])
			}
			seen["host"]++
		case strings.HasSuffix(s.name, "_set_header") && s.args[0] == "X-Forwarded-Prefix":
			if !cmp.Equal(s.args[1:], []string{in.prefix}) {
				t.Fatalf("%+v: X-Forwarded-Prefix %q", in, s.args[1:])
			}
			seen["prefix"]++
		case s.name == mod+"_ssl_trusted_certificate":
			seen["ca"]++
		case s.name == mod+"_ssl_certificate" && strings.Contains(s.args[0], "/upstream-certs/"+in.clientCert+"-"):
			seen["cert"]++
		}
	}
	if seen["name"] != 2 || seen["ca"] != 2 || seen["cert"] != 2 || in.prefix != "" && seen["prefix"] != 2 || in.host != "" && seen["host"] < 2 {
		t.Fatalf("%+v: the upstream values do not survive nginx's tokenizer intact (%v):\n%s", in, seen, real)
	}
}

var upstreamSeeds = []upstreamInput{
	{"https", "internal-ca", "api.internal", "proxy-client", "api.internal", "/shop"},
	{"grpcs", "ca", "", "c", "", ""},
	{"https", "a;b", "x\"; return 200 \"", "k}", "h.example;", "/a b"},
	{"grpcs", "c", "s.example", "k", "$host", "/a{b}"},
}

func FuzzRenderUpstream(f *testing.F) {
	for _, s := range upstreamSeeds {
		f.Add(s.protocol, s.ca, s.serverName, s.clientCert, s.host, s.prefix)
	}
	f.Fuzz(func(t *testing.T, protocol, ca, serverName, clientCert, host, prefix string) {
		checkUpstreamNoInjection(t, upstreamInput{protocol, ca, serverName, clientCert, host, prefix})
	})
}

// TestRenderUpstreamAddsNoDirective is FuzzRenderUpstream's bounded sibling for every
// `go test`.
func TestRenderUpstreamAddsNoDirective(t *testing.T) {
	h := newHostile(12)
	soupTest[upstreamInput]{inputs: 3000, least: 300, seeds: upstreamSeeds, check: checkUpstreamNoInjection, next: func(i int) upstreamInput {
		in := upstreamSeeds[i%2]
		switch h.Intn(5) {
		case 0:
			in.ca = h.word("c")
		case 1:
			in.serverName = h.word("s")
		case 2:
			in.clientCert = h.word("k")
		case 3:
			in.host = h.word("h")
		case 4:
			in.prefix = h.word("/")
		}
		return in
	}}.run(t)
}
