package api

import "testing"

func TestValidRegexRefusesAmbiguousRepetition(t *testing.T) {
	for _, re := range []string{
		`^/(a|a)*$`, `^/(\w|\d)*$`, `^/(a|aa)+$`, `^/(a?)*$`, `^/(a?b?a)+c$`, `^/(x|[a-z])+$`,
		`^/.*.*x$`, `^/\w+\d+x$`, `^/(.*)/(.*)x$`, `^/(a|a){20}$`, `^/b{1,3}(a|b)*ba?[^/](a|b)*a/aax$`, `^/a*a?a?a?a[^/]?x$`, `^/a?a?a?a?a?a?a?x$`, `^/a*([^/]*|)x$`, `^/(((){1,3}){1,3}){1,3}x$`, `^/x*[^/]?a*[^/]?(((/|$)))x$`, `^/(?i)(A|a)+$`, `^/([[:alpha:]]|b)+$`,
		`^/(?:a|(?:a))*$`, `^/([^/]|x)+$`,
	} {
		if err := ValidRegex("path", re); err == nil {
			t.Errorf("ValidRegex(%q) = nil, want an error", re)
		}
	}
	// What real Ingresses carry, and other regexes a backtracking engine runs in linear time.
	for _, re := range []string{
		`/api(/|$)(.*)`, `/(.*)`, `/.*`, `^/static/.*\.(js|css)$`, `/v1/(.+)/(.+)`, `^/(.*)/(.*)$`,
		`^/api/([^/]+)/items/([^/]+)$`, `/?(.*)`, `/api/users/?(.*)`, `^/(a|b)+$`, `/(ab){1,3}`,
		`^/users/[0-9]+$`, `/something(/|$)(.*)`, `^/(api|web)/v[0-9]+/.*$`, `/[a-z]+-[0-9]+`, `^/(ab?)+c$`, `^/(a|bc)*$`, `/api/?(.*)`, `^/a*a?x$`,
		`^/v[0-9]+(\.[0-9]+)?\z`, // \z, like $, matches no character
	} {
		if err := ValidRegex("path", re); err != nil {
			t.Errorf("ValidRegex(%q) = %v, want nil", re, err)
		}
	}
}
