package reconciler

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// defaultAffinityCookie is ingress-nginx's default session cookie name.
const defaultAffinityCookie = "INGRESSCOOKIE"

// affinityGroup: cookie affinity, each session-cookie-* a typed attribute of the
// backend's api.Affinity. They are read only with affinity: cookie, as in ingress-nginx.
var affinityGroup = annotationGroup{name: "affinity", scope: scopeBackend, parse: parseAffinity, rules: map[string]annotationRule{
	"affinity":                                 honoured("cookie only"),
	"affinity-mode":                            honoured("balanced (the default: some clients move to peers that are added) or persistent (a client keeps its peer while it exists)"),
	"session-cookie-name":                      honoured("the affinity cookie's name, INGRESSCOOKIE if absent"),
	"session-cookie-path":                      honoured("a plain path (no regex), / if absent, where ingress-nginx takes the location's path"),
	"session-cookie-domain":                    honoured("a DNS name; a leading '.' is dropped, as browsers do"),
	"session-cookie-samesite":                  honoured("Strict, Lax or None"),
	"session-cookie-conditional-samesite-none": honoured("true leaves SameSite=None out for the browsers that reject or misread it"),
	"session-cookie-expires":                   honoured("seconds: Expires is that long after the answer"),
	"session-cookie-max-age":                   honoured("seconds, as Max-Age"),
	"session-cookie-secure":                    honoured("true marks the cookie Secure on plain HTTP too (it is on HTTPS always)"),
	"session-cookie-change-on-failure":         honoured("true moves the client to the peer that served it when its own failed (one more try on another peer if the Ingress allows none)"),
	"session-cookie-hash":                      ignored("removed from ingress-nginx; the cookie's value is restyplane's own"),
}}

// secondsRe is a count of seconds as ingress-nginx's session-cookie-expires and -max-age
// take it: digits only.
var secondsRe = regexp.MustCompile(`^[0-9]{1,10}$`)

// parseAffinity reads affinity and, with it, the session cookie's annotations.
func parseAffinity(get func(string) (string, bool), a *annotations) error {
	v, ok := get("affinity")
	if !ok {
		return nil
	}
	if v != "cookie" {
		return fmt.Errorf("annotation affinity: %q is not supported, only cookie", printableValue(v))
	}
	// ingress-nginx's affinity-mode is balanced unless it says persistent.
	aff := &api.Affinity{Cookie: defaultAffinityCookie, Mode: api.AffinityBalanced}
	str := func(name string, set func(string) error) error {
		if v, ok := get(name); ok {
			if err := set(v); err != nil {
				return fmt.Errorf("annotation %s: %q: %w", name, printableValue(v), err)
			}
		}
		return nil
	}
	flag := func(name string, dst *bool) error {
		return str(name, func(v string) (err error) {
			if *dst, err = strconv.ParseBool(v); err != nil {
				return fmt.Errorf("not true or false")
			}
			return nil
		})
	}
	seconds := func(name string, dst *int) error {
		return str(name, func(v string) (err error) {
			n, err := strconv.Atoi(v)
			if !secondsRe.MatchString(v) || err != nil || n > api.MaxCookieSeconds {
				return fmt.Errorf("not a number of seconds up to %d", api.MaxCookieSeconds)
			}
			*dst = n
			return nil
		})
	}
	var conditional bool
	for _, err := range []error{
		str("affinity-mode", func(v string) error {
			if v != api.AffinityBalanced && v != api.AffinityPersistent {
				return fmt.Errorf("not balanced or persistent")
			}
			aff.Mode = v
			return nil
		}),
		str("session-cookie-name", func(v string) error { aff.Cookie = v; return api.ValidCookieName("name", v) }),
		str("session-cookie-path", func(v string) error { aff.Path = v; return api.ValidPath("path", v) }),
		str("session-cookie-domain", func(v string) error {
			aff.Domain = strings.ToLower(strings.TrimPrefix(v, "."))
			return api.ValidCookieDomain("domain", aff.Domain)
		}),
		str("session-cookie-samesite", func(v string) error {
			for _, s := range []string{api.SameSiteStrict, api.SameSiteLax, api.SameSiteNone} {
				if strings.EqualFold(v, s) {
					aff.SameSite = s
					return nil
				}
			}
			return fmt.Errorf("not Strict, Lax or None")
		}),
		flag("session-cookie-conditional-samesite-none", &conditional),
		seconds("session-cookie-expires", &aff.Expires),
		seconds("session-cookie-max-age", &aff.MaxAge),
		flag("session-cookie-secure", &aff.Secure),
		flag("session-cookie-change-on-failure", &aff.ChangeOnFailure),
	} {
		if err != nil {
			return err
		}
	}
	// Without SameSite=None there is nothing to leave out: the annotation asks nothing.
	aff.ConditionalSameSiteNone = conditional && aff.SameSite == api.SameSiteNone
	a.affinity = aff
	return nil
}

// affinityText spells an affinity for messages and for comparing two Ingresses' asks.
func affinityText(a *api.Affinity) string {
	s := "affinity cookie " + a.Cookie + " (" + a.Mode
	for _, f := range []struct{ name, v string }{{"path", a.Path}, {"domain", a.Domain}, {"SameSite", a.SameSite}} {
		if f.v != "" {
			s += ", " + f.name + " " + f.v
		}
	}
	for _, f := range []struct {
		name string
		on   bool
	}{{"conditional SameSite=None", a.ConditionalSameSiteNone}, {"secure", a.Secure}, {"change on failure", a.ChangeOnFailure}} {
		if f.on {
			s += ", " + f.name
		}
	}
	if a.Expires > 0 {
		s += fmt.Sprintf(", expires %ds", a.Expires)
	}
	if a.MaxAge > 0 {
		s += fmt.Sprintf(", max-age %ds", a.MaxAge)
	}
	return s + ")"
}
