package api

import (
	"strings"
)

// How sticky an affinity cookie is, as ingress-nginx's affinity-mode says.
const (
	// AffinityPersistent: the cookie names the peer. A client keeps its peer for as long as
	// the peer exists, however many peers are added.
	AffinityPersistent = "persistent"
	// AffinityBalanced: the cookie holds a key that consistent hashing maps onto the
	// peers. When peers are added, the keys next to their points on the ring move to them,
	// so some clients are rebalanced onto the new peers.
	AffinityBalanced = "balanced"
)

// SameSite values of a cookie (RFC 6265bis).
const (
	SameSiteStrict = "Strict"
	SameSiteLax    = "Lax"
	SameSiteNone   = "None"
)

// MaxCookieSeconds bounds a cookie's Expires and Max-Age: 68 years, the largest count of
// seconds a 32-bit number holds.
const MaxCookieSeconds = 1<<31 - 1

// Affinity pins a client to a peer with a cookie that the balancer sets. The cookie is
// always HttpOnly; it is Secure on HTTPS requests, and on every request with Secure.
type Affinity struct {
	Cookie string `json:"cookie" example:"route"`
	// Mode is persistent (the client keeps its peer when peers are added) or balanced
	// (some clients move to peers that are added); persistent if empty.
	Mode string `json:"mode,omitempty" enums:"persistent,balanced" example:"persistent"`
	// Path is the cookie's Path, / if empty.
	Path string `json:"path,omitempty" example:"/"`
	// Domain is the cookie's Domain: the cookie then goes to its subdomains too. Empty: the
	// cookie goes back only to the host that set it.
	Domain string `json:"domain,omitempty" example:"shop.example.com"`
	// SameSite is the cookie's SameSite attribute, none if empty.
	SameSite string `json:"sameSite,omitempty" enums:"Strict,Lax,None" example:"Lax"`
	// ConditionalSameSiteNone leaves SameSite=None out for the browsers known to reject
	// the cookie or take it as Strict (iOS 12, Safari on macOS 10.14, Chrome 51-66, UC
	// Browser before 12.13.2). Only with sameSite None.
	ConditionalSameSiteNone bool `json:"conditionalSameSiteNone,omitempty"`
	// Expires makes the cookie outlive the browser session: its Expires is this many
	// seconds after the answer. 0: absent.
	Expires int `json:"expires,omitempty" minimum:"0" maximum:"2147483647" example:"172800"`
	// MaxAge is the cookie's Max-Age in seconds, which browsers prefer to Expires. 0: absent.
	MaxAge int `json:"maxAge,omitempty" minimum:"0" maximum:"2147483647" example:"172800"`
	// Secure marks the cookie Secure on plain HTTP requests too.
	Secure bool `json:"secure,omitempty"`
	// ChangeOnFailure moves the client to another peer when its pinned peer fails: the
	// request gets a try on another peer, even when the backend's retries allow none, and
	// the cookie then names the peer that answered. Without it a request may still be
	// retried elsewhere, as retries allow, but the cookie keeps the pinned peer, which the
	// client goes back to.
	ChangeOnFailure bool `json:"changeOnFailure,omitempty"`
}

// validate checks the affinity's fields; field names are relative to the affinity.
func (a *Affinity) validate() error {
	if a == nil {
		return nil
	}
	if err := ValidCookieName("cookie", a.Cookie); err != nil {
		return err
	}
	switch a.Mode {
	case "", AffinityPersistent, AffinityBalanced:
	default:
		return Invalid("mode", "must be persistent or balanced")
	}
	if a.Path != "" {
		if err := ValidPath("path", a.Path); err != nil {
			return err
		}
	}
	if a.Domain != "" {
		if err := ValidCookieDomain("domain", a.Domain); err != nil {
			return err
		}
	}
	switch a.SameSite {
	case "", SameSiteStrict, SameSiteLax, SameSiteNone:
	default:
		return Invalid("sameSite", "must be Strict, Lax or None")
	}
	if a.ConditionalSameSiteNone && a.SameSite != SameSiteNone {
		return Invalid("conditionalSameSiteNone", "conditionalSameSiteNone needs sameSite None")
	}
	if a.Expires < 0 || a.Expires > MaxCookieSeconds {
		return Invalid("expires", "must be 0-%d seconds", MaxCookieSeconds)
	}
	if a.MaxAge < 0 || a.MaxAge > MaxCookieSeconds {
		return Invalid("maxAge", "must be 0-%d seconds", MaxCookieSeconds)
	}
	return nil
}

// normalize fills the defaults, so that equal intent is equal bytes in the history.
func (a *Affinity) normalize() {
	if a == nil {
		return
	}
	if a.Mode == "" {
		a.Mode = AffinityPersistent
	}
	if a.Path == "" {
		a.Path = "/"
	}
}

// ValidCookieDomain checks a cookie's Domain: a DNS name, lowercase, without wildcards.
// A leading '.' (which browsers ignore) is not taken: write the name without it.
func ValidCookieDomain(field, s string) error {
	if strings.HasPrefix(s, ".") {
		return Invalid(field, "cookie domain %q: write it without the leading '.', which browsers ignore", printable(s))
	}
	if strings.Contains(s, "*") || s == CatchAllHostname {
		return Invalid(field, "cookie domain %q must be a DNS name without wildcards", printable(s))
	}
	if err := ValidHostname(field, s); err != nil {
		return Invalid(field, "cookie domain %q must be a DNS name: lowercase letters, digits, '-' and '.'", printable(s))
	}
	return nil
}
