package api

import (
	"fmt"
	"regexp"
	"strings"
)

// Location match types. Prefix follows the Kubernetes Ingress rule: /foo matches /foo,
// /foo/ and /foo/bar, never /foobar.
const (
	MatchPrefix = "prefix"
	MatchExact  = "exact"
	MatchRegex  = "regex"
)

// Limits on one server.
const (
	MaxHostnames  = 100
	MaxLocations  = 200
	MaxSetHeaders = 20
)

// Server is a virtual host: the hostnames it answers, its TLS certificate and its locations.
// Changing a server needs an nginx reload. A server names at least one hostname: one that
// is to answer every Host no server names says so with CatchAllHostname, as an Ingress
// rule without a host does, rather than by naming none.
type Server struct {
	Name      string     `json:"name" example:"shop"`
	Hostnames []string   `json:"hostnames" example:"shop.example.com,*.shop.example.com"`
	TLS       *ServerTLS `json:"tls,omitempty"`
	// ClientTLS (policies) verifies client certificates; see policy_clienttls.go.
	ClientTLS *ClientTLS `json:"clientTLS,omitempty"`
	// Passthrough (policies) hands the server's TLS connections to a backend without
	// terminating them; see policy_passthrough.go.
	Passthrough *Passthrough `json:"passthrough,omitempty"`
	// WAF (policies) is the web application firewall of every location that has none of
	// its own; see policy_waf.go.
	WAF       *WAF       `json:"waf,omitempty"`
	Locations []Location `json:"locations"`
	// Port is the plain-HTTP port the server listens on, as a Gateway listener's port; 0
	// is the instance's own (its --proxy-listen). Servers may share a hostname on
	// different ports, each serving its own locations there.
	Port int `json:"port,omitempty" example:"8080"`
	// Address is the IP address the server listens on, on its ports (Port, TLS.Port, or
	// the instance's own port numbers when 0): a Gateway's own address. Empty is the
	// instance's own listen address. Servers may share a hostname at different addresses,
	// each serving its own locations there; one with an address has neither the www
	// redirect nor passthrough, which answer on the instance's own sockets.
	Address string `json:"address,omitempty" example:"192.0.2.10"`
	// Redirects (policies), see policy_redirect.go. ForceSSLRedirect sends
	// plain-HTTP requests to HTTPS with a 308 even without a certificate of its own (TLS
	// ended before restyplane); AppRoot redirects a request for "/" there with a 302;
	// WWWRedirect answers the www partner of each hostname (www.example.com for
	// example.com, and the reverse) with a 308 to the hostname, when no server names it.
	ForceSSLRedirect bool   `json:"forceSSLRedirect,omitempty"`
	AppRoot          string `json:"appRoot,omitempty" example:"/app"`
	WWWRedirect      bool   `json:"wwwRedirect,omitempty"`
	Source           Source `json:"source"`
	// Version is the revision that last changed this server; it is its ETag.
	Version int64 `json:"version,omitempty" readonly:"true"`
}

// ServerTLS names the certificate a server presents.
type ServerTLS struct {
	// Certificate names the certificate presented; empty with DefaultCertificate.
	Certificate string `json:"certificate,omitempty" example:"shop-tls"`
	// DefaultCertificate presents the proxy's own self-signed certificate instead, as
	// ingress-nginx does for a TLS entry without a secretName: for a proxy behind a load
	// balancer that terminates TLS for clients, or to have HTTPS and the redirect before
	// the real certificate is there.
	DefaultCertificate bool `json:"defaultCertificate,omitempty"`
	// Redirect sends plain-HTTP requests to HTTPS with a 308.
	Redirect bool `json:"redirect,omitempty"`
	// Port is the HTTPS port the server listens on; 0 is the instance's own (its
	// --tls-listen).
	Port int `json:"port,omitempty" example:"8443"`
}

