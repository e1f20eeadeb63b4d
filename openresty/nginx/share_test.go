package nginx_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

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
func accessLog(t *testing.T, in *nginx.Instance) map[string]string {
	t.Helper()
	f, err := os.Open(in.Options().RenderOptions("").Workers().AccessLog())
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
