package openresty_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty"
)

// sharedBlocks renders srv and returns each of its location blocks as the regex, the
// backend and the route list that nginx's tokenizer reads.
func sharedBlocks(t *testing.T, srv api.Server) [][3]string {
	t.Helper()
	cfg := api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv}}
	for _, n := range []string{"x", "y", "z"} {
		cfg.Backends = append(cfg.Backends, api.Backend{Name: n})
	}
	conf, err := openresty.Render(cfg, fuzzOptions)
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

// TestSharedBlockRoutesAndLogs sends requests through a real nginx to prefixes that share
// a block and checks that each reaches its own backend and is logged under it.
func TestSharedBlockRoutesAndLogs(t *testing.T) {
	names := []string{"a", "ab", "abx", "dots"}
	var backends []api.Backend
	for _, n := range names {
		backends = append(backends, backend(n, startUpstream(t, n, 0)))
	}
	srv := api.Server{Name: "shop", Hostnames: []string{"shop.test"}, Locations: []api.Location{
		{Path: "/a", Backend: "a"}, {Path: "/a/b", Backend: "ab"}, {Path: "/a/bx/", Backend: "abx"},
		{Path: "/v1.0", Backend: "dots"},
	}}
	in := startNginx(t, config(backends, srv))
	push(t, in, 2, backends...)
	cases := []struct{ path, want string }{
		{"/a", "a"}, {"/a/b", "ab"}, {"/a/b/c", "ab"}, {"/a/bx", "abx"}, {"/a/bxy", "a"},
		{"/a/c", "a"}, {"/v1.0/x", "dots"}, {"/v1x0", ""}, {"/ab", ""},
	}
	for _, c := range cases {
		got := get(t, proxyAddr(in), "shop.test", c.path)
		if wantStatus := map[bool]int{true: 200, false: 404}[c.want != ""]; got.status != wantStatus || got.upstream != c.want {
			t.Errorf("GET %s = %d from %q, want %d from %q", c.path, got.status, got.upstream, wantStatus, c.want)
		}
	}
	// nginx writes the access log line after the answer; look until every request is there.
	logged := map[string]string{}
	eventually(t, "every request in the access log", 5*time.Second, func() bool {
		logged = accessLog(t, in)
		return len(logged) == len(cases)
	})
	for _, c := range cases {
		if logged[c.path] != c.want {
			t.Errorf("access log names backend %q for %s, want %q", logged[c.path], c.path, c.want)
		}
	}
}

// accessLog reads the instance's access log: the backend logged for each URI.
func accessLog(t *testing.T, in *openresty.Instance) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(in.Options().Prefix, "logs", "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		var line struct{ URI, Backend string }
		if err := json.Unmarshal(s.Bytes(), &line); err != nil {
			t.Fatalf("access log line %q: %v", s.Text(), err)
		}
		out[line.URI] = line.Backend
	}
	return out
}