// Location routes requests whose path matches to a backend.
type Location struct {
	Path  string `json:"path" example:"/api"`
	Match string `json:"match,omitempty" enums:"prefix,exact,regex" example:"prefix"`
	// When restricts the location to requests that also match these conditions (Gateway
	// API's method, header and query parameter matches). Several locations of a server may
	// share a path and match type when their When differ (and at most one has no When).
	When *RequestMatch `json:"when,omitempty"`
	// Backend is required unless the location redirects.
	Backend string `json:"backend,omitempty" example:"shop-api"`
	// Rewrite changes the path before proxying; the query string is kept. On a prefix
	// location it replaces the matched prefix ("/" strips it); on a regex location it
	// replaces the whole path, and $1-$9 in it are the regex's capture groups
	// ("^/api(/|$)(.*)" with "/$2" sends /api/users as /users).
	Rewrite string `json:"rewrite,omitempty" example:"/"`
	// RewriteFull replaces the whole path before proxying (Gateway API's ReplaceFullPath);
	// the query string is kept.
	RewriteFull string    `json:"rewriteFull,omitempty" example:"/v2/items"`
	Timeouts    *Timeouts `json:"timeouts,omitempty"`
	SetHeaders  []Header  `json:"setHeaders,omitempty"`
	// Mirror sends a copy of each request to these backends; their answers are discarded.
	Mirror []Mirror `json:"mirror,omitempty"`
	// Auth (policies): basic and external auth; see policy_auth.go.
	Auth *LocationAuth `json:"auth,omitempty"`
	// Proxy, Retry and Errors (policies): bodies and buffering, retries on
	// another endpoint, and error answers from another backend; see policy_proxy.go.
	Proxy  *ProxyPolicy  `json:"proxy,omitempty"`
	Retry  *RetryPolicy  `json:"retry,omitempty"`
	Errors *ErrorsPolicy `json:"errors,omitempty"`
	// UpstreamHost is the Host header sent upstream instead of the request's (policies);
	// forwardedPrefix is sent as X-Forwarded-Prefix. See policy_upstream.go.
	UpstreamHost    string `json:"upstreamHost,omitempty" example:"api.internal"`
	ForwardedPrefix string `json:"forwardedPrefix,omitempty" example:"/shop"`
	// Access (policies): allow and deny lists of client addresses; see
	// policy_access.go.
	Access *AccessPolicy `json:"access,omitempty"`
	// Limits (policies): rate, connection and bandwidth limits per client
	// address; see policy_limits.go.
	Limits *LocationLimits `json:"limits,omitempty"`
	// CORS and Redirect (policies): see policy_cors.go and policy_redirect.go.
	CORS     *CORS     `json:"cors,omitempty"`
	Redirect *Redirect `json:"redirect,omitempty"`
	// RequestHeaders and ResponseHeaders set, add and remove headers of the request to the
	// backend and of the answer; see policy_headers.go.
	RequestHeaders  *HeaderFilter `json:"requestHeaders,omitempty"`
	ResponseHeaders *HeaderFilter `json:"responseHeaders,omitempty"`
	// Return answers every request with a fixed status and body, and Deny with 403,
	// without a backend; see policy_return.go.
	Return *Return `json:"return,omitempty"`
	Deny   bool    `json:"deny,omitempty"`
	// Cache keeps the upstream's answers in the response cache, and Expires sets the
	// Expires and Cache-Control headers of the answers; see policy_cache.go.
	Cache   *CachePolicy `json:"cache,omitempty"`
	Expires string       `json:"expires,omitempty" example:"30d"`
	// WAF (policies) inspects the location's requests with a web application firewall;
	// see policy_waf.go.
	WAF *WAF `json:"waf,omitempty"`
}

// Header is a request header that a location sets on the proxied request.
type Header struct {
	Name  string `json:"name" example:"X-Team"`
	Value string `json:"value" example:"checkout"`
}

