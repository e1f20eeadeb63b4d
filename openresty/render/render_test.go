package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

func renderConfig() api.Config {
	s := api.DefaultSettings()
	return api.Config{Settings: s,
		Backends: []api.Backend{{Name: "a"}, {Name: "b"}},
		Servers: []api.Server{
			{Name: "one", Hostnames: []string{"one.test", "shared.test"}, TLS: &api.ServerTLS{Certificate: "one-tls"},
				Locations: []api.Location{{Path: "/a", Backend: "a"}, {Path: "/a", Match: api.MatchExact, Backend: "b"}}},
			{Name: "two", Hostnames: []string{"shared.test", "two.test"},
				Locations: []api.Location{{Path: "/", Backend: "b", Timeouts: &api.Timeouts{Connect: "2s"}}}},
		},
		Certificates: []api.Certificate{{Name: "one-tls"}},
	}
}

// renderStatements renders renderConfig and tokenizes the result.
func renderStatements(t *testing.T) ([]byte, []stmt) {
	t.Helper()
	conf, err := render.Conf(renderConfig(), fuzzOptions)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := tokenize(string(conf))
	if err != nil {
		t.Fatalf("tokenize: %v\n%s", err, conf)
	}
	return conf, stmts
}

func TestRenderIsDeterministic(t *testing.T) {
	cfg := renderConfig()
	first, err := render.Conf(cfg, fuzzOptions)
	if err != nil {
		t.Fatal(err)
	}
	// The same state listed in another order renders the same bytes.
	cfg.Servers[0], cfg.Servers[1] = cfg.Servers[1], cfg.Servers[0]
	for i := 0; i < 5; i++ {
		again, err := render.Conf(cfg, fuzzOptions)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatalf("render %d differs from the first", i)
		}
	}
}

func TestRenderWritesTheDecisions(t *testing.T) {
	conf, stmts := renderStatements(t)
	var servers [][]string
	var locations, tryFiles []string
	for _, s := range stmts {
		switch s.name {
		case "server_name":
			servers = append(servers, s.args)
		case "location":
			locations = append(locations, strings.Join(s.args, " "))
		case "try_files":
			tryFiles = append(tryFiles, strings.Join(s.args, " "))
		}
	}
	// shared.test belongs to both servers, so it gets a block of its own with both
	// servers' locations; the exact /a comes first, as nginx checks it first anyway.
	wantServers := [][]string{{"one.test"}, {"shared.test"}, {"two.test"}}
	if got := strings.Join(flatten(servers), ","); got != strings.Join(flatten(wantServers), ",") {
		t.Fatalf("server_name = %v, want %v", servers, wantServers)
	}
	wantLocations := []string{
		"= /stub_status", "/", // the admin endpoint
		"/",                     // the default server
		"= /a", `~ ^/a(?:/|\z)`, // one.test, whose 404 catch-all is a try_files
		"= /a", `~ ^/a(?:/|\z)`, "/", // shared.test: one's locations, then two's "/"
		"/", // two.test
	}
	if diff := cmp.Diff(wantLocations, locations); diff != "" {
		t.Fatalf("locations (-want +got):\n%s", diff)
	}
	if want := []string{"/.restyplane-unclaimed =404"}; !cmp.Equal(tryFiles, want) {
		t.Fatalf("try_files = %q, want %q (one.test only: the others have a root location)", tryFiles, want)
	}
	for _, want := range []string{
		`ssl_certificate "certs/one-tls.crt";`,
		`require("restyplane.certs").serve("one-tls")`,
		`listen "127.0.0.1:8443" ssl http2;`,
		`set $rp_location_timeouts "c";`,
		`generation = "7"`,
		`listen "unix:/srv/restyplane/admin/admin.sock";`,
	} {
		if !bytes.Contains(conf, []byte(want)) {
			t.Errorf("conf lacks %s", want)
		}
	}
}

// TestRenderOrdersLocations checks the order that gives the precedence api promises, since
// nginx takes the first regex that matches: exact locations, then the users' regexes in
// their order, then prefixes from the longest down, then the root prefix.
func TestRenderOrdersLocations(t *testing.T) {
	loc := func(match, path string) api.Location { return api.Location{Path: path, Match: match, Backend: "a"} }
	one := api.Server{Name: "one", Hostnames: []string{"shop.test"}, Locations: []api.Location{
		loc(api.MatchPrefix, "/a"), loc(api.MatchRegex, "^/r2"), loc(api.MatchExact, "/e"),
		loc(api.MatchPrefix, "/a/bc/"), loc(api.MatchPrefix, "/"), loc(api.MatchRegex, "^/r1"),
		loc(api.MatchPrefix, "/v1.0"), loc(api.MatchPrefix, "/c++(x)*"),
	}}
	// two shares shop.test, so its locations join one's block in the same order.
	two := api.Server{Name: "two", Hostnames: []string{"shop.test"}, Locations: []api.Location{
		loc(api.MatchRegex, "^/r0"), loc(api.MatchPrefix, "/a/b"), loc(api.MatchPrefix, "/b"),
	}}
	cfg := api.Config{Settings: api.DefaultSettings(), Backends: []api.Backend{{Name: "a"}}, Servers: []api.Server{two, one}}
	conf, err := render.Conf(cfg, fuzzOptions)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := tokenize(string(conf))
	if err != nil {
		t.Fatalf("tokenize: %v\n%s", err, conf)
	}
	var got []string
	for _, s := range stmts {
		if s.name == "location" {
			got = append(got, strings.Join(s.args, " "))
		}
	}
	want := []string{"= /stub_status", "/", "/", // the admin endpoint and the default server
		"= /e",
		"~ ^/r2", "~ ^/r1", "~ ^/r0",
		// one's three longest prefixes share a block; two's /a/b, next in length, ends the run.
		`~ ^(?<rp_prefix>/c\+\+\(x\)\*|/a/bc|/v1\.0)(?:/|\z)`, `~ ^/a/b(?:/|\z)`,
		`~ ^/a(?:/|\z)`, `~ ^/b(?:/|\z)`,
		"/",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("locations (-want +got):\n%s", diff)
	}
}

