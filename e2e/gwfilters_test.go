package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestMirrorRedirectRewriteAndPortsThroughREST: set through REST, a mirror's backend gets
// a copy of each request (all of them, or about the share asked) while the client gets
// the main backend's answer; redirects by parts answer each code with a Location built
// from the parts and the request's own scheme, server name, port and URI; a full-path
// rewrite replaces the path and a prefix rewrite replaces the matched prefix, as Gateway
// API's URLRewrite does; a server on a port of its own serves there, and its port answers
// 404 for hosts no server there names. Bad values are a 400 naming the field.
func TestMirrorRedirectRewriteAndPortsThroughREST(t *testing.T) {
	in := start(t)
	web, shadow, sample, other := &recorder{name: "web"}, &recorder{name: "shadow"}, &recorder{name: "sample"}, &recorder{name: "other"}
	for _, rc := range []*recorder{web, shadow, sample, other} {
		in.must("POST", "/api/v1/backends", backend(rc.name, serveLoopback(t, rc)))
	}
	loc := func(path string, kv ...any) map[string]any {
		l := map[string]any{"path": path}
		for i := 0; i+1 < len(kv); i += 2 {
			l[kv[i].(string)] = kv[i+1]
		}
		return l
	}
	rd := func(code int, kv ...any) map[string]any {
		r := map[string]any{"code": code}
		for i := 0; i+1 < len(kv); i += 2 {
			r[kv[i].(string)] = kv[i+1]
		}
		return r
	}
	in.must("POST", "/api/v1/servers", server("gw", "gw.test",
		loc("/m", "backend", "web", "mirror", []any{map[string]any{"backend": "shadow"}}),
		loc("/sampled", "backend", "web", "mirror", []any{map[string]any{"backend": "sample", "percent": 10}}),
		loc("/scheme", "redirect", rd(301, "scheme", "https")),
		loc("/host", "redirect", rd(302, "hostname", "example.org")),
		loc("/port", "redirect", rd(303, "port", 8443)),
		loc("/path", "redirect", rd(307, "path", "/new")),
		loc("/prefix", "redirect", rd(308, "prefixPath", "/replaced", "hostname", "example.org", "scheme", "https", "port", 443)),
		loc("/prefix/one", "backend", "web", "rewrite", "/one"),
		loc("/prefix/two", "backend", "web", "rewrite", "/"),
		loc("/full", "backend", "web", "rewriteFull", "/one"),
		map[string]any{"path": "/exact", "match": "exact", "backend": "web", "rewriteFull": "/other"},
	))
	// The same, in a server whose locations have conditions, where they are named
	// locations: /prefix/one rewritten to /one, and to "/" for requests that ask.
	toRoot := map[string]any{"headers": []any{map[string]any{"name": "X-To-Root", "value": "yes"}}}
	in.must("POST", "/api/v1/servers", server("cond", "cond.test",
		loc("/prefix/one", "backend", "web", "rewrite", "/one"),
		loc("/prefix/one", "backend", "web", "rewrite", "/", "when", toRoot),
		loc("/m", "backend", "web", "mirror", []any{map[string]any{"backend": "shadow"}}, "when", toRoot),
		loc("/old", "redirect", rd(308, "prefixPath", "/new"), "when", toRoot),
	))
	port := rptest.FreePort(t)
	own := server("gw-own", "gw.test", location("/", "other"))
	own["port"] = port
	in.must("POST", "/api/v1/servers", own)
	in.waitSynced()
	addr, ownAddr := in.proxyAddr(), fmt.Sprintf("127.0.0.1:%d", port)
	_, proxyPort, _ := strings.Cut(addr, ":")

	// Mirrors: the client gets web's answer, the mirror the same request.
	resp, body := in.request(addr, "POST", "gw.test", "/m/a?b=1", "hello")
	if resp.StatusCode != 200 || body != "web /m/a?b=1" {
		t.Errorf("POST /m/a = %d %q, want web's answer", resp.StatusCode, body)
	}
	if got := shadow.waitRequests(t, 1); got[0] != "POST gw.test /m/a?b=1 hello" {
		t.Errorf("the mirror got %q, want the request's copy", got)
	}
	for i := 0; i < 400; i++ {
		in.request(addr, "GET", "gw.test", "/sampled/"+strconv.Itoa(i), "")
	}
	// 10% of 400: at least 5 and at most 120 copies but with a chance below 1e-9.
	sample.waitRequests(t, 5)
	if n := len(sample.requests()); n > 120 {
		t.Errorf("the 10%% mirror got %d copies of 400 requests", n)
	}

	// Redirects by parts; the request's own server name is the lowercased one it matched.
	for _, c := range []struct {
		host, path string
		code       int
		location   string
	}{
		{"GW.Test:" + proxyPort, "/scheme/a?x=1", 301, "https://gw.test/scheme/a?x=1"},
		{"GW.test:" + proxyPort, "/host/a%20b", 302, "http://example.org:" + proxyPort + "/host/a%20b"},
		{"gw.test", "/port", 303, "http://gw.test:8443/port"},
		{"gw.test", "/path/a?x=1", 307, "http://gw.test:" + proxyPort + "/new?x=1"},
		{"gw.test", "/prefix/a/b?x=1", 308, "https://example.org/replaced/a/b?x=1"},
		{"gw.test", "/prefix", 308, "https://example.org/replaced"},
	} {
		resp, _ := in.request(addr, "GET", c.host, c.path, "")
		if resp.StatusCode != c.code || resp.Header.Get("Location") != c.location {
			t.Errorf("GET %s%s = %d to %q, want %d to %q", c.host, c.path, resp.StatusCode, resp.Header.Get("Location"), c.code, c.location)
		}
	}

	// Rewrites: prefix /prefix/one to /one, and to "/"; the full path.
	for path, want := range map[string]string{
		"/prefix/one/two": "web /one/two", "/prefix/one": "web /one", "/prefix/two/x?y=1": "web /x?y=1",
		"/full/a/b?q=1": "web /one?q=1", "/exact?q=2": "web /other?q=2",
	} {
		if resp, body := in.request(addr, "GET", "gw.test", path, ""); resp.StatusCode != 200 || body != want {
			t.Errorf("GET %s = %d %q, want %q", path, resp.StatusCode, body, want)
		}
	}

	for _, c := range []struct {
		path, hdr, want string
	}{
		{"/prefix/one/two", "", "web /one/two"}, {"/prefix/one/two", "yes", "web /two"}, {"/prefix/one", "yes", "web /"},
		{"/m/named", "yes", "web /m/named"}, {"/old/a", "", ""},
	} {
		resp, body := in.request(addr, "GET", "cond.test", c.path, "", "X-To-Root", c.hdr)
		if c.want == "" && resp.StatusCode != 404 || c.want != "" && body != c.want {
			t.Errorf("GET cond.test%s (X-To-Root %q) = %d %q, want %q", c.path, c.hdr, resp.StatusCode, body, c.want)
		}
	}
	if got := shadow.waitRequests(t, 2); got[1] != "GET cond.test /m/named" {
		t.Errorf("the mirror of a named location got %q", got)
	}
	if resp, _ := in.request(addr, "GET", "cond.test", "/old/a/b?c=1", "", "X-To-Root", "yes"); resp.StatusCode != 308 ||
		resp.Header.Get("Location") != "http://cond.test:"+proxyPort+"/new/a/b?c=1" {
		t.Errorf("GET cond.test/old/a/b = %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	// A server on its own port; the port answers 404 for other hosts.
	for _, c := range []struct{ addr, host, want string }{
		{ownAddr, "gw.test", "other /x"}, {ownAddr, "nobody.test", ""}, {addr, "gw.test", ""},
	} {
		resp, body := in.request(c.addr, "GET", c.host, "/x", "")
		if c.want == "" && resp.StatusCode != 404 || c.want != "" && body != c.want {
			t.Errorf("GET %s/x on %s = %d %q, want %q", c.host, c.addr, resp.StatusCode, body, c.want)
		}
	}

	bad := func(l map[string]any) map[string]any { return server("bad", "bad.test", l) }
	for field, srv := range map[string]map[string]any{
		"locations[0].redirect.scheme":     bad(loc("/", "redirect", rd(302, "scheme", "ftp"))),
		"locations[0].redirect.hostname":   bad(loc("/", "redirect", rd(302, "hostname", "*.example.org"))),
		"locations[0].redirect.port":       bad(loc("/", "redirect", rd(302, "port", 70000))),
		"locations[0].redirect.code":       bad(loc("/", "redirect", rd(304, "path", "/x"))),
		"locations[0].redirect.prefixPath": bad(loc("/", "match", "exact", "redirect", rd(302, "prefixPath", "/x"))),
		"locations[0].redirect.url":        bad(loc("/", "redirect", rd(302, "url", "/x", "path", "/y"))),
		"locations[0].rewriteFull":         bad(loc("/", "backend", "web", "rewriteFull", "x")),
		"locations[0].mirror[0].percent":   bad(loc("/", "backend", "web", "mirror", []any{map[string]any{"backend": "shadow", "percent": 101}})),
		"locations[0].mirror[0].backend":   bad(loc("/", "backend", "web", "mirror", []any{map[string]any{"backend": "nobody"}})),
		"port":                             map[string]any{"name": "bad", "hostnames": []string{"bad.test"}, "port": 70000, "locations": []any{location("/", "web")}},
	} {
		in.badServer(t, srv, field)
	}
}