// Validate checks the server on its own; references to backends and certificates, and
// host+path uniqueness across servers, are checked by Config.Check.
func (s *Server) Validate() error {
	if err := ValidName("name", s.Name); err != nil {
		return err
	}
	if len(s.Hostnames) == 0 || len(s.Hostnames) > MaxHostnames {
		return Invalid("hostnames", "a server needs 1-%d hostnames (%q is the catch-all: every Host no server names)", MaxHostnames, CatchAllHostname)
	}
	hosts := map[string]bool{}
	for i, h := range s.Hostnames {
		f := fmt.Sprintf("hostnames[%d]", i)
		if err := ValidHostname(f, h); err != nil {
			return err
		}
		if hosts[h] {
			return Invalid(f, "hostname %q is listed twice", h)
		}
		hosts[h] = true
	}
	if s.TLS != nil {
		switch {
		case s.TLS.DefaultCertificate && s.TLS.Certificate != "":
			return Invalid("tls.certificate", "a certificate and defaultCertificate exclude each other")
		case !s.TLS.DefaultCertificate:
			if err := ValidName("tls.certificate", s.TLS.Certificate); err != nil {
				return err
			}
		}
	}
	if len(s.Locations) > MaxLocations {
		return Invalid("locations", "at most %d locations", MaxLocations)
	}
	paths := map[string]bool{}
	for i, l := range s.Locations {
		f := fmt.Sprintf("locations[%d]", i)
		if err := l.validate(); err != nil {
			return prefixed(f, err)
		}
		if key := l.key(); paths[key] {
			return Invalid(f+".path", "%s path %q%s is claimed twice in this server", l.matchOrDefault(), l.Path, l.whenSuffix())
		} else {
			paths[key] = true
		}
	}
	if err := s.validateClientTLS(); err != nil {
		return err
	}
	if err := s.validatePassthrough(); err != nil {
		return err
	}
	if err := s.WAF.validate("waf"); err != nil {
		return err
	}
	if err := s.validateRedirects(); err != nil { // policies
		return err
	}
	if err := s.validatePorts(); err != nil {
		return err
	}
	return s.Source.validate()
}

// Normalize fills defaults so that equal intent gives equal bytes in the history.
func (s *Server) Normalize() {
	for i := range s.Locations {
		if s.Locations[i].Match == "" {
			s.Locations[i].Match = MatchPrefix
		}
		s.Locations[i].CORS.normalize()     // policies
		s.Locations[i].Redirect.normalize() // policies
		s.Locations[i].WAF.normalize()
	}
	s.WAF.normalize()
	if s.Source.Kind == "" {
		s.Source.Kind = SourceAPI
	}
	s.ClientTLS.normalize()
}

func (l *Location) matchOrDefault() string {
	if l.Match == "" {
		return MatchPrefix
	}
	return l.Match
}

// key identifies what a location claims within a host. A prefix "/foo/" claims the same
// requests as "/foo" under the Ingress rule, so both reduce to one key; the conditions of
// When, in their canonical form, are part of it.
func (l *Location) key() string {
	m := l.matchOrDefault()
	p := l.Path
	if m == MatchPrefix && len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	if w := l.When.Key(); w != "" {
		return m + " " + p + " " + w
	}
	return m + " " + p
}

// whenSuffix says, in an error message, that the location has conditions.
func (l *Location) whenSuffix() string {
	if l.When == nil {
		return ""
	}
	return " with the same when"
}

