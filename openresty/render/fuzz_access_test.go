package render_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// accessInput is every value of access lists, limits and the trusted proxy settings
// that comes from a user. The CIDRs of lists reach Lua by a push, not the
// conf; the bandwidth limits and the trusted proxies are directives. FuzzRenderAccess
// extends FuzzRender's proof to them.
type accessInput struct {
	allow, deny, exempt, rate, rateAfter, realIPFrom, realIPHeader string
}

// benign maps the input to placeholders that make the same decisions in the renderer.
func (in accessInput) benign() accessInput {
	b := accessInput{allow: "10.0.0.0/8", deny: "10.0.0.1", exempt: "::1", rate: "1k"}
	if in.rateAfter != "" {
		b.rateAfter = "1m"
	}
	if in.realIPFrom != "" {
		b.realIPFrom = "127.0.0.1"
	}
	if in.realIPHeader != "" {
		b.realIPHeader = "X-Real-IP"
	}
	return b
}

func (in accessInput) config() api.Config {
	s := api.DefaultSettings()
	if in.realIPFrom != "" {
		s.RealIPFrom = []string{in.realIPFrom}
	}
	s.RealIPHeader = in.realIPHeader
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"}, Locations: []api.Location{
		{Path: "/a", Match: api.MatchPrefix, Backend: "b", Access: &api.AccessPolicy{Allow: []string{in.allow}, Deny: []string{in.deny}}},
		{Path: "/a/b", Match: api.MatchPrefix, Backend: "b"},
		{Path: "/c", Match: api.MatchExact, Backend: "b", Limits: &api.LocationLimits{RPS: 5, Exempt: []string{in.exempt},
			Rate: in.rate, RateAfter: in.rateAfter}},
	}}
	return api.Config{Settings: s, Servers: []api.Server{srv}, Backends: []api.Backend{{Name: "b"}}}
}

// checkAccessNoInjection fails if accepted access lists, limits or trusted proxies change
// the structure of nginx.conf, or their directives' values do not come back intact.
func checkAccessNoInjection(t *testing.T, in accessInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, _ := sameStructure(t, in, cfg, in.benign().config())
	header := in.realIPHeader
	if header == "" {
		header = "X-Forwarded-For"
	}
	wantArgs := map[string][]string{"limit_rate": {in.rate}}
	if in.rateAfter != "" {
		wantArgs["limit_rate_after"] = []string{in.rateAfter}
	}
	if in.realIPFrom != "" {
		wantArgs["set_real_ip_from"], wantArgs["real_ip_header"] = []string{in.realIPFrom}, []string{header}
	}
	for _, s := range got {
		if w, ok := wantArgs[s.name]; ok {
			if !cmp.Equal(s.args, w) {
				t.Fatalf("%+v: %s %q after nginx's tokenizer, want %q", in, s.name, s.args, w)
			}
			delete(wantArgs, s.name)
		}
	}
	if len(wantArgs) > 0 {
		t.Fatalf("%+v: directives missing from the conf: %v", in, wantArgs)
	}
}

var accessSeeds = []accessInput{
	{"10.0.0.0/8", "10.1.2.3", "2001:db8::/32", "100k", "1m", "10.0.0.0/8", "X-Real-IP"},
	{"::/0", "::1", "0.0.0.0/0", "1", "", "::1", ""},
	{"10.0.0.0/8; allow all", "10.0.0.1\"", "::1}", "1k;", "1m\n", "127.0.0.1/32\" ;", "X-A;B"},
	{"$remote_addr", "{", "#", "1 k", "$x", "0.0.0.0/0 ", "X Y"},
}

func FuzzRenderAccess(f *testing.F) {
	for _, s := range accessSeeds {
		f.Add(s.allow, s.deny, s.exempt, s.rate, s.rateAfter, s.realIPFrom, s.realIPHeader)
	}
	f.Fuzz(func(t *testing.T, allow, deny, exempt, rate, rateAfter, realIPFrom, realIPHeader string) {
		checkAccessNoInjection(t, accessInput{allow, deny, exempt, rate, rateAfter, realIPFrom, realIPHeader})
	})
}

// TestRenderAccessAddsNoDirective is FuzzRenderAccess's bounded sibling for every `go test`.
func TestRenderAccessAddsNoDirective(t *testing.T) {
	h := newHostile(12)
	h.soup = "0123456789abcdef:./km$;\"' {}#\n\\X-" // the characters of addresses, sizes and headers, and hostile ones
	soupTest[accessInput]{inputs: 3000, least: 300, seeds: accessSeeds, check: checkAccessNoInjection, next: func(int) accessInput {
		in := accessSeeds[0]
		switch h.Intn(7) {
		case 0:
			in.allow = h.mutate(in.allow)
		case 1:
			in.deny = h.mutate(in.deny)
		case 2:
			in.exempt = h.mutate(in.exempt)
		case 3:
			in.rate = h.mutate(in.rate)
		case 4:
			in.rateAfter = h.mutate(in.rateAfter)
		case 5:
			in.realIPFrom = h.mutate(in.realIPFrom)
		case 6:
			in.realIPHeader = h.mutate(in.realIPHeader)
		}
		return in
	}}.run(t)
}
