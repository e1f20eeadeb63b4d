package render

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// upstreamName is the one upstream every location proxies to; its balancer_by_lua picks
// the peer from the backend the location names in $rp_backend.
const upstreamName = "restyplane_upstream"

// serverView is one nginx server block.
type serverView struct {
	// Name is the api server that request counters are kept under for requests that no
	// location of its own answers (the TLS redirect, the 404 catch-all).
	Name      string
	Hostnames []string
	// TLS is the certificate name; CertFile and KeyFile are relative to the conf.
	TLS, CertFile, KeyFile string
	// DefaultTLS presents the proxy's default certificate: no certificate is served from
	// the shared dict, and TLS is only a name for the conf's reader.
	DefaultTLS bool
	Redirect   bool
	Locations  []locationView
	// CatchAll answers 404, by a server-level try_files, when no location covers "/", so
	// that nginx never falls back to serving files from its html directory. It is not a
	// "location /" block: the Lua module creates an OpenSSL context for every block at
	// every parse, and a thousand servers would pay for a thousand more.
	CatchAll bool
	// AuthLocations are the internal locations of the block's external auths.
	AuthLocations []*extAuthView
	// ErrorLocations are the named locations of the block's error pages.
	ErrorLocations []errorPage
	// ClientTLS is the block's client certificate verification, nil without.
	ClientTLS *clientTLSView
	// AppRoot is where a request for "/" is redirected, "" for none.
	AppRoot string
	// Default makes the block nginx's default_server, on HTTP and HTTPS: it holds the
	// catch-all hostname, so it answers every Host (or none) that no block names.
	Default bool
	// Dispatch, from 1, is the block's route table among the conf's: its locations have
	// conditions, and are named locations restyplane.match chooses from (see route.go).
	Dispatch int
	route    *routeTable
	// MirrorLocations are the internal locations of the block's mirrors.
	MirrorLocations []mirrorView
	// Port and TLSPort are the block's own ports, 0 for the instance's (see ports.go);
	// Listens, when it has any, are its listen directives, and OwnDefault makes it the
	// default server of its own ports. HTTPSPort is where its HTTPS redirect goes.
	Port, TLSPort, HTTPSPort int
	// Address is the block's own address (api.Server.Address), "" for the instance's.
	Address    string
	Listens    []listenView
	OwnDefault bool
}

// locationView is one nginx location block.
type locationView struct {
	Modifier string // "=", "~" or "" (prefix)
	Path     string // for "~", the regex
	Server   string
	// Backend is the backend of the location; a block that prefixes share (see
	// shareBlocks) leaves it empty and lists "<prefix> <backend>" pairs in Routes.
	Backend string
	Routes  string
	// URI, when set, is the URI part of proxy_pass that replaces the matched prefix; only
	// the root location "/" uses it, since nginx forbids it in regex locations.
	URI string
	// Rewrite, when set, replaces the matched prefix of a regex-rendered prefix location.
	Rewrite        *rewriteView
	Connect, Send  string
	Read           string
	TimeoutFlags   string
	Headers        []api.Header
	DefaultHeaders []defaultHeader
	// ClientHeaders are the ssl-client-* headers of the block's client verification.
	ClientHeaders []defaultHeader
	// Auth is the location's auth policy, nil without one.
	Auth *authView
	// Proxy is the location's body, retry and errors policy, nil without one.
	Proxy *proxyView
	// Up is how the backend is spoken to; Mod is "proxy" or "grpc", the
	// module whose directives the block uses, and Pass the URL of its *_pass.
	Up        upstreamView
	Mod, Pass string
	// Policy names the location's access lists and limits, which the access
	// phase looks up in shared memory; empty without them.
	Policy string
	// Connections says that the policy limits concurrent requests, whose count a log
	// phase lets out when each request ends. The conf holds only whether it does, so a
	// new limit is a push, and a limit where there was none (or none left) a reload.
	Connections bool
	// LimitRate and LimitRateAfter are the answer's bandwidth limit.
	LimitRate, LimitRateAfter string
	// CORS is the JSON of the location's CORS policy for restyplane.cors, "" without one;
	// Redirect makes the location answer with a redirect instead of proxying.
	CORS     string
	Redirect *redirectView
	// RemoveHeaders and AddHeaders are request headers not sent and added to (Headers
	// holds the ones set); HideHeaders are the upstream's answer headers dropped and
	// ResponseAdd those added to every answer. Return and Deny answer in the location.
	RemoveHeaders []string
	AddHeaders    []headerAdd
	HideHeaders   []string
	ResponseAdd   []api.Header
	Return        *returnView
	Deny          bool
	// Cache is the location's response cache, nil without; Expires its expires.
	Cache   *cacheView
	Expires string
	// WAF is the location's web application firewall, nil without one.
	WAF *wafView
	// Mirrors are the internal locations that copy the location's requests.
	Mirrors []string
}

