package reconciler

import (
	"regexp"
	"sort"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// ingress-nginx writes every location of a host as a regex once one Ingress of the host
// asks for regexes, and nginx tries regexes in the order they are written, taking the
// first that matches; so it orders a host's paths longest first ("/api/users/?(.*)" before
// "/?(.*)"). regexHost does the same for one host's locations: it makes each of them a
// regex and orders them so, and the renderer keeps that order. ingress-nginx's regexes
// are case-insensitive and its Prefix paths become bare "^/path" regexes (so "/api" takes
// "/apiary"); restyplane stays case-sensitive and writes a Prefix path of an Ingress
// without use-regex as the Kubernetes prefix rule, "/api" matching "/api" and "/api/x"
// only, as its Exact paths match only themselves.
func regexHost(locs []api.Location) {
	sort.SliceStable(locs, func(i, j int) bool {
		a, b := ingressPath(locs[i]), ingressPath(locs[j])
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		if a != b {
			return a > b
		}
		return locs[i].Match < locs[j].Match
	})
	for i := range locs {
		asRegex(&locs[i])
	}
}

// hasRegex reports whether one of the locations is a regex.
func hasRegex(locs []api.Location) bool {
	for _, l := range locs {
		if l.Match == api.MatchRegex {
			return true
		}
	}
	return false
}

// ingressPath is the path a location was written with in its Ingress, which ingress-nginx
// orders by: a use-regex path without the "^" that anchoredRegex added.
func ingressPath(l api.Location) string {
	if l.Match == api.MatchRegex {
		return strings.TrimPrefix(l.Path, "^")
	}
	return l.Path
}

// asRegex writes a prefix or exact location as the regex that matches the same paths.
// \z, not $, since PCRE's $ also matches before a final newline, which a path may hold
// as %0A. A prefix location that rewrites stays a prefix: its rewrite replaces the
// matched prefix, which a regex location's rewrite does not express.
func asRegex(l *api.Location) {
	switch {
	case l.Match == api.MatchExact:
		l.Path = "^" + regexp.QuoteMeta(l.Path) + `\z`
	case l.Match != api.MatchPrefix || l.Rewrite != "":
		return
	case strings.TrimRight(l.Path, "/") == "":
		l.Path = "^/"
	default:
		l.Path = "^" + regexp.QuoteMeta(strings.TrimRight(l.Path, "/")) + `(?:/|\z)`
	}
	l.Match = api.MatchRegex
}
