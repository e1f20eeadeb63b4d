package render

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// CORS and redirects (policies), as the template writes them.

// corsConf is a location's CORS policy as restyplane.cors reads it: origins are matched in
// Lua, by a table lookup for exact ones and a prefix, suffix and one-label check for
// wildcard ones, never by a regex made of users' text.
type corsConf struct {
	Any         bool            `json:"any,omitempty"`
	Exact       map[string]bool `json:"exact,omitempty"`
	Wild        []corsWildcard  `json:"wild,omitempty"`
	Methods     string          `json:"methods"`
	Headers     string          `json:"headers"`
	Expose      string          `json:"expose"`
	Credentials bool            `json:"credentials"`
	MaxAge      string          `json:"maxAge"`
	// Deep lets a wildcard take any number of labels; Refuse answers a preflight from an
	// origin not allowed 403 (Gateway API's rules).
	Deep   bool `json:"deep,omitempty"`
	Refuse bool `json:"refuse,omitempty"`
}

// corsWildcard is https://*.example.com[:port] split around its "*".
type corsWildcard struct {
	Prefix string `json:"prefix"`
	Suffix string `json:"suffix"`
}

// newCORSConf encodes a location's CORS policy as the JSON string the template hands to
// Lua (as a Lua string literal), or "" without one.
func newCORSConf(c *api.CORS) string {
	if c == nil {
		return ""
	}
	n := *c
	srv := api.Server{Locations: []api.Location{{CORS: &n}}}
	srv.Normalize() // defaults, on a copy: the config's objects are never changed
	n = *srv.Locations[0].CORS
	conf := corsConf{Methods: strings.Join(n.AllowMethods, ", "), Headers: strings.Join(n.AllowHeaders, ", "),
		Expose: strings.Join(n.ExposeHeaders, ", "), Credentials: *n.AllowCredentials, MaxAge: strconv.Itoa(n.MaxAge),
		Deep: n.Rules == api.CORSRulesGatewayAPI, Refuse: n.Rules == api.CORSRulesGatewayAPI}
	for _, o := range n.AllowOrigins {
		switch prefix, suffix, wild := strings.Cut(o, "*."); {
		case o == "*":
			conf.Any = true
		case wild:
			conf.Wild = append(conf.Wild, corsWildcard{Prefix: prefix, Suffix: "." + suffix})
		default:
			if conf.Exact == nil {
				conf.Exact = map[string]bool{}
			}
			conf.Exact[o] = true
		}
	}
	b, _ := json.Marshal(conf) // strings, bools and a map of strings: it cannot fail
	return string(b)
}

// redirectView is a location's redirect: an absolute URL is returned as it is; a path is
// set into $rp_redirect and returned after the request's scheme and Host, as ingress-nginx
// does, so that the Location names the host and port the client asked for.
// The parts form (see redirectparts.go) has a Target instead of a URL, which may need the
// port in PortFrom and a prefix path in Rest computed first.
type redirectView struct {
	Code     int
	URL      string
	Path     bool
	Target   string
	PortFrom string
	Rest     *restView
	// Captures: the URL names the regex location's groups ($1-$9), and the query is kept.
	Captures bool
}

func newRedirectView(l *api.Location) *redirectView {
	r := l.Redirect
	if r == nil {
		return nil
	}
	code := r.Code
	if code == 0 {
		code = 302
	}
	v := &redirectView{Code: code, URL: r.URL, Path: strings.HasPrefix(r.URL, "/"), Captures: strings.Contains(r.URL, "$")}
	if r.HasParts() {
		v.withParts(r, l)
	}
	return v
}

// wwwView is a server block that answers a www partner name with a 308 to its hostname.
type wwwView struct {
	Name, From, To         string
	TLS, CertFile, KeyFile string
	DefaultTLS             bool
}

// wwwRedirects makes the www redirect blocks of the servers that ask for one, for every
// partner name no server names itself: a route beats a redirect. Servers come sorted by
// name, so the first to ask for a partner answers it.
func wwwRedirects(servers []api.Server) []wwwView {
	named := map[string]bool{}
	for _, s := range servers {
		for _, h := range s.Hostnames {
			named[h] = true
		}
	}
	var out []wwwView
	for _, s := range servers {
		if !s.WWWRedirect {
			continue
		}
		for _, h := range s.Hostnames {
			p, ok := api.WWWPartner(h)
			if !ok || named[p] {
				continue
			}
			named[p] = true
			w := wwwView{Name: s.Name, From: p, To: h}
			if s.TLS != nil {
				w.TLS = s.TLS.Certificate
				w.CertFile, w.KeyFile = CertPaths(s.TLS.Certificate)
				if s.TLS.DefaultCertificate {
					w.TLS, w.DefaultTLS = defaultTLSName, true
				}
			}
			out = append(out, w)
		}
	}
	return out
}