// rewriteView is a prefix location's rewrite as two rewrite directives: RestRe captures
// what follows "<prefix>/" and RestTo is written before the capture; the bare prefix,
// which is all that RestRe leaves, becomes Exact. A regex location's rewrite is one
// directive instead: Regex, the location's own, so that its captures are the ones the
// location matched, and To, the replacement with its $1-$9.
type rewriteView struct {
	RestRe, RestTo, Exact string
	Regex, To             string
	// Full replaces the whole path (a location's rewriteFull).
	Full string
}

// defaultHeader is a proxy_set_header every location sends unless it sets the header
// itself. The template writes the name and value as they are, nginx variables chosen
// here, unless Quote says they are settings' proxySetHeaders, which it quotes.
type defaultHeader struct {
	Name, Value string
	Quote       bool
}

// defaultHeaders are the headers sent upstream without useForwardedHeaders or
// proxySetHeaders: the X-Forwarded-* headers say what the proxy sees, whatever the
// client sent in them.
var defaultHeaders = []defaultHeader{
	{Name: "Host", Value: "$rp_host"},
	{Name: "X-Real-IP", Value: "$remote_addr"},
	{Name: "X-Forwarded-For", Value: "$remote_addr"},
	{Name: "X-Forwarded-Proto", Value: "$scheme"},
	{Name: "X-Forwarded-Host", Value: "$host"},
	{Name: "X-Forwarded-Port", Value: "$server_port"},
	{Name: "Upgrade", Value: "$http_upgrade"},
	{Name: "Connection", Value: "$rp_connection"},
}

// newServerView makes one server block of the api servers that share its hostnames. nginx
// tries exact locations first, then regex locations in the order they are written, then
// the longest plain prefix; so the block lists exact locations, the users' regexes in
// their order, the prefix locations as regexes from the longest prefix down (neighbours
// that differ only in their backend sharing a block), and last the root "/", which stays
// a plain prefix that any regex overrides.
func newServerView(servers []*api.Server, hostnames []string, ups map[string]upstreamView, defs []defaultHeader) (serverView, error) {
	sv := serverView{Name: servers[0].Name, Hostnames: hostnames, CatchAll: true, Port: servers[0].Port, Address: servers[0].Address}
	for _, s := range servers {
		if s.TLS != nil && sv.TLS != "" && s.TLS.Port != sv.TLSPort {
			return serverView{}, fmt.Errorf("servers %q and %q share hostnames %v on one port with different HTTPS ports", sv.Name, s.Name, hostnames)
		}
		if s.TLS != nil && sv.TLS == "" {
			sv.TLS, sv.Redirect, sv.TLSPort = s.TLS.Certificate, s.TLS.Redirect, s.TLS.Port
			sv.CertFile, sv.KeyFile = CertPaths(s.TLS.Certificate)
			if s.TLS.DefaultCertificate {
				// newConfView names the default certificate's files, which live in the
				// prefix, not beside the conf.
				sv.TLS, sv.DefaultTLS = defaultTLSName, true
			}
		}
	}
	ct, err := newClientTLSView(servers, hostnames)
	if err != nil {
		return serverView{}, err
	}
	if ct != nil {
		sv.ClientTLS = ct
		sv.Redirect = sv.Redirect || ct.Redirect
	}
	// Redirects: forceSSLRedirect redirects with or without a certificate of
	// the block's own; the first server (by name) with an appRoot sets it.
	for _, s := range servers {
		sv.Redirect = sv.Redirect || s.ForceSSLRedirect
		if sv.AppRoot == "" {
			sv.AppRoot = s.AppRoot
		}
	}
	var exact, regex, root, named []locationView
	var prefixes []prefixView
	if hasWhen(servers) {
		sv.route, sv.CatchAll = &routeTable{}, false
	}
	for _, s := range servers {
		for i, l := range s.Locations {
			base := locationView{Server: s.Name, Backend: l.Backend, Headers: l.SetHeaders,
				DefaultHeaders: headersWithout(defs, l.SetHeaders), Auth: newAuthView(l.Auth),
				CORS: newCORSConf(l.CORS), Redirect: newRedirectView(&l), Proxy: newProxyView(l)}
			if l.Redirect == nil && l.Return == nil && !l.Deny { // a location that answers itself inspects nothing
				base.WAF = newWAFView(s.EffectiveWAF(&l)) // policies
			}
			withUpstream(&base, &l, ups[l.Backend])
			withHeaderFilters(&base, &l)
			if base.Cache, err = newCacheView(s.Name, &l); err != nil {
				return serverView{}, err
			}
			if base.Cache != nil && base.Mod != "proxy" {
				return serverView{}, fmt.Errorf("location %q caches, and its backend %q speaks gRPC, whose answers nginx does not cache", l.Path, l.Backend)
			}
			base.Expires = l.Expires
			if ct != nil {
				base.ClientHeaders = ct.Headers
			}
			if hasPolicy(&l) {
				base.Policy = policyName(s.Name, i)
				base.Connections = l.Limits != nil && l.Limits.Connections > 0
			}
			if l.Limits != nil {
				base.LimitRate, base.LimitRateAfter = l.Limits.Rate, l.Limits.RateAfter
			}
			if t := l.Timeouts; t != nil {
				base.Connect, base.Send, base.Read = t.Connect, t.Send, t.Read
				base.TimeoutFlags = timeoutFlags(t)
			}
			if l.RewriteFull != "" {
				base.Rewrite = &rewriteView{Full: l.RewriteFull}
			}
			if err := sv.withMirrors(&base, &l, ups, defs); err != nil {
				return serverView{}, err
			}
			if sv.route != nil {
				name := routeName(len(named))
				named = append(named, namedLocation(base, &l, name))
				sv.route.add(&l, name)
				continue
			}
			switch trimmed := strings.TrimRight(l.Path, "/"); {
			case l.Match == api.MatchExact:
				exact = append(exact, with(base, "=", l.Path))
			case l.Match == api.MatchRegex:
				if l.Rewrite != "" {
					base.Rewrite = &rewriteView{Regex: l.Path, To: l.Rewrite}
				}
				regex = append(regex, with(base, "~", l.Path))
			case trimmed == "":
				base.URI = withSlash(l.Rewrite)
				rootURI(&base)
				root = append(root, with(base, "", "/"))
				sv.CatchAll = false
			default:
				prefixes = append(prefixes, prefixView{trimmed, prefixLocation(base, trimmed, l.Rewrite)})
			}
		}
	}
	sort.Slice(prefixes, func(i, j int) bool {
		a, b := prefixes[i], prefixes[j]
		if len(a.path) != len(b.path) {
			return len(a.path) > len(b.path)
		}
		if a.path != b.path {
			return a.path < b.path
		}
		return a.loc.Server < b.loc.Server
	})
	for i, p := range prefixes {
		// Two servers claiming one prefix would pass nginx -t, the first regex silently
		// winning; api refuses such a state, as nginx did two equal plain locations.
		if i > 0 && prefixes[i-1].path == p.path {
			return serverView{}, fmt.Errorf("prefix %q is claimed twice for hostnames %v (servers %q and %q)",
				p.path, hostnames, prefixes[i-1].loc.Server, p.loc.Server)
		}
	}
	regex = append(regex, shareBlocks(prefixes)...)
	sv.Locations = append(append(exact, regex...), root...)
	if sv.route != nil {
		sv.Locations = named
		if err := sv.route.order(); err != nil {
			return serverView{}, err
		}
	}
	return sv, nil
}

