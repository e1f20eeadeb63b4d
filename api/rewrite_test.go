package api

import (
	"strings"
	"testing"
)

// TestRegexRewriteValidate: a regex location's rewrite is a path of literal characters and
// $1-$9 naming capture groups the regex has; nothing else nginx would expand.
func TestRegexRewriteValidate(t *testing.T) {
	for _, c := range []struct {
		path, rewrite string
		ok            bool
		why           string
	}{
		{`^/api(/|$)(.*)`, "/$2", true, ""},
		{`^/thanos(/|$)(.*)`, "/thanos/$2", true, ""},
		{`^/app/(.*)`, "/$1", true, ""},
		{`^/(?:x|y)/(v[0-9])/(.*)`, "/$2/$1", true, ""},
		{`^/a/(.*)`, "/", true, ""},
		{`^/a/(.*)`, "/b/$10", true, ""}, // nginx reads $1 and a literal 0
		{`^/api(/|$)(.*)`, "/$3", false, "names $3 but the path has 2 capture groups"},
		{`^/api/(?:x|y)`, "/$1", false, "names $1 but the path has 0 capture groups"},
		{`^/a/(.*)`, "/$0", false, "$1-$9"},
		{`^/a/(.*)`, "/$host", false, "$1-$9"},
		{`^/a/(.*)`, "/${1}", false, "$1-$9"},
		{`^/a/(.*)`, "$1", false, "start with /"},
		{`^/a/(.*)`, "https://x/$1", false, "start with /"},
		{`^/a/(.*)`, "/a?b=$1", false, "$1-$9"},
		{`^/a/(.*)`, "/a b", false, "$1-$9"},
		{`^/a/(.*)`, `/a";return 200 "`, false, "$1-$9"},
	} {
		s := Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []Location{{Path: c.path, Match: MatchRegex, Backend: "b", Rewrite: c.rewrite}}}
		err := s.Validate()
		if (err == nil) != c.ok {
			t.Errorf("path %q rewrite %q: %v, want ok %t", c.path, c.rewrite, err, c.ok)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), c.why) {
			t.Errorf("path %q rewrite %q: %v, want it to say %q", c.path, c.rewrite, err, c.why)
		}
		if err != nil && !strings.Contains(err.Error(), "locations[0].rewrite") {
			t.Errorf("path %q rewrite %q: %v does not name the field", c.path, c.rewrite, err)
		}
	}
	exact := Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []Location{{Path: "/a", Match: MatchExact, Backend: "b", Rewrite: "/b"}}}
	if err := exact.Validate(); err == nil {
		t.Fatal("an exact location with a rewrite is valid, want an error")
	}
}

// TestCaptureRedirect: a redirect URL names capture groups on a regex location only,
// absolute, with no '$' but $1-$9 and no group the regex lacks.
func TestCaptureRedirect(t *testing.T) {
	for _, c := range []struct {
		path, match, url string
		ok               bool
	}{
		{"^/(.*)", MatchRegex, "https://new.example.gov.uk/$1", true},
		{"^/a/(.*)/(x|y)", MatchRegex, "http://new.test:8080/$2/$1?from=$1", true},
		{"/old", MatchPrefix, "https://new.test/$1", false},
		{"^/(.*)", MatchRegex, "https://new.test/$2", false},
		{"^/(.*)", MatchRegex, "https://$host/$1", false},
		{"^/(.*)", MatchRegex, "/new/$1", false},
		{"^/(.*)", MatchRegex, "https://new.test/$1 x", false},
		{"^/(.*)", MatchRegex, "https://new.test/$1\"; return 200 \"", false},
	} {
		l := Location{Path: c.path, Match: c.match, Backend: "b", Redirect: &Redirect{URL: c.url}}
		s := Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []Location{l}}
		s.Normalize()
		if err := s.Validate(); (err == nil) != c.ok {
			t.Errorf("%s %s redirect %q: %v, want ok %t", c.match, c.path, c.url, err, c.ok)
		}
	}
}
