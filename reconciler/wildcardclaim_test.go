package reconciler

import (
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// TestWildcardClaimsCoverNames: a wildcard and the names it covers are one claim's worth of
// traffic, both ways. While namespace a holds *.example.com, b may not take
// api.example.com (nginx would route it to b, out of a's wildcard, unknown to a); while b
// holds shop.example.org, a newer wildcard of a's that covers it is refused; the holder of
// the older claim keeps its name, and an admin's grant stands over a wildcard.
func TestWildcardClaimsCoverNames(t *testing.T) {
	since := time.Unix(5000, 0)
	held := map[string]api.HostnameClaim{
		"*.example.com":          {Hostname: "*.example.com", Namespace: "a", Since: since, How: api.HostnameClaimed},
		"shop.example.org":       {Hostname: "shop.example.org", Namespace: "b", Since: since, How: api.HostnameClaimed},
		"granted.example.com":    {Hostname: "granted.example.com", Namespace: "c", Since: since, How: api.HostnameGranted},
		"deep.legacy.example.io": {Hostname: "deep.legacy.example.io", Namespace: "b", Since: since, How: api.HostnameClaimed},
		"*.legacy.example.io":    {Hostname: "*.legacy.example.io", Namespace: "a", Since: since.Add(time.Hour), How: api.HostnameClaimed},
	}
	wild := ingressAt("a", "wild", 0, "*.example.com")
	taker := ingressAt("b", "taker", 10, "api.example.com")
	deeper := ingressAt("b", "deeper", 11, "*.eu.example.com")
	own := ingressAt("a", "own", 12, "api2.example.com")
	shop := ingressAt("b", "shop", 0, "shop.example.org")
	cover := ingressAt("a", "cover", 20, "*.example.org")
	granted := ingressAt("c", "granted", 30, "granted.example.com")
	legacyOld := ingressAt("b", "legacy-name", 40, "deep.legacy.example.io")
	legacyNew := ingressAt("a", "legacy-wild", 41, "*.legacy.example.io")
	head := api.NewState()
	head.Servers["rest"] = &api.Server{Name: "rest", Hostnames: []string{"*.rest.example.net", "exact.example.net"}}
	underREST := ingressAt("d", "under-rest", 50, "a.rest.example.net")
	overREST := ingressAt("d", "over-rest", 51, "*.example.net")
	o := ownHosts([]*networkingv1.Ingress{wild, shop, taker, deeper, own, cover, granted, legacyOld, legacyNew, underREST, overREST}, held, head)

	for _, c := range []struct {
		ing  *networkingv1.Ingress
		want string // "" for served
	}{
		{wild, ""},
		{taker, "host api.example.com is covered by *.example.com, held by namespace a"},
		{deeper, "host *.eu.example.com is covered by *.example.com, held by namespace a"},
		{own, ""},
		{shop, ""},
		{cover, "host *.example.org covers shop.example.org, held by namespace b"},
		{granted, ""},
		{legacyOld, ""},
		{legacyNew, "host *.legacy.example.io covers deep.legacy.example.io, held by namespace b"},
		{underREST, "host a.rest.example.net overlaps *.rest.example.net of the REST API"},
		{overREST, "host *.example.net overlaps *.rest.example.net of the REST API"},
	} {
		why := o.refusal(c.ing)
		if c.want == "" && why != "" || c.want != "" && !strings.Contains(why, c.want) {
			t.Errorf("%s/%s: refusal %q, want %q", c.ing.Namespace, c.ing.Name, why, c.want)
		}
	}
	for _, c := range o.claims {
		if c.Namespace != "a" && strings.HasSuffix(c.Hostname, "example.com") && c.Hostname != "granted.example.com" ||
			c.Hostname == "*.example.org" {
			t.Errorf("claimed %s for %s, which another namespace's name overlaps", c.Hostname, c.Namespace)
		}
	}
}

// TestServerAliasSuffixWildcardRefused: a server-alias such as example.* would take the
// name under every top-level domain, which no claim can check: it is refused.
func TestServerAliasSuffixWildcardRefused(t *testing.T) {
	for _, v := range []string{"example.*", "shop.example.com, www.example.*"} {
		if _, err := parseAliases(v); err == nil || !strings.Contains(err.Error(), "example.*") {
			t.Errorf("server-alias %q: %v, want a refusal naming example.*", v, err)
		}
	}
	if _, err := parseAliases("*.example.com"); err != nil {
		t.Errorf("server-alias *.example.com: %v, want nil", err)
	}
}
