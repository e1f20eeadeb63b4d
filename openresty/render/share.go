package render

import (
	"regexp"
	"slices"
	"strings"
)

// maxSharedArg bounds the quoted regex and the quoted route list of a shared block, with
// room to spare under the 4 KiB that nginx's tokenizer allows one argument.
const maxSharedArg = 2048

// shareBlocks renders prefix locations, already in nginx's order (longest prefix first),
// as location blocks. A run of neighbours that differ in nothing but path and backend
// shares one block, "^(?<rp_prefix>/a/b|/a)(?:/|\z)": PCRE takes the first alternative
// with which the whole regex matches, which is the longest prefix that follows the
// Ingress rule, exactly as the separate blocks in this order would. The block's
// $rp_routes names each prefix's backend, and the balancer picks the one for the prefix
// in $rp_prefix.
//
// Blocks are what a parse pays for: Debian's lua-nginx-module creates an OpenSSL context
// for every server and location block at every parse, about 0.12 ms each, and a reload
// parses twice (nginx -t, then the master). A thousand servers of five prefixes are
// 6,000 blocks apart and 2,000 shared (see BenchmarkLargeConfig).
func shareBlocks(prefixes []prefixView) []locationView {
	var out []locationView
	for i := 0; i < len(prefixes); {
		j := i + 1
		for j < len(prefixes) && shareable(prefixes[i].loc, prefixes[j].loc) && fits(shared(prefixes[i:j+1])) {
			j++
		}
		if j == i+1 {
			out = append(out, prefixes[i].loc)
		} else {
			out = append(out, shared(prefixes[i:j]))
		}
		i = j
	}
	return out
}

// shareable reports whether two prefix locations would render the same block but for
// their regex and backend. A rewrite names its own prefix, so it keeps its block.
func shareable(a, b locationView) bool {
	// An auth policy keeps its block too: its auth_request and headers are per location;
	// and so do access lists and limits, which the block names; so do CORS and a redirect,
	// which answer in the block itself, and proxy, retry and errors policies, whose
	// directives are per block, and a WAF, whose rules are, and mirrors.
	if a.Proxy != nil || b.Proxy != nil || a.Cache != nil || b.Cache != nil || a.Expires != "" || b.Expires != "" ||
		a.WAF != nil || b.WAF != nil || len(a.Mirrors)+len(b.Mirrors) > 0 {
		return false
	}
	// Header filters and fixed answers are per block too.
	if a.Return != nil || b.Return != nil || a.Deny || b.Deny ||
		len(a.RemoveHeaders)+len(b.RemoveHeaders)+len(a.AddHeaders)+len(b.AddHeaders)+
			len(a.HideHeaders)+len(b.HideHeaders)+len(a.ResponseAdd)+len(b.ResponseAdd) > 0 {
		return false
	}
	return a.Rewrite == nil && b.Rewrite == nil && a.Auth == nil && b.Auth == nil &&
		a.Policy == "" && b.Policy == "" && a.LimitRate == "" && b.LimitRate == "" && a.Server == b.Server && a.URI == b.URI &&
		a.CORS == "" && b.CORS == "" && a.Redirect == nil && b.Redirect == nil &&
		a.Connect == b.Connect && a.Send == b.Send && a.Read == b.Read && a.TimeoutFlags == b.TimeoutFlags &&
		slices.Equal(a.Headers, b.Headers) && a.Up == b.Up && a.Pass == b.Pass
}

// shared is the one block for a run of shareable prefix locations.
func shared(run []prefixView) locationView {
	alts := make([]string, len(run))
	routes := make([]string, len(run))
	for i, p := range run {
		// QuoteMeta escapes punctuation only, which PCRE reads as the literal character too.
		alts[i] = regexp.QuoteMeta(p.path)
		// Neither paths nor backend names hold spaces (api's grammar).
		routes[i] = p.path + " " + p.loc.Backend
	}
	loc := run[0].loc
	loc.Path = "^(?<rp_prefix>" + strings.Join(alts, "|") + `)(?:/|\z)`
	loc.Backend, loc.Routes = "", strings.Join(routes, " ")
	return loc
}

// fits reports whether the shared block's arguments stay within maxSharedArg once quoted.
func fits(loc locationView) bool {
	re, err1 := regexQuote(loc.Path)
	routes, err2 := quote(loc.Routes)
	return err1 == nil && err2 == nil && len(re) <= maxSharedArg && len(routes) <= maxSharedArg
}
