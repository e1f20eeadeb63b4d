package render_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// rewriteInput is a regex location's regex and its capture-group rewrite, the user values
// of a regex rewrite that reach nginx.conf.
type rewriteInput struct{ regex, rewrite string }

// benign maps the input to placeholders that make the same decisions in the renderer.
func (in rewriteInput) benign() rewriteInput {
	b := rewriteInput{regex: "^/r(.*)"}
	if in.rewrite != "" {
		b.rewrite = "/w$1"
	}
	return b
}

func (in rewriteInput) config() api.Config {
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"}, Locations: []api.Location{
		{Path: in.regex, Match: api.MatchRegex, Backend: "b", Rewrite: in.rewrite},
	}}
	return api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv}, Backends: []api.Backend{{Name: "b"}}}
}

// checkRewriteNoInjection fails if an accepted regex rewrite changes the structure of
// nginx.conf, or does not come back from nginx's tokenizer as the location's own regex
// and the replacement as written.
func checkRewriteNoInjection(t *testing.T, in rewriteInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	n := 0
	for _, s := range got {
		if s.name == "rewrite" {
			if !cmp.Equal(s.args, []string{in.regex, in.rewrite, "break"}) {
				t.Fatalf("%+v: rewrite %q after nginx's tokenizer", in, s.args)
			}
			n++
		}
	}
	if want := min(len(in.rewrite), 1); n != want {
		t.Fatalf("%+v: %d rewrite directives, want %d:\n%s", in, n, want, real)
	}
}

var rewriteSeeds = []rewriteInput{
	{`^/api(/|$)(.*)`, "/$2"},
	{`^/thanos(/|$)(.*)`, "/thanos/$2"},
	{`^/(x|y)/(.*)`, "/$2/$1"},
	{`^/a/(.*)`, "/$3"},
	{`^/a/(.*)`, `/$1"; return 200 "x`},
	{`^/a/(.*)`, "/$host$1"},
	{`^/a\"(.*)`, "/$1"},
	{`^/a/(.*)`, "/a{b}$1"},
}

func FuzzRenderRewrite(f *testing.F) {
	for _, s := range rewriteSeeds {
		f.Add(s.regex, s.rewrite)
	}
	f.Fuzz(func(t *testing.T, regex, rewrite string) {
		checkRewriteNoInjection(t, rewriteInput{regex, rewrite})
	})
}

// TestRenderRewriteAddsNoDirective is FuzzRenderRewrite's bounded sibling for every
// `go test`.
func TestRenderRewriteAddsNoDirective(t *testing.T) {
	h := newHostile(24)
	soupTest[rewriteInput]{inputs: 3000, least: 300, seeds: rewriteSeeds, check: checkRewriteNoInjection, next: func(i int) rewriteInput {
		in := rewriteSeeds[i%3]
		switch h.Intn(3) {
		case 0:
			in.regex = h.mutate(in.regex)
		case 1:
			in.rewrite = h.word("/") + "$1"
		default:
			in.rewrite = h.mutate(in.rewrite)
		}
		return in
	}}.run(t)
}
