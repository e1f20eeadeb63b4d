package api

import (
	"fmt"
	"regexp"
	"strings"
)

// CORS answers browsers' cross-origin checks for a location, as ingress-nginx's enable-cors
// does: a preflight (OPTIONS with an allowed Origin) gets 204 and the CORS headers without
// reaching the upstream; any other request with an allowed Origin reaches the upstream and
// its answer gets Access-Control-Allow-Origin (the Origin echoed, with Vary: Origin, or "*"
// when any origin is allowed), -Allow-Credentials and -Expose-Headers. A request whose
// Origin is not allowed gets no CORS headers. Empty fields take ingress-nginx's defaults
// (see Normalize). Changing it reloads nginx.
type CORS struct {
	// AllowOrigins are "*" (any origin) or origins: scheme://host[:port], where the host
	// may start with "*." for any one subdomain label, as in https://*.example.com.
	AllowOrigins []string `json:"allowOrigins,omitempty" example:"https://app.example.com,https://*.example.com"`
	// AllowMethods default to GET, PUT, POST, DELETE, PATCH, OPTIONS. "*" alone allows any:
	// a preflight is answered with the method it asks for, as AllowHeaders "*" answers
	// with the headers it asks for. Under Gateway API's rules AllowOrigins "*" with
	// credentials is answered with the request's origin (the Fetch standard takes "*"
	// literally when credentials are allowed); under ingress-nginx's with "*", as
	// ingress-nginx does, so that no site gets a user's credentials by default.
	AllowMethods []string `json:"allowMethods,omitempty" example:"GET,POST"`
	// AllowHeaders default to ingress-nginx's list (DNT, Keep-Alive, User-Agent, ...).
	AllowHeaders  []string `json:"allowHeaders,omitempty" example:"Content-Type,Authorization"`
	ExposeHeaders []string `json:"exposeHeaders,omitempty" example:"X-Request-Id"`
	// AllowCredentials defaults to true, as in ingress-nginx.
	AllowCredentials *bool `json:"allowCredentials,omitempty"`
	// MaxAge is how long, in seconds, a browser may cache a preflight; 1728000 if 0.
	MaxAge int `json:"maxAge,omitempty" example:"86400"`
	// Rules are ingress-nginx's (empty) or "gateway-api", Gateway API's CORS filter's: a
	// wildcard origin's "*." takes any number of labels (https://*.example.com allows
	// https://a.b.example.com), and a preflight from an origin not allowed is answered
	// 403 by the proxy instead of reaching the upstream.
	Rules string `json:"rules,omitempty" enums:"gateway-api" example:"gateway-api"`
}

// CORSRulesGatewayAPI are Gateway API's CORS rules (CORS.Rules).
const CORSRulesGatewayAPI = "gateway-api"

// ingress-nginx's CORS defaults.
var (
	DefaultCORSMethods = []string{"GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS"}
	DefaultCORSHeaders = []string{"DNT", "Keep-Alive", "User-Agent", "X-Requested-With", "If-Modified-Since",
		"Cache-Control", "Content-Type", "Range", "Authorization"}
)

// DefaultCORSMaxAge is ingress-nginx's cors-max-age default, 20 days.
const DefaultCORSMaxAge = 1728000

// Limits on one CORS policy.
const (
	MaxCORSOrigins = 100
	MaxCORSHeaders = 64
)

var (
	// originRe is scheme://host[:port] with a lowercase DNS name, an optional "*." label
	// or an IP literal; ValidHostname and ValidAddress check the host further.
	originRe = regexp.MustCompile(`^(https?)://(\*\.)?([a-z0-9.-]+|\[[0-9a-f:.]+\])(:[0-9]{1,5})?$`)
	methodRe = regexp.MustCompile(`^[A-Z]{1,20}$`)
)