// TestRenderWritesRewrites checks the directives a prefix's rewrite becomes, as nginx's
// tokenizer reads them; match_test proves what the upstream then receives.
func TestRenderWritesRewrites(t *testing.T) {
	srv := api.Server{Name: "one", Hostnames: []string{"shop.test"}, Locations: []api.Location{
		{Path: "/", Backend: "a", Rewrite: "/root"},
		{Path: "/v1.x/", Backend: "a", Rewrite: "/v2"},
	}}
	cfg := api.Config{Settings: api.DefaultSettings(), Backends: []api.Backend{{Name: "a"}}, Servers: []api.Server{srv}}
	conf, err := render.Conf(cfg, fuzzOptions)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := tokenize(string(conf))
	if err != nil {
		t.Fatalf("tokenize: %v\n%s", err, conf)
	}
	var got []string
	shop := false
	for _, s := range stmts {
		shop = shop || s.name == "server_name" && s.args[0] == "shop.test"
		if shop && (s.name == "location" || s.name == "rewrite" || s.name == "proxy_pass") {
			got = append(got, s.name+" "+strings.Join(s.args, " "))
		}
	}
	want := []string{
		`location ~ ^/v1\.x(?:/|\z)`,
		`rewrite (?s)^/v1\.x/(.*) /v2/$1 break`,
		`rewrite ^ /v2 break`,
		`proxy_pass http://restyplane_upstream`,
		`location /`,
		`proxy_pass http://restyplane_upstream/root/`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("directives (-want +got):\n%s", diff)
	}
}

func flatten(xs [][]string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, strings.Join(x, " "))
	}
	return out
}

func TestRenderRefuses(t *testing.T) {
	opts := func(f func(*render.Options)) render.Options {
		o := fuzzOptions
		f(&o)
		return o
	}
	noCert := renderConfig()
	noCert.Certificates = nil
	// A state api refuses, which nginx -t no longer would: a regex per prefix never
	// collides the way two equal plain locations did.
	twice := renderConfig()
	twice.Servers[1].Locations = append(twice.Servers[1].Locations, api.Location{Path: "/a/", Backend: "b"})
	badHeader := renderConfig()
	badHeader.Servers[0].Locations[0].SetHeaders = []api.Header{{Name: "X-A", Value: "$host"}}
	for _, c := range []struct {
		name string
		cfg  api.Config
		opts render.Options
	}{
		{"relative prefix", renderConfig(), opts(func(o *render.Options) { o.Prefix = "srv" })},
		{"prefix with a semicolon", renderConfig(), opts(func(o *render.Options) { o.Prefix = "/srv;x" })},
		{"generation with a space", renderConfig(), opts(func(o *render.Options) { o.Generation = "1 2" })},
		{"listen without a port", renderConfig(), opts(func(o *render.Options) { o.ProxyListen = "127.0.0.1" })},
		{"missing certificate", noCert, fuzzOptions},
		{"a prefix claimed by two servers of one hostname", twice, fuzzOptions},
		{"variable in a header", badHeader, fuzzOptions},
	} {
		if _, err := render.Conf(c.cfg, c.opts); err == nil {
			t.Errorf("%s: Render accepted it", c.name)
		}
	}
}

// TestRenderBuffersTheAccessLog: the access log is written in buffered chunks, not with
// a write per request. Workers share the log's open file, so an unbuffered write waits
// for the file's position lock and, whenever the log's writeback allocates blocks, for
// the inode's block map: stalls of tens of milliseconds for every request on the worker.
func TestRenderBuffersTheAccessLog(t *testing.T) {
	_, stmts := renderStatements(t)
	var logs [][]string
	for _, s := range stmts {
		if s.name == "access_log" && s.args[0] != "off" {
			logs = append(logs, s.args)
		}
	}
	if len(logs) != 1 {
		t.Fatalf("access_log directives that log: %q, want one", logs)
	}
	if got := strings.Join(logs[0][2:], " "); got != "buffer=64k flush=1s" {
		t.Fatalf("access_log %q: parameters %q, want buffer=64k flush=1s", logs[0], got)
	}
}