func (l *Location) validate() error {
	switch l.matchOrDefault() {
	case MatchPrefix, MatchExact:
		if err := ValidPath("path", l.Path); err != nil {
			return err
		}
	case MatchRegex:
		if err := ValidRegex("path", l.Path); err != nil {
			return err
		}
	default:
		return Invalid("match", "must be prefix, exact or regex")
	}
	if err := l.When.validate(); err != nil {
		return err
	}
	// Policies: the backend is optional for a redirect.
	if err := l.validateRedirect(); err != nil {
		return err
	}
	if err := l.validateRewriteFull(); err != nil {
		return err
	}
	if err := l.validateMirror(); err != nil {
		return err
	}
	if err := l.CORS.validate(); err != nil {
		return err
	}
	if err := l.validateAnswer(); err != nil {
		return err
	}
	if err := l.validateHeaders(); err != nil {
		return err
	}
	if err := l.validateCache(); err != nil {
		return err
	}
	if err := l.validateExpires(); err != nil {
		return err
	}
	switch {
	case l.Rewrite == "":
	case l.matchOrDefault() == MatchPrefix:
		if err := ValidPath("rewrite", l.Rewrite); err != nil {
			return err
		}
	case l.Match == MatchRegex:
		if err := ValidRegexRewrite("rewrite", l.Rewrite, l.Path); err != nil {
			return err
		}
	default:
		return Invalid("rewrite", "rewrite applies to prefix and regex locations only")
	}
	if err := l.Timeouts.validate(); err != nil {
		return prefixed("timeouts", err)
	}
	if len(l.SetHeaders) > MaxSetHeaders {
		return Invalid("setHeaders", "at most %d headers", MaxSetHeaders)
	}
	for i, h := range l.SetHeaders {
		f := fmt.Sprintf("setHeaders[%d]", i)
		if err := ValidHeaderName(f+".name", h.Name); err != nil {
			return err
		}
		if err := ValidHeaderValue(f+".value", h.Value); err != nil {
			return err
		}
	}
	// Policies: access by address, limits, auth, upstream host and prefix,
	// then proxy, retry and errors.
	if err := l.Access.validate(); err != nil {
		return err
	}
	if err := l.Limits.validate(); err != nil {
		return err
	}
	if err := l.WAF.validate("waf"); err != nil {
		return err
	}
	if err := l.validateAuth(); err != nil {
		return err
	}
	if err := l.validateUpstream(); err != nil {
		return err
	}
	return l.validateProxy()
}

// regexChars are the characters a regex location may use. The renderer writes the regex in
// double quotes, so braces are safe; quotes, whitespace, ';' and '#' are not admitted.
var regexChars = regexp.MustCompile(`^[A-Za-z0-9._~!&()*+,=:@%/^$|?\[\]{}\\-]+$`)

// ValidRegex checks a regex location path: a restricted character set, a backslash only
// before a character it escapes in a regex (never before one nginx's parser would
// translate), starting with "/" or "^/", compilable, and of star height 1 at most, so that
// no request path makes PCRE backtrack exponentially.
func ValidRegex(field, s string) error {
	if len(s) > 1024 || !regexChars.MatchString(s) {
		return Invalid(field, "regex may hold letters, digits and regex punctuation only (no spaces, quotes, ';' or '#'), at most 1024")
	}
	if !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "^/") {
		return Invalid(field, "regex must start with / or ^/")
	}
	return regexSafe(field, s)
}

// regexSafe checks a regex of regexChars: a backslash only before a character it escapes
// in a regex, compilable, of star height 1 at most and unambiguous.
func regexSafe(field, s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if i+1 == len(s) || !strings.ContainsRune(`.^$|?*+()[]{}/-dwsDWSbz`, rune(s[i+1])) {
			return Invalid(field, "a backslash may only escape regex punctuation or start \\d \\w \\s \\b \\z")
		}
		i++
	}
	if _, err := regexp.Compile(s); err != nil {
		return Invalid(field, "regex does not compile: %v", err)
	}
	if h := starHeight(s); h > 1 {
		return Invalid(field, "regex has nested unbounded quantifiers, %d deep, as (a+)+ does: PCRE backtracks exponentially on such a regex, so at most one level of *, + or {n,} is allowed", h)
	}
	if repeatsFlagGroup(s) {
		return Invalid(field, "a quantifier follows a group that only sets flags, as in (?i)+: PCRE does not compile it; put the flags inside a group, (?i:a)+")
	}
	if why := ambiguity(s); why != "" {
		return Invalid(field, "regex is ambiguous: %s", why)
	}
	return nil
}
