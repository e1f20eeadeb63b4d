package openresty

import (
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
	Redirect               bool
	Locations              []locationView
	// CatchAll adds "location / { return 404; }" when no location covers "/", so that
	// nginx never falls back to serving files from its html directory.
	CatchAll bool
}

// locationView is one nginx location block.
type locationView struct {
	Modifier string // "=", "~" or "" (prefix)
	Path     string
	Server   string
	Backend  string
	// URI, when set, is the URI part of proxy_pass that replaces the matched prefix.
	URI            string
	Connect, Send  string
	Read           string
	TimeoutFlags   string
	Headers        []api.Header
	DefaultHeaders []defaultHeader
}

// defaultHeader is a proxy_set_header the template writes as it is: the values are nginx
// variables chosen here, never user input.
type defaultHeader struct{ Name, Value string }

var defaultHeaders = []defaultHeader{
	{"Host", "$host"},
	{"X-Real-IP", "$remote_addr"},
	{"X-Forwarded-For", "$proxy_add_x_forwarded_for"},
	{"X-Forwarded-Proto", "$scheme"},
	{"X-Forwarded-Host", "$host"},
	{"X-Forwarded-Port", "$server_port"},
	{"Upgrade", "$http_upgrade"},
	{"Connection", "$rp_connection"},
}

func newServerView(servers []*api.Server, hostnames []string) serverView {
	sv := serverView{Name: servers[0].Name, Hostnames: hostnames, CatchAll: true}
	for _, s := range servers {
		if s.TLS != nil && sv.TLS == "" {
			sv.TLS, sv.Redirect = s.TLS.Certificate, s.TLS.Redirect
			sv.CertFile, sv.KeyFile = certPaths(s.TLS.Certificate)
		}
	}
	// An exact location and a prefix location may both claim "= /foo"; the exact one
	// wins and the prefix keeps only its "/foo/" half.
	exact := map[string]bool{}
	for _, s := range servers {
		for _, l := range s.Locations {
			if l.Match == api.MatchExact {
				exact[l.Path] = true
			}
		}
	}
	for _, s := range servers {
		for _, l := range s.Locations {
			base := locationView{Server: s.Name, Backend: l.Backend, Headers: l.SetHeaders,
				DefaultHeaders: headersWithout(l.SetHeaders)}
			if t := l.Timeouts; t != nil {
				base.Connect, base.Send, base.Read = t.Connect, t.Send, t.Read
				base.TimeoutFlags = timeoutFlags(t)
			}
			switch l.Match {
			case api.MatchExact:
				sv.Locations = append(sv.Locations, with(base, "=", l.Path, ""))
			case api.MatchRegex:
				sv.Locations = append(sv.Locations, with(base, "~", l.Path, ""))
			default:
				sv.Locations = append(sv.Locations, prefixLocations(base, l, exact)...)
				if strings.TrimRight(l.Path, "/") == "" {
					sv.CatchAll = false
				}
			}
		}
	}
	return sv
}

// prefixLocations implements the Kubernetes Ingress prefix rule: /foo matches /foo, /foo/
// and /foo/bar but never /foobar, so it becomes "location = /foo" plus "location /foo/".
// The plain prefix form (not ^~) lets regex locations take precedence, as they do in
// nginx: exact first, then regexes in order, then the longest prefix.
func prefixLocations(base locationView, l api.Location, exact map[string]bool) []locationView {
	trimmed := strings.TrimRight(l.Path, "/")
	if trimmed == "" {
		return []locationView{with(base, "", "/", withSlash(l.Rewrite))}
	}
	var out []locationView
	if !exact[trimmed] {
		out = append(out, with(base, "=", trimmed, l.Rewrite))
	}
	return append(out, with(base, "", trimmed+"/", withSlash(l.Rewrite)))
}

func with(base locationView, modifier, path, uri string) locationView {
	base.Modifier, base.Path, base.URI = modifier, path, uri
	return base
}

// withSlash makes a rewrite target end in "/" for the "/foo/" location, whose matched part
// ends in "/": /foo/bar with rewrite /v2 must become /v2/bar, not /v2bar.
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
func headersWithout(set []api.Header) []defaultHeader {
	var out []defaultHeader
	for _, d := range defaultHeaders {
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
