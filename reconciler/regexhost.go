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
func regexHost(locs []api.Location) []api.Location {
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
	out := make([]api.Location, 0, len(locs))
	for _, l := range locs {
		out = append(out, asRegex(l)...)
	}
	return out
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

// asRegex writes a prefix or exact location as the regexes that match the same paths:
// one, or two for a prefix that rewrites, whose rewrite replaced the prefix: the bare
// prefix becomes the rewrite as it is, and what follows "<prefix>/" is kept after it.
// \z, not $, since PCRE's $ also matches before a final newline, which a path may hold as
// %0A, and [\s\S] rather than . for the same newline.
func asRegex(l api.Location) []api.Location {
	trimmed := strings.TrimRight(l.Path, "/")
	quoted := regexp.QuoteMeta(trimmed)
	switch {
	case l.Match == api.MatchRegex:
		return []api.Location{l}
	case l.Match == api.MatchExact:
		l.Path = "^" + regexp.QuoteMeta(l.Path) + `\z`
	case l.Rewrite != "" && trimmed == "":
		l.Path, l.Rewrite = `^/([\s\S]*)`, withSlash(l.Rewrite)+"$1"
	case l.Rewrite != "":
		rest := l
		l.Path, l.Match = "^"+quoted+`\z`, api.MatchRegex
		rest.Path, rest.Match, rest.Rewrite = "^"+quoted+`/([\s\S]*)`, api.MatchRegex, withSlash(l.Rewrite)+"$1"
		return []api.Location{l, rest}
	case trimmed == "":
		l.Path = "^/"
	default:
		l.Path = "^" + quoted + `(?:/|\z)`
	}
	l.Match = api.MatchRegex
	return []api.Location{l}
}

// withSlash makes a prefix's rewrite end in "/" before what followed "<prefix>/": /foo/bar
// with rewrite /v2 becomes /v2/bar, not /v2bar.
func withSlash(rewrite string) string {
	if strings.HasSuffix(rewrite, "/") {
		return rewrite
	}
	return rewrite + "/"
}
