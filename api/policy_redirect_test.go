package api

import (
	"strings"
	"testing"
)

// TestRedirectPartsValidate: a redirect has a URL or parts, never both; parts are a scheme
// of two, a concrete hostname, a port, and a whole path or, on a prefix location only, a
// prefix path; a full-path rewrite is a path beside neither a prefix rewrite nor an
// answer; mirrors name backends and shares of 1-100 of a location that proxies.
func TestRedirectPartsValidate(t *testing.T) {
	rd := func(r Redirect) *Redirect { return &r }
	for _, c := range []struct {
		name  string
		loc   Location
		field string // "" when valid
	}{
		{"url", Location{Redirect: rd(Redirect{URL: "https://a.test/x"})}, ""},
		{"all parts", Location{Redirect: rd(Redirect{Scheme: "https", Hostname: "a.test", Port: 8443, PrefixPath: "/new", Code: 308})}, ""},
		{"hostname only", Location{Redirect: rd(Redirect{Hostname: "a.test", Code: 301})}, ""},
		{"path only", Location{Redirect: rd(Redirect{Path: "/x", Code: 303})}, ""},
		{"code only: the request's own URL", Location{Redirect: rd(Redirect{Code: 303})}, ""},
		{"url and parts", Location{Redirect: rd(Redirect{URL: "/x", Scheme: "https"})}, "redirect.url"},
		{"scheme ftp", Location{Redirect: rd(Redirect{Scheme: "ftp"})}, "redirect.scheme"},
		{"hostname with $", Location{Redirect: rd(Redirect{Hostname: "$host"})}, "redirect.hostname"},
		{"wildcard hostname", Location{Redirect: rd(Redirect{Hostname: "*.a.test"})}, "redirect.hostname"},
		{"catch-all hostname", Location{Redirect: rd(Redirect{Hostname: "_"})}, "redirect.hostname"},
		{"uppercase hostname", Location{Redirect: rd(Redirect{Hostname: "A.test"})}, "redirect.hostname"},
		{"port 0 with a scheme", Location{Redirect: rd(Redirect{Scheme: "http", Port: 0})}, ""},
		{"port too large", Location{Redirect: rd(Redirect{Port: 65536})}, "redirect.port"},
		{"negative port", Location{Redirect: rd(Redirect{Port: -1})}, "redirect.port"},
		{"path with a quote", Location{Redirect: rd(Redirect{Path: `/a"b`})}, "redirect.path"},
		{"path with $", Location{Redirect: rd(Redirect{Path: "/$uri"})}, "redirect.path"},
		{"path and prefix path", Location{Redirect: rd(Redirect{Path: "/a", PrefixPath: "/b"})}, "redirect.prefixPath"},
		{"prefix path on exact", Location{Match: MatchExact, Redirect: rd(Redirect{PrefixPath: "/b"})}, "redirect.prefixPath"},
		{"prefix path not a path", Location{Redirect: rd(Redirect{PrefixPath: "b"})}, "redirect.prefixPath"},
		{"code 304", Location{Redirect: rd(Redirect{Path: "/b", Code: 304})}, "redirect.code"},
		{"rewriteFull", Location{Backend: "b", RewriteFull: "/one"}, ""},
		{"rewriteFull on regex", Location{Path: "^/a", Match: MatchRegex, Backend: "b", RewriteFull: "/one"}, ""},
		{"rewriteFull not a path", Location{Backend: "b", RewriteFull: "one"}, "rewriteFull"},
		{"rewriteFull with $", Location{Backend: "b", RewriteFull: "/$1"}, "rewriteFull"},
		{"rewriteFull and rewrite", Location{Backend: "b", RewriteFull: "/one", Rewrite: "/two"}, "rewriteFull"},
		{"rewriteFull and redirect", Location{RewriteFull: "/one", Redirect: rd(Redirect{Path: "/b"})}, "rewriteFull"},
		{"mirror", Location{Backend: "b", Mirror: []Mirror{{Backend: "m"}, {Backend: "n", Percent: 10}}}, ""},
		{"mirror backend name", Location{Backend: "b", Mirror: []Mirror{{Backend: "M!"}}}, "mirror[0].backend"},
		{"mirror percent", Location{Backend: "b", Mirror: []Mirror{{Backend: "m", Percent: 101}}}, "mirror[0].percent"},
		{"mirror of a redirect", Location{Redirect: rd(Redirect{Path: "/b"}), Mirror: []Mirror{{Backend: "m"}}}, "mirror"},
		{"too many mirrors", Location{Backend: "b", Mirror: make([]Mirror, MaxMirrors+1)}, "mirror"},
	} {
		if c.loc.Path == "" {
			c.loc.Path = "/p"
		}
		s := Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []Location{c.loc}}
		s.Normalize()
		err := s.Validate()
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v, want valid", c.name, err)
		case c.field != "" && (err == nil || !strings.Contains(err.Error(), "locations[0]."+c.field+":")):
			t.Errorf("%s: %v, want an error naming locations[0].%s", c.name, err, c.field)
		}
	}
}

// TestAnchoredRegex: a value regex matches the whole value, its alternatives as a whole.
func TestAnchoredRegex(t *testing.T) {
	for re, want := range map[string]string{`v[0-9]+`: `^v[0-9]+\z`, `a|b`: `^(?:a|b)\z`, `(a|b)c`: `^(a|b)c\z`} {
		if got := AnchoredRegex(re); got != want {
			t.Errorf("AnchoredRegex(%q) = %q, want %q", re, got, want)
		}
	}
}
