package api

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Redirect makes a location answer every request itself with a redirect, without a
// backend. It has two forms. URL, as ingress-nginx's permanent-redirect and
// temporal-redirect do: the URL is sent as it is, and the request's path is not appended.
// Or parts, as Gateway API's RequestRedirect does: any of Scheme, Hostname, Port, Path and
// PrefixPath (none at all is the request's own URL), and what is not given comes from the request (its scheme, the server name
// it matched, its path and query string; the port is the scheme's own when Scheme is
// given, else the port the request came in on; 80 for http and 443 for https are left
// out).
type Redirect struct {
	// URL is http(s)://host[:port][/path][?query], or a path on the same host (sent as
	// <scheme>://<Host header><path>). On a regex location an http(s) URL may name the
	// location's capture groups $1-$9 (ingress-nginx's rewrite-target to a URL); the
	// request's query is then kept, as nginx's rewrite to a URL keeps it. Empty in the
	// parts form.
	URL string `json:"url,omitempty" example:"https://shop.example.com/new"`
	// Scheme is http or https.
	Scheme string `json:"scheme,omitempty" enums:"http,https" example:"https"`
	// Hostname is a DNS name, without wildcards.
	Hostname string `json:"hostname,omitempty" example:"shop.example.com"`
	// Port is 1-65535.
	Port int `json:"port,omitempty" example:"8443"`
	// Path replaces the whole path; PrefixPath, on a prefix location, replaces the
	// matched prefix (Gateway API's ReplacePrefixMatch: prefix /a with /b sends /a/c to
	// /b/c). At most one of them.
	Path       string `json:"path,omitempty" example:"/new"`
	PrefixPath string `json:"prefixPath,omitempty" example:"/v2"`
	// Code is 301, 302, 303, 307 or 308; 302 if 0.
	Code int `json:"code,omitempty" enums:"301,302,303,307,308" example:"301"`
}

// validateRedirect checks a location's redirect, and that the location asks for nothing
// that a redirect would leave undone: the redirect answers before a rewrite, auth or CORS
// would run.
func (l *Location) validateRedirect() error {
	r := l.Redirect
	if r == nil {
		if l.Backend == "" && l.Return == nil && !l.Deny {
			return Invalid("backend", "a location needs a backend unless it redirects, returns or denies")
		}
		if l.Backend == "" {
			return nil
		}
		return ValidName("backend", l.Backend)
	}
	if l.Backend != "" {
		if err := ValidName("backend", l.Backend); err != nil {
			return err
		}
	}
	switch r.Code {
	case 0, 301, 302, 303, 307, 308:
	default:
		return Invalid("redirect.code", "code must be 301, 302, 303, 307 or 308")
	}
	if err := l.validateRedirectTarget(); err != nil {
		return err
	}
	switch {
	case l.Rewrite != "":
		return Invalid("rewrite", "a redirecting location answers every request itself; a rewrite does not apply")
	case l.Auth != nil:
		return Invalid("auth", "a redirecting location answers every request before auth would run; put auth on the target")
	case l.CORS != nil:
		return Invalid("cors", "a redirecting location answers every request itself; CORS does not apply")
	}
	return nil
}

// validateRedirectTarget checks the redirect's URL, or its parts: a redirect has one form.
func (l *Location) validateRedirectTarget() error {
	r := l.Redirect
	if !r.HasParts() {
		if strings.Contains(r.URL, "$") {
			return l.validCaptureRedirect()
		}
		return ValidRedirectURL("redirect.url", r.URL)
	}
	if r.URL != "" {
		return Invalid("redirect.url", "a redirect has a url or parts (scheme, hostname, port, path, prefixPath), not both")
	}
	switch r.Scheme {
	case "", "http", "https":
	default:
		return Invalid("redirect.scheme", "scheme must be http or https")
	}
	if r.Hostname != "" {
		if err := ValidHostname("redirect.hostname", r.Hostname); err != nil {
			return err
		}
		if r.Hostname == CatchAllHostname || strings.Contains(r.Hostname, "*") {
			return Invalid("redirect.hostname", "a redirect names one host: no wildcard and not the catch-all")
		}
	}
	if r.Port != 0 {
		if err := ValidPort("redirect.port", r.Port); err != nil {
			return err
		}
	}
	switch {
	case r.Path != "" && r.PrefixPath != "":
		return Invalid("redirect.prefixPath", "give path (the whole path) or prefixPath (the matched prefix), not both")
	case r.Path != "":
		return ValidPath("redirect.path", r.Path)
	case r.PrefixPath != "" && l.matchOrDefault() != MatchPrefix:
		return Invalid("redirect.prefixPath", "prefixPath replaces the matched prefix of a prefix location; this location matches %s", l.matchOrDefault())
	case r.PrefixPath != "":
		return ValidPath("redirect.prefixPath", r.PrefixPath)
	}
	return nil
}

