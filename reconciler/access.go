package reconciler

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// Access and limit annotations (policies): allow and deny lists of client
// addresses, and rate, connection and bandwidth limits per client address, with an exempt
// list. Past a limit an Ingress's route answers 503, ingress-nginx's default
// (limit-req-status-code), where a REST-made one answers 429.

// ingressLimitStatus is what ingress-nginx answers past a limit.
const ingressLimitStatus = 503

// accessGroup: allow and deny lists of client addresses.
var accessGroup = annotationGroup{name: "access", scope: scopeLocation, rules: map[string]annotationRule{
	"whitelist-source-range": honoured(whyCIDRs), "allowlist-source-range": honoured(whyCIDRs),
	"denylist-source-range": honoured(whyCIDRs), "satisfy": refused(whyAccess),
}, parse: func(get func(string) (string, bool), a *annotations) (err error) {
	a.access, err = parseAccess(get)
	return err
}}

// parseAccess reads the access list annotations; nil when there are none.
func parseAccess(get func(string) (string, bool)) (*api.AccessPolicy, error) {
	var p api.AccessPolicy
	var err error
	// whitelist- is the old name of allowlist-; an Ingress that sets both gets both.
	for _, n := range []string{"whitelist-source-range", "allowlist-source-range"} {
		if p.Allow, err = cidrAnnotation(get, n, p.Allow); err != nil {
			return nil, err
		}
	}
	if p.Deny, err = cidrAnnotation(get, "denylist-source-range", nil); err != nil {
		return nil, err
	}
	if len(p.Allow) == 0 && len(p.Deny) == 0 {
		return nil, nil
	}
	return &p, nil
}

// limitGroup: rate, connection and bandwidth limits per client address.
var limitGroup = annotationGroup{name: "limits", scope: scopeLocation, rules: map[string]annotationRule{
	"limit-connections":      honoured("concurrent requests per client address; 503 past it"),
	"limit-rps":              honoured("per client address, burst rps×limit-burst-multiplier, no delay; 503 past it"),
	"limit-rpm":              honoured("per client address, burst rpm×limit-burst-multiplier, no delay; 503 past it"),
	"limit-burst-multiplier": honoured("5 if not set"), "limit-rate": honoured("kilobytes a second"),
	"limit-rate-after": honoured("kilobytes"),
	"limit-whitelist":  honoured("CIDRs exempt from the rate and connection limits"), "limit-allowlist": honoured("CIDRs exempt from the rate and connection limits"),
	"global-rate-limit": refused(whyLimit), "global-rate-limit-window": refused(whyLimit),
	"global-rate-limit-key": refused(whyLimit), "global-rate-limit-ignored-cidrs": refused(whyLimit),
}, parse: func(get func(string) (string, bool), a *annotations) (err error) {
	a.limits, err = parseLimits(get, &a.ignored)
	return err
}}

// parseLimits reads the limit annotations; nil when they ask for no limit. ignored gets
// the ones that have nothing to apply to.
func parseLimits(get func(string) (string, bool), ignored *[]string) (*api.LocationLimits, error) {
	l := api.LocationLimits{Status: ingressLimitStatus}
	ints := []struct {
		name string
		to   *int
	}{{"limit-rps", &l.RPS}, {"limit-rpm", &l.RPM}, {"limit-connections", &l.Connections},
		{"limit-burst-multiplier", &l.BurstMultiplier}}
	for _, f := range ints {
		v, ok := get(f.name)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("annotation %s: %q is not a whole number of 0 or more", f.name, v)
		}
		*f.to = n
	}
	var err error
	for _, n := range []string{"limit-whitelist", "limit-allowlist"} {
		if l.Exempt, err = cidrAnnotation(get, n, l.Exempt); err != nil {
			return nil, err
		}
	}
	// ingress-nginx's limit-rate and limit-rate-after are kilobytes (a second).
	for _, f := range []struct {
		name string
		to   *string
	}{{"limit-rate", &l.Rate}, {"limit-rate-after", &l.RateAfter}} {
		v, ok := get(f.name)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 999999 {
			return nil, fmt.Errorf("annotation %s: %q is not a whole number of kilobytes (0-999999)", f.name, v)
		}
		if n > 0 {
			*f.to = strconv.Itoa(n) + "k"
		}
	}
	if l.Rate == "" && l.RateAfter != "" {
		*ignored = append(*ignored, "limit-rate-after: no limit-rate to apply after")
		l.RateAfter = ""
	}
	if !l.Counted() {
		for _, n := range []string{"limit-burst-multiplier", "limit-whitelist", "limit-allowlist"} {
			if _, ok := get(n); ok {
				*ignored = append(*ignored, n+": no limit-rps, limit-rpm or limit-connections to apply to")
			}
		}
		l.BurstMultiplier, l.Exempt = 0, nil
		if l.Rate == "" {
			return nil, nil
		}
	}
	check := api.Location{Path: "/", Backend: "x", Limits: &l}
	if err := (&api.Server{Name: "x", Hostnames: []string{"x"}, Locations: []api.Location{check}}).Validate(); err != nil {
		return nil, fmt.Errorf("limit annotations: %w", err)
	}
	return &l, nil
}

// cidrAnnotation appends the comma-separated CIDRs of annotation name to list, refusing
// the first that api's grammar does not take, and leaving out repeats.
func cidrAnnotation(get func(string) (string, bool), name string, list []string) ([]string, error) {
	v, ok := get(name)
	if !ok {
		return list, nil
	}
	have := map[string]bool{}
	for _, s := range list {
		have[s] = true
	}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := api.ParseCIDR(s)
		if err != nil {
			return nil, fmt.Errorf("annotation %s: %w", name, err)
		}
		if !have[p.String()] {
			have[p.String()] = true
			list = append(list, p.String())
		}
	}
	if len(list) > api.MaxCIDRs {
		return nil, fmt.Errorf("annotation %s: more than %d CIDRs", name, api.MaxCIDRs)
	}
	return list, nil
}
