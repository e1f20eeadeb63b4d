package api

import (
	"fmt"
	"net/netip"
	"strings"
)

// MaxCIDRs bounds each address list of a location: the proxy matches a list with one hash
// lookup per distinct prefix length, so its cost does not grow with the list, but its
// memory and the push that carries it do.
const MaxCIDRs = 4096

// AccessPolicy lets a location's requests through by client address. A request from an
// address in Deny is answered 403; with Allow set, so is one from an address outside it.
// The client address is the connection's, or the trusted proxy's header when the settings
// name trusted proxies (Settings.RealIPFrom). Changing the lists needs no reload.
type AccessPolicy struct {
	// Allow lists the CIDRs (or single addresses) that may pass; empty lets every
	// address not denied pass.
	Allow []string `json:"allow,omitempty" example:"10.0.0.0/8,2001:db8::/32"`
	// Deny lists the CIDRs (or single addresses) refused; it is checked before Allow.
	Deny []string `json:"deny,omitempty" example:"10.0.0.66"`
}

func (a *AccessPolicy) validate() error {
	if a == nil {
		return nil
	}
	if len(a.Allow) == 0 && len(a.Deny) == 0 {
		return Invalid("access", "access needs an allow or a deny list")
	}
	if err := ValidCIDRs("access.allow", a.Allow); err != nil {
		return err
	}
	return ValidCIDRs("access.deny", a.Deny)
}

// ValidCIDRs checks an address list: at most MaxCIDRs entries, each an IPv4 or IPv6
// address or prefix in canonical form (no bits set past the prefix length, no zone), none
// listed twice.
func ValidCIDRs(field string, list []string) error {
	if len(list) > MaxCIDRs {
		return Invalid(field, "at most %d entries", MaxCIDRs)
	}
	seen := make(map[netip.Prefix]bool, len(list))
	for i, s := range list {
		f := fmt.Sprintf("%s[%d]", field, i)
		p, err := ParseCIDR(s)
		if err != nil {
			return Invalid(f, "%s", err)
		}
		if seen[p] {
			return Invalid(f, "%q is listed twice", s)
		}
		seen[p] = true
	}
	return nil
}

// ParseCIDR reads one list entry: "10.0.0.0/8", "2001:db8::/32" or a single address,
// which stands for its /32 or /128. IPv4-mapped IPv6 forms and zones are refused, and so
// is a prefix with bits set past its length, which nginx would mask with a warning: the
// list says exactly what it matches.
func ParseCIDR(s string) (netip.Prefix, error) {
	if len(s) > 64 || strings.TrimSpace(s) != s || s == "" {
		return netip.Prefix{}, fmt.Errorf("%q is not an address or CIDR", printable(s))
	}
	var p netip.Prefix
	if strings.Contains(s, "/") {
		var err error
		if p, err = netip.ParsePrefix(s); err != nil {
			return netip.Prefix{}, fmt.Errorf("%q is not a CIDR (want 10.0.0.0/8 or 2001:db8::/32)", printable(s))
		}
		if p.Masked() != p {
			return netip.Prefix{}, fmt.Errorf("%q has bits set past its prefix length; did you mean %s?", s, p.Masked())
		}
	} else {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("%q is not an address or CIDR", printable(s))
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	if p.Addr().Zone() != "" || p.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("%q: zones and IPv4-mapped IPv6 addresses are not admitted; write the IPv4 form", s)
	}
	return p, nil
}