// HasParts reports whether the redirect is in the parts form. A redirect without a URL
// is, even with no part given: Gateway API's RequestRedirect with only a status code
// sends the client to the request's own URL with that code.
func (r *Redirect) HasParts() bool {
	return r.URL == "" || r.Scheme != "" || r.Hostname != "" || r.Port != 0 || r.Path != "" || r.PrefixPath != ""
}

// ValidRedirectURL checks a redirect target: an absolute http(s) URL or a path, either
// with an optional query, in the URI grammar without '$', quotes, spaces, braces, ';' or
// '#'.
func ValidRedirectURL(field, s string) error {
	if strings.HasPrefix(s, "/") {
		path, q, _ := strings.Cut(s, "?")
		if err := ValidPath(field, path); err != nil {
			return err
		}
		if !signinQueryRe.MatchString(q) {
			return Invalid(field, "the query holds characters outside the URI grammar")
		}
		return nil
	}
	return ValidAuthURL(field, s, true)
}

// redirectCode is the code a redirect answers with.
func (r *Redirect) normalize() {
	if r != nil && r.Code == 0 {
		r.Code = 302
	}
}

// WWWPartner returns the name a www redirect answers for hostname: "www."+hostname, or
// hostname without its "www.". Wildcards and the catch-all have none.
func WWWPartner(hostname string) (string, bool) {
	if hostname == CatchAllHostname || strings.Contains(hostname, "*") {
		return "", false
	}
	if rest, ok := strings.CutPrefix(hostname, "www."); ok {
		if !strings.Contains(rest, ".") {
			return "", false // www.com's partner would be a top-level domain
		}
		return rest, true
	}
	return "www." + hostname, len(hostname)+4 <= 253
}

// validateRedirects checks a server's redirects (appRoot, forceSSLRedirect, wwwRedirect).
func (s *Server) validateRedirects() error {
	if s.AppRoot != "" {
		if err := ValidPath("appRoot", s.AppRoot); err != nil {
			return err
		}
		if s.AppRoot == "/" {
			return Invalid("appRoot", "appRoot / would redirect / to itself")
		}
	}
	if s.WWWRedirect {
		for _, h := range s.Hostnames {
			if _, ok := WWWPartner(h); ok {
				return nil
			}
		}
		return Invalid("wwwRedirect", "no hostname of the server has a www partner (wildcards and _ have none)")
	}
	return nil
}

// checkWWWPartners refuses a www redirect whose partner name another server names: that
// name is routed there, and is not this server's to redirect. A server written later
// that names the partner is not refused: a route beats a redirect, and the renderer then
// leaves that name out of the redirect.
func (s *State) checkWWWPartners(srv *Server) error {
	if !srv.WWWRedirect {
		return nil
	}
	partners := map[string]bool{}
	for _, h := range srv.Hostnames {
		if p, ok := WWWPartner(h); ok && !slices.Contains(srv.Hostnames, p) {
			partners[p] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Servers)) {
		other := s.Servers[name]
		if name == srv.Name {
			continue
		}
		for _, h := range other.Hostnames {
			if partners[h] {
				return &Error{Code: EConflict, Field: "wwwRedirect", Message: fmt.Sprintf(
					"hostname %q, which the www redirect would answer, is named by server %q", h, name)}
			}
		}
	}
	return nil
}
