package render_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// clientTLSInput is every value of a server's clientTLS that comes from a user.
// FuzzRenderClientTLS extends FuzzRender's proof to them.
type clientTLSInput struct {
	ca, verify, errorPage string
	depth                 int
	pass                  bool
}

// benign maps the input to placeholders that make the same decisions in the renderer: the
// mode, depth and pass flag are enumerations and numbers the renderer branches on.
func (in clientTLSInput) benign() clientTLSInput {
	b := clientTLSInput{ca: "c", verify: in.verify, depth: 1, pass: in.pass}
	if in.errorPage != "" {
		b.errorPage = "https://e"
	}
	return b
}

var caFingerprint = strings.Repeat("cd", 32)

func (in clientTLSInput) config() api.Config {
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"}, TLS: &api.ServerTLS{Certificate: "t"},
		ClientTLS: &api.ClientTLS{CACertificate: in.ca, Verify: in.verify, Depth: in.depth, ErrorPage: in.errorPage, PassCertificateToUpstream: in.pass},
		Locations: []api.Location{{Path: "/a", Match: api.MatchPrefix, Backend: "b"}, {Path: "/", Match: api.MatchPrefix, Backend: "b"}}}
	return api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv}, Backends: []api.Backend{{Name: "b"}},
		Certificates:   []api.Certificate{{Name: "t"}},
		CACertificates: []api.CACertificate{{Name: in.ca, Fingerprint: caFingerprint}}}
}

// checkClientTLSNoInjection fails if an accepted clientTLS changes the structure of
// nginx.conf or does not come back from nginx's tokenizer intact.
func checkClientTLSNoInjection(t *testing.T, in clientTLSInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	verify := in.verify
	if verify == "" {
		verify = api.VerifyOn
	}
	seen := map[string]bool{}
	for _, s := range got {
		switch s.name {
		case "ssl_verify_client":
			seen["verify"] = cmp.Equal(s.args, []string{verify})
		case "ssl_client_certificate":
			seen["ca"] = cmp.Equal(s.args, []string{fuzzOptions.Prefix + "/ca/" + caFingerprint + ".pem"})
		case "error_page":
			seen["errorPage"] = cmp.Equal(s.args, []string{"495", "496", "=", in.errorPage})
		}
	}
	for _, k := range []string{"verify", "ca"} {
		if !seen[k] {
			t.Fatalf("%+v: the %s does not survive nginx's tokenizer intact:\n%s", in, k, real)
		}
	}
	if in.errorPage != "" && !seen["errorPage"] {
		t.Fatalf("%+v: the error page does not survive nginx's tokenizer intact", in)
	}
}

var clientTLSSeeds = []clientTLSInput{
	{"clients", "on", "https://login.example.com/cert?from=proxy&x=1", 2, true},
	{"c", "", "", 0, false},
	{"c", "optional_no_ca", "http://[::1]:8080/p", 10, false},
	{`c"; ssl_verify_client off; #`, "on; return 200", "https://e/$ssl_client_s_dn", 1, true},
	{"c", "off", "https://e/a b\";\n}", 11, false},
}

func FuzzRenderClientTLS(f *testing.F) {
	for _, s := range clientTLSSeeds {
		f.Add(s.ca, s.verify, s.errorPage, s.depth, s.pass)
	}
	f.Fuzz(func(t *testing.T, ca, verify, errorPage string, depth int, pass bool) {
		checkClientTLSNoInjection(t, clientTLSInput{ca, verify, errorPage, depth, pass})
	})
}

// TestRenderClientTLSAddsNoDirective is FuzzRenderClientTLS's bounded sibling for every
// `go test`.
func TestRenderClientTLSAddsNoDirective(t *testing.T) {
	h := newHostile(11)
	modes := []string{"", "on", "optional", "optional_no_ca", "off"}
	soupTest[clientTLSInput]{inputs: 2000, least: 300, seeds: clientTLSSeeds, check: checkClientTLSNoInjection, next: func(int) clientTLSInput {
		in := clientTLSSeeds[0]
		in.verify = modes[h.Intn(len(modes))]
		in.pass = h.Intn(2) == 0
		switch h.Intn(4) {
		case 0:
			in.ca = h.word("c")
		case 1:
			in.errorPage = h.word("https://e/")
		case 2:
			in.verify = h.word("o")
		case 3:
			in.depth = h.Intn(14) - 2
		}
		return in
	}}.run(t)
}
