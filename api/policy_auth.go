package api

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// LocationAuth is who may pass a location: users of an htpasswd object (basic auth), an
// external auth service asked by a subrequest, or both, when both must agree.
type LocationAuth struct {
	Basic    *BasicAuth    `json:"basic,omitempty"`
	External *ExternalAuth `json:"external,omitempty"`
}

// BasicAuth asks for a user of an htpasswd object; a request without valid credentials is
// answered 401 with WWW-Authenticate: Basic realm="<Realm>".
type BasicAuth struct {
	// Htpasswd names the htpasswd object that holds the users.
	Htpasswd string `json:"htpasswd" example:"shop-admins"`
	// Realm is shown by browsers in the login prompt; "Authentication Required" if empty.
	Realm string `json:"realm,omitempty" example:"shop admin"`
}

// ExternalAuth asks an auth service by a subrequest before every request, as nginx's
// auth_request does: a 2xx lets the request through, 401 and 403 are returned to the
// client (401 redirects to Signin when set), anything else is a 500.
type ExternalAuth struct {
	// URL is the auth service: http or https, a host, an optional port, path and query.
	// The path and query may name the variables of AuthVariables ($host, $scheme,
	// $escaped_request_uri…); the host may not (ValidExternalAuthURL).
	URL string `json:"url" example:"http://auth.internal:8080/verify?rd=$escaped_request_uri"`
	// Method is the subrequest's method, GET if empty.
	Method string `json:"method,omitempty" enums:"GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS" example:"GET"`
	// Signin, when set, turns a 401 into a 302 to it, with rd=<the original URL> added
	// unless its query already has an rd parameter. It may name the variables of
	// AuthVariables, its host too ($host, $http_host or $best_http_host).
	Signin string `json:"signin,omitempty" example:"https://$host/oauth2/start?rd=$escaped_request_uri"`
	// ResponseHeaders are headers of the auth service's answer passed to the upstream.
	ResponseHeaders []string `json:"responseHeaders,omitempty" example:"X-User"`
	// RequestRedirect is sent to the auth service as X-Auth-Request-Redirect; the
	// original request URI if empty.
	RequestRedirect string `json:"requestRedirect,omitempty"`
	// RequestHeaders are set on the subrequest to the auth service, replacing the proxy's
	// own header of the same name (X-Forwarded-For, X-Forwarded-Host…); values may name
	// HeaderVariables, such as $request_method or $request_uri (see AuthRequestHeaders).
	RequestHeaders []Header `json:"requestHeaders,omitempty"`
}

// MaxAuthResponseHeaders bounds the headers an external auth passes upstream.
const MaxAuthResponseHeaders = 16

var (
	// authURLRe keeps the auth URL to scheme, host, port and path: proxy_pass expands
	// variables, and the grammar (with quote's refusal of '$') keeps users' text literal.
	authURLRe = regexp.MustCompile(`^(https?)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?(/[A-Za-z0-9._~!&()*+,=:@%/-]*)?$`)
	// signinQueryRe is the query a sign-in URL may carry; it reaches Lua only, as a string.
	signinQueryRe = regexp.MustCompile(`^[A-Za-z0-9._~!&()*+,=:@%/?-]*$`)
)

// ValidAuthURL checks an auth service or sign-in URL: http or https, an IP literal or DNS
// name, an optional port and path; a query only where query is set.
func ValidAuthURL(field, s string, query bool) error {
	if len(s) > 2048 {
		return Invalid(field, "URL must be at most 2048 characters")
	}
	base, q, hasQuery := strings.Cut(s, "?")
	if hasQuery && (!query || !signinQueryRe.MatchString(q)) {
		return Invalid(field, "URL may not carry a query here, or its query holds characters outside the URI grammar")
	}
	m := authURLRe.FindStringSubmatch(base)
	if m == nil {
		return Invalid(field, "URL must be http(s)://host[:port][/path] with URI path characters only (no '$', spaces, quotes, braces or ';')")
	}
	if err := ValidAddress(field, strings.Trim(m[2], "[]")); err != nil {
		return err
	}
	if m[3] != "" {
		if p, _ := strconv.Atoi(m[3]); ValidPort(field, p) != nil {
			return Invalid(field, "URL port must be 1-65535")
		}
	}
	return nil
}

// proxyHeaders are the request headers every location sets itself (openresty's default
// headers) and the framing headers: an auth answer may not set them too, or the upstream
// would get two Host headers, say, one of them chosen by the auth service.
var proxyHeaders = []string{"Host", "X-Real-IP", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host",
	"X-Forwarded-Port", "Upgrade", "Connection", "Content-Length", "Transfer-Encoding"}

// validateAuth checks the location's auth, and that the headers its external auth passes
// upstream are neither set by the location itself nor by the proxy.
func (l *Location) validateAuth() error {
	if err := l.Auth.validate(); err != nil {
		return err
	}
	if l.Auth == nil || l.Auth.External == nil {
		return nil
	}
	for i, h := range l.Auth.External.ResponseHeaders {
		f := fmt.Sprintf("auth.external.responseHeaders[%d]", i)
		for _, p := range proxyHeaders {
			if strings.EqualFold(h, p) {
				return Invalid(f, "%s is set by the proxy; an auth answer may not replace it", p)
			}
		}
		for _, s := range l.SetHeaders {
			if strings.EqualFold(h, s.Name) {
				return Invalid(f, "%s is also in setHeaders; a header is passed from one of them only", h)
			}
		}
	}
	return nil
}

func (a *LocationAuth) validate() error {
	if a == nil {
		return nil
	}
	if a.Basic == nil && a.External == nil {
		return Invalid("auth", "auth needs basic, external or both")
	}
	if b := a.Basic; b != nil {
		if err := ValidName("auth.basic.htpasswd", b.Htpasswd); err != nil {
			return err
		}
		if err := ValidHeaderValue("auth.basic.realm", b.Realm); err != nil || len(b.Realm) > 128 {
			return Invalid("auth.basic.realm", "realm must be at most 128 printable characters without quotes, backslashes, '$', braces, ';' or '#'")
		}
	}
	if e := a.External; e != nil {
		if a.Basic != nil && e.Signin != "" {
			return Invalid("auth.external.signin", "a sign-in redirect cannot go with basic auth: a missing password would redirect to the sign-in page instead of asking for it")
		}
		return e.validate()
	}
	return nil
}

func (e *ExternalAuth) validate() error {
	if err := ValidExternalAuthURL("auth.external.url", e.URL); err != nil {
		return err
	}
	switch e.Method {
	case "", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
	default:
		return Invalid("auth.external.method", "method must be GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS")
	}
	if e.Signin != "" {
		if err := ValidSigninURL("auth.external.signin", e.Signin); err != nil {
			return err
		}
	}
	if len(e.ResponseHeaders) > MaxAuthResponseHeaders {
		return Invalid("auth.external.responseHeaders", "at most %d headers", MaxAuthResponseHeaders)
	}
	seen := map[string]bool{}
	for i, h := range e.ResponseHeaders {
		f := fmt.Sprintf("auth.external.responseHeaders[%d]", i)
		if err := ValidHeaderName(f, h); err != nil {
			return err
		}
		if seen[strings.ToLower(h)] {
			return Invalid(f, "header %q is named twice", h)
		}
		seen[strings.ToLower(h)] = true
	}
	if err := ValidHeaderValue("auth.external.requestRedirect", e.RequestRedirect); err != nil {
		return err
	}
	return validAuthRequestHeaders(e.RequestHeaders)
}
