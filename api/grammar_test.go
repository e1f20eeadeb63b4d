package api

import (
	"strings"
	"testing"
)

func TestGrammars(t *testing.T) {
	tests := []struct {
		name  string
		check func(string, string) error
		value string
		ok    bool
	}{
		{"name", ValidName, "shop-api.v2", true},
		{"name upper", ValidName, "Shop", false},
		{"name semicolon", ValidName, "a;b", false},
		{"name brace", ValidName, "a}", false},
		{"name empty", ValidName, "", false},
		{"host", ValidHostname, "shop.example.com", true},
		{"host wildcard start", ValidHostname, "*.example.com", true},
		{"host wildcard end", ValidHostname, "www.example.*", true},
		{"host two wildcards", ValidHostname, "*.example.*", false},
		{"host inner wildcard", ValidHostname, "a.*.com", false},
		{"host space", ValidHostname, "a b.com", false},
		{"host semicolon", ValidHostname, "a.com;include", false},
		{"host newline", ValidHostname, "a.com\nlisten 1", false},
		{"host dollar", ValidHostname, "$host", false},
		{"address v4", ValidAddress, "10.0.0.1", true},
		{"address v6", ValidAddress, "::1", true},
		{"address dns", ValidAddress, "svc.ns.svc.cluster.local", true},
		{"address zone", ValidAddress, "fe80::1%eth0", false},
		{"address wildcard", ValidAddress, "*.x.com", false},
		{"address unix", ValidAddress, "unix:/tmp/x", false},
		{"path", ValidPath, "/api/v1", true},
		{"path percent", ValidPath, "/a%20b", true},
		{"path relative", ValidPath, "api", false},
		{"path space", ValidPath, "/a b", false},
		{"path quote", ValidPath, "/a\"", false},
		{"path single quote", ValidPath, "/a'b", false},
		{"path brace", ValidPath, "/a{", false},
		{"path hash", ValidPath, "/a#b", false},
		{"path dollar", ValidPath, "/$uri", false},
		{"path semicolon", ValidPath, "/a;b", false},
		{"regex", ValidRegex, `^/api/v[0-9]{1,3}/.*$`, true},
		{"regex escape", ValidRegex, `/files/.*\.png$`, true},
		{"regex end of subject", ValidRegex, `^/api(?:/|\z)`, true},
		{"regex other escape", ValidRegex, `/a\Z`, false},
		{"regex quote", ValidRegex, `/a"`, false},
		{"regex backslash quote", ValidRegex, `/a\"`, false},
		{"regex double backslash", ValidRegex, `/a\\`, false},
		{"regex trailing backslash", ValidRegex, `/a\`, false},
		{"regex unbalanced", ValidRegex, `/(a`, false},
		{"regex not rooted", ValidRegex, `.*`, false},
		{"duration", ValidDuration, "500ms", true},
		{"duration bare", ValidDuration, "5", false},
		{"duration semicolon", ValidDuration, "5s;", false},
		{"size", ValidSize, "10m", true},
		{"size g", ValidSize, "1g", false},
		{"header", ValidHeaderName, "X-Request-Id", true},
		{"header colon", ValidHeaderName, "X:Y", false},
		{"header value", ValidHeaderValue, "team checkout", true},
		{"header value dollar", ValidHeaderValue, "$remote_addr", false},
		{"header value newline", ValidHeaderValue, "a\nb", false},
		{"header value semicolon", ValidHeaderValue, "a; b", false},
		{"header value NUL", ValidHeaderValue, "a\x00", false},
		{"header value utf8", ValidHeaderValue, "caf\xc3\xa9", false},
		{"variable", ValidVariable, "$remote_addr", true},
		{"variable expr", ValidVariable, "$a$b", false},
		{"cookie", ValidCookieName, "route_id", true},
		{"cookie eq", ValidCookieName, "a=b", false},
		{"mime", ValidMIME, "application/json", true},
		{"mime semicolon", ValidMIME, "text/html;", false},
		{"text", func(f, s string) error { return ValidText(f, s, 100) }, "why:\tbecause\n", true},
		{"text invalid utf8", func(f, s string) error { return ValidText(f, s, 100) }, "\xff", false},
		{"text NUL", func(f, s string) error { return ValidText(f, s, 100) }, "a\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check("f", tt.value)
			if got := err == nil; got != tt.ok {
				t.Fatalf("%q: accepted = %v, want %v (%v)", tt.value, got, tt.ok, err)
			}
			if err != nil && (ErrorCode(err) != EInvalid || err.(*Error).Field != "f") {
				t.Fatalf("error %#v, want invalid on field f", err)
			}
		})
	}
}

func TestLongValuesAreRefused(t *testing.T) {
	long := "/" + strings.Repeat("a", 2000)
	if ValidPath("p", long) == nil || ValidRegex("p", long) == nil || ValidHeaderValue("h", long) == nil {
		t.Fatal("a 2000-character value was accepted")
	}
}

func TestServerValidateNamesTheField(t *testing.T) {
	s := Server{Name: "shop", Hostnames: []string{"shop.example.com"}, Locations: []Location{
		{Path: "/", Backend: "web"}, {Path: "/a;b", Backend: "web"}}}
	err := s.Validate()
	if got, want := err.(*Error).Field, "locations[1].path"; got != want {
		t.Fatalf("field = %q, want %q", got, want)
	}
	s.Locations[1] = Location{Path: "/", Backend: "web2"}
	if err := s.Validate(); err == nil {
		t.Fatal("two locations on one path accepted")
	}
}

func TestPrefixKeyFollowsIngressRule(t *testing.T) {
	a, b := Location{Path: "/foo"}, Location{Path: "/foo/"}
	if a.key() != b.key() {
		t.Fatalf("/foo and /foo/ claim different requests: %q vs %q", a.key(), b.key())
	}
	c := Location{Path: "/foo", Match: MatchExact}
	if a.key() == c.key() {
		t.Fatal("exact and prefix /foo share a key")
	}
}