// ValidOrigin checks one allowed origin: "*", or scheme://host[:port] in lowercase, the
// host a DNS name (optionally "*." and a domain), or an IP literal.
func ValidOrigin(field, s string) error {
	if s == "*" {
		return nil
	}
	m := originRe.FindStringSubmatch(s)
	if m == nil {
		return Invalid(field, "origin must be * or http(s)://host[:port] in lowercase, without a path (a host may start with *. for any one subdomain)")
	}
	host := strings.Trim(m[3], "[]")
	if err := ValidAddress(field, host); err != nil {
		return err
	}
	if m[2] != "" && !strings.Contains(host, ".") {
		return Invalid(field, "a wildcard origin needs a domain of two labels at least, like https://*.example.com")
	}
	if m[4] != "" {
		var p int
		fmt.Sscanf(m[4][1:], "%d", &p)
		if ValidPort(field, p) != nil {
			return Invalid(field, "origin port must be 1-65535")
		}
	}
	return nil
}

// normalize fills ingress-nginx's defaults, so that the stored policy says what it does.
func (c *CORS) normalize() {
	if c == nil {
		return
	}
	if len(c.AllowOrigins) == 0 {
		c.AllowOrigins = []string{"*"}
	}
	if len(c.AllowMethods) == 0 {
		c.AllowMethods = append([]string(nil), DefaultCORSMethods...)
	}
	if len(c.AllowHeaders) == 0 {
		c.AllowHeaders = append([]string(nil), DefaultCORSHeaders...)
	}
	if c.AllowCredentials == nil {
		t := true
		c.AllowCredentials = &t
	}
	if c.MaxAge == 0 {
		c.MaxAge = DefaultCORSMaxAge
	}
}

func (c *CORS) validate() error {
	if c == nil {
		return nil
	}
	if len(c.AllowOrigins) > MaxCORSOrigins {
		return Invalid("cors.allowOrigins", "at most %d origins", MaxCORSOrigins)
	}
	for i, o := range c.AllowOrigins {
		f := fmt.Sprintf("cors.allowOrigins[%d]", i)
		if err := ValidOrigin(f, o); err != nil {
			return err
		}
		if o == "*" && len(c.AllowOrigins) > 1 {
			return Invalid(f, "* allows any origin and cannot be listed with others")
		}
	}
	if len(c.AllowMethods) > 16 {
		return Invalid("cors.allowMethods", "at most 16 methods")
	}
	for i, m := range c.AllowMethods {
		if m == "*" && len(c.AllowMethods) == 1 {
			continue // any method: the preflight's is answered
		}
		if !methodRe.MatchString(m) {
			return Invalid(fmt.Sprintf("cors.allowMethods[%d]", i), "method must be 1-20 uppercase letters, like GET")
		}
	}
	for _, list := range []struct {
		field string
		names []string
	}{{"cors.allowHeaders", c.AllowHeaders}, {"cors.exposeHeaders", c.ExposeHeaders}} {
		if len(list.names) > MaxCORSHeaders {
			return Invalid(list.field, "at most %d headers", MaxCORSHeaders)
		}
		for i, h := range list.names {
			f := fmt.Sprintf("%s[%d]", list.field, i)
			// "*" is a token too: the Fetch standard's wildcard, for requests without
			// credentials.
			if !corsHeaderRe.MatchString(h) {
				return Invalid(f, "header name must be an RFC 9110 token of at most 64 characters (letters, digits and !#$%%&'*+-.^_`|~)")
			}
		}
	}
	if c.Rules != "" && c.Rules != CORSRulesGatewayAPI {
		return Invalid("cors.rules", "rules must be empty (ingress-nginx's) or gateway-api")
	}
	if c.MaxAge < 0 || c.MaxAge > 1<<31-1 {
		return Invalid("cors.maxAge", "maxAge must be 0-2147483647 seconds")
	}
	return nil
}

// corsHeaderRe is a header name as RFC 9110 defines it (a token), as browsers send them
// in Access-Control-Request-Headers; the list reaches nginx only inside a Lua string.
var corsHeaderRe = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$")