// prefixView is a non-root prefix location with the path it is sorted by.
type prefixView struct {
	path string
	loc  locationView
}

// prefixLocation implements the Kubernetes Ingress prefix rule, /foo matching /foo, /foo/
// and /foo/bar but never /foobar, as one regex location "^/foo(?:/|\z)". One block
// instead of "= /foo" plus "/foo/" halves the blocks a prefix costs (see shareBlocks for
// why blocks count). \z, not $, since PCRE's $ also matches before a final newline, which
// a path may hold as %0A. The rewrite reproduces what proxy_pass's URI part did for the
// two plain blocks: /foo becomes the rewrite as it is, and /foo/rest becomes the rewrite
// with a "/" ensured, then rest; the query string is kept.
func prefixLocation(base locationView, trimmed, rewrite string) locationView {
	// QuoteMeta escapes punctuation only, which PCRE reads as the literal character too.
	quoted := regexp.QuoteMeta(trimmed)
	if rewrite != "" {
		// (?s) lets the capture cross a newline, which a path may hold as %0A.
		base.Rewrite = &rewriteView{RestRe: "(?s)^" + quoted + "/(.*)", RestTo: withSlash(rewrite), Exact: rewrite}
	}
	return with(base, "~", "^"+quoted+`(?:/|\z)`)
}

func with(base locationView, modifier, path string) locationView {
	base.Modifier, base.Path = modifier, path
	return base
}

// withSlash makes a rewrite target end in "/" where the matched part ends in "/": /foo/bar
// with rewrite /v2 must become /v2/bar, not /v2bar.
func withSlash(rewrite string) string {
	if rewrite == "" || strings.HasSuffix(rewrite, "/") {
		return rewrite
	}
	return rewrite + "/"
}

// timeoutFlags tells the balancer which timeouts the location set, so that a backend's
// own timeouts apply only to the others: location over backend over global settings.
func timeoutFlags(t *api.Timeouts) string {
	var f string
	if t.Connect != "" {
		f += "c"
	}
	if t.Send != "" {
		f += "s"
	}
	if t.Read != "" {
		f += "r"
	}
	return f
}

// headersWithout drops the default headers a location sets itself, so that nginx never
// sends two of them.
func headersWithout(defs []defaultHeader, set []api.Header) []defaultHeader {
	var out []defaultHeader
	for _, d := range defs {
		overridden := false
		for _, h := range set {
			overridden = overridden || strings.EqualFold(h.Name, d.Name)
		}
		if !overridden {
			out = append(out, d)
		}
	}
	return out
}
