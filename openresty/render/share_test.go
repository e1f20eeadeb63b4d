package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// sharedBlocks renders srv and returns each of its location blocks as the regex, the
// backend and the route list that nginx's tokenizer reads.
func sharedBlocks(t *testing.T, srv api.Server) [][3]string {
	t.Helper()
	cfg := api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv}}
	for _, n := range []string{"x", "y", "z"} {
		cfg.Backends = append(cfg.Backends, api.Backend{Name: n})
	}
	conf, err := render.Conf(cfg, fuzzOptions)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := tokenize(string(conf))
	if err != nil {
		t.Fatalf("tokenize: %v", err)
	}
	var out [][3]string
	inServer := false
	for _, s := range stmts {
		switch {
		case s.name == "server_name":
			inServer = s.args[0] == srv.Hostnames[0]
		case !inServer:
		case s.name == "location":
			out = append(out, [3]string{s.args[len(s.args)-1]})
		case s.name == "set" && s.args[0] == "$rp_backend" && len(out) > 0:
			out[len(out)-1][1] = s.args[1]
		case s.name == "set" && s.args[0] == "$rp_routes" && len(out) > 0:
			out[len(out)-1][2] = s.args[1]
		}
	}
	return out
}

// TestRenderSharesPrefixBlocks checks which prefix locations share a block: neighbours in
// nginx's order that differ in nothing but path and backend.
func TestRenderSharesPrefixBlocks(t *testing.T) {
	loc := func(path, backend string) api.Location { return api.Location{Path: path, Backend: backend} }
	read := &api.Timeouts{Read: "5s"}
	srv := api.Server{Name: "shop", Hostnames: []string{"shop.test"}, Locations: []api.Location{
		loc("/a", "x"), loc("/b/", "y"), loc("/a/b", "z"),
		{Path: "/c", Backend: "x", SetHeaders: []api.Header{{Name: "X-Team", Value: "c"}}},
		{Path: "/d", Backend: "y", Rewrite: "/"}, {Path: "/dd", Backend: "y"},
		{Path: "/e", Backend: "z", Timeouts: read}, {Path: "/f", Backend: "x", Timeouts: read},
		loc("/g", "x"), {Path: "/h", Match: api.MatchExact, Backend: "y"}, loc("/", "y"),
	}}
	want := [][3]string{
		{"/h", "y", ""},
		// Longest first: /a/b, /dd, then the prefixes of two characters by path.
		{`^(?<rp_prefix>/a/b|/dd|/a|/b)(?:/|\z)`, "", "/a/b z /dd y /a x /b y"},
		{`^/c(?:/|\z)`, "x", ""}, // a header of its own
		{`^/d(?:/|\z)`, "y", ""}, // a rewrite
		{`^(?<rp_prefix>/e|/f)(?:/|\z)`, "", "/e z /f x"},
		{`^/g(?:/|\z)`, "x", ""}, // not /f's timeouts
		{"/", "y", ""},
	}
	if diff := cmp.Diff(want, sharedBlocks(t, srv)); diff != "" {
		t.Fatalf("blocks (-want +got):\n%s", diff)
	}
}

// TestRenderSplitsLongSharedBlocks checks that a shared block's arguments stay far under
// the 4 KiB nginx's tokenizer takes, and that the blocks still hold every prefix in order.
func TestRenderSplitsLongSharedBlocks(t *testing.T) {
	srv := api.Server{Name: "shop", Hostnames: []string{"shop.test"}}
	var wantRoutes []string
	for i := 0; i < api.MaxLocations; i++ {
		p := fmt.Sprintf("/%03d.%s", i, strings.Repeat("a.b", 40)) // dots double once quoted for PCRE
		srv.Locations = append(srv.Locations, api.Location{Path: p, Backend: "x"})
		wantRoutes = append(wantRoutes, p+" x")
	}
	blocks := sharedBlocks(t, srv)
	var gotRoutes []string
	for _, b := range blocks {
		if len(b[0]) > 2048 || len(b[2]) > 2048 {
			t.Errorf("a block's regex is %d bytes and its routes %d, want at most 2048 each", len(b[0]), len(b[2]))
		}
		gotRoutes = append(gotRoutes, splitRoutes(b[2])...)
	}
	if len(blocks) < 10 || len(blocks) > 40 {
		t.Errorf("%d prefixes of ~130 bytes made %d blocks, want 10-40", len(srv.Locations), len(blocks))
	}
	// Equal lengths sort by path, which is the order they were made in.
	if diff := cmp.Diff(wantRoutes, gotRoutes); diff != "" {
		t.Fatalf("routes (-want +got):\n%s", diff)
	}
}

func splitRoutes(list string) []string {
	f := strings.Fields(list)
	var out []string
	for i := 0; i+1 < len(f); i += 2 {
		out = append(out, f[i]+" "+f[i+1])
	}
	return out
}
