package render_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// cacheInput is every user value of a cache policy, expires and the cache's settings that
// reaches nginx.conf: a key variable, a valid duration, a use-stale condition, a bypass
// variable, the status header, expires and the zone's sizes.
type cacheInput struct {
	key, duration, stale, bypass, status, expires, zone, max string
}

// benign maps the input to placeholders that make the same decisions in the renderer.
func (in cacheInput) benign() cacheInput {
	b := cacheInput{key: "$host", duration: "1m", stale: "error", bypass: "$arg_x", status: "X-C", expires: "1d", zone: "1m", max: "1m"}
	if in.key == "" {
		b.key = ""
	}
	if in.zone == "" {
		b.zone = ""
	}
	if in.max == "" {
		b.max = ""
	}
	return b
}

func (in cacheInput) config() api.Config {
	c := &api.CachePolicy{Valid: []api.CacheValid{{Codes: []int{200}, Duration: in.duration}}, UseStale: []string{in.stale},
		Bypass: []string{in.bypass}, StatusHeader: in.status, Lock: true}
	if in.key != "" {
		c.Key = []string{"$scheme", in.key}
	}
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"}, Locations: []api.Location{
		{Path: "/p", Match: api.MatchPrefix, Backend: "b", Cache: c},
		{Path: "/e", Match: api.MatchPrefix, Backend: "b", Expires: in.expires},
	}}
	s := api.DefaultSettings()
	s.CacheZoneSize, s.CacheMaxSize = in.zone, in.max
	return api.Config{Settings: s, Servers: []api.Server{srv}, Backends: []api.Backend{{Name: "b"}}}
}

// checkCacheNoInjection fails if an accepted cache policy, expires or cache setting
// changes the structure of nginx.conf, or does not come back from nginx's tokenizer as
// written.
func checkCacheNoInjection(t *testing.T, in cacheInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	key := "s|$scheme$host$request_uri"
	if in.key != "" {
		key = "s|$scheme" + in.key
	}
	zone, max := in.zone, in.max
	if zone == "" {
		zone = api.DefaultCacheZoneSize
	}
	if max == "" {
		max = api.DefaultCacheMaxSize
	}
	want := map[string][]string{
		"proxy_cache_key":       {key},
		"proxy_cache_valid":     {"200", in.duration},
		"proxy_cache_use_stale": {in.stale},
		"proxy_cache_bypass":    {in.bypass},
		"proxy_no_cache":        {in.bypass},
		"add_header":            {in.status, "$upstream_cache_status", "always"},
		"expires":               {in.expires},
	}
	seen := map[string]bool{}
	for _, s := range got {
		if w, ok := want[s.name]; ok {
			if !cmp.Equal(s.args, w) {
				t.Fatalf("%+v: %s %q after nginx's tokenizer, want %q\n%s", in, s.name, s.args, w, real)
			}
			seen[s.name] = true
		}
		if s.name == "proxy_cache_path" {
			if len(s.args) != 6 || s.args[2] != "keys_zone=restyplane_cache:"+zone || s.args[3] != "max_size="+max {
				t.Fatalf("%+v: proxy_cache_path %q", in, s.args)
			}
			seen[s.name] = true
		}
	}
	if len(seen) != len(want)+1 {
		t.Fatalf("%+v: saw only %v:\n%s", in, seen, real)
	}
	if strings.Count(real, "proxy_cache restyplane_cache;") != 1 {
		t.Fatalf("%+v: one location caches", in)
	}
}

var cacheSeeds = []cacheInput{
	{"$request_uri", "10m", "updating", "$http_authorization", "X-Cache-Status", "30d", "10m", "1g"},
	{"", "30d", "http_503", "$cookie_nocache", "X-Cache", "max", "", ""},
	{"$remote_addr", "1m;", "off", "$http_x;y", "X\"C", "30d; deny all", "1m\"", "1g;"},
	{"$host$uri", "1m", "error timeout", "$arg_A", "X{C}", "epoch", "0", "0"},
}

func FuzzRenderCache(f *testing.F) {
	for _, s := range cacheSeeds {
		f.Add(s.key, s.duration, s.stale, s.bypass, s.status, s.expires, s.zone, s.max)
	}
	f.Fuzz(func(t *testing.T, key, duration, stale, bypass, status, expires, zone, max string) {
		checkCacheNoInjection(t, cacheInput{key, duration, stale, bypass, status, expires, zone, max})
	})
}

// TestRenderCacheAddsNoDirective is FuzzRenderCache's bounded sibling for every `go test`.
func TestRenderCacheAddsNoDirective(t *testing.T) {
	h := newHostile(48)
	soupTest[cacheInput]{inputs: 3000, least: 300, seeds: cacheSeeds, check: checkCacheNoInjection, next: func(i int) cacheInput {
		in := cacheSeeds[i%2]
		switch h.Intn(8) {
		case 0:
			in.key = h.mutate(in.key)
		case 1:
			in.duration = h.mutate(in.duration)
		case 2:
			in.stale = h.mutate(in.stale)
		case 3:
			in.bypass = h.word("$http_")
		case 4:
			in.status = h.word("X")
		case 5:
			in.expires = h.mutate(in.expires)
		case 6:
			in.zone = h.mutate("10m")
		default:
			in.max = h.mutate("1g")
		}
		return in
	}}.run(t)
}
