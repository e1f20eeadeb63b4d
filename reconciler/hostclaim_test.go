package reconciler

import (
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/api"
)

func ingressAt(ns, name string, age int, hosts ...string) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		CreationTimestamp: metav1.NewTime(time.Unix(int64(1000+age), 0))}}
	for _, h := range hosts {
		ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{Host: h})
	}
	return ing
}

// TestHostClaimRule: an unheld host goes to the oldest Ingress's namespace and is claimed;
// a held one stays with its holder even against an older Ingress (an edited old one); a
// claim no Ingress of its namespace names is released, a grant is not; a REST server's
// hostname is nobody's to claim.
func TestHostClaimRule(t *testing.T) {
	since := time.Unix(5000, 0)
	held := map[string]api.HostnameClaim{
		"victim.example.com":  {Hostname: "victim.example.com", Namespace: "a", Since: since, How: api.HostnameClaimed},
		"gone.example.com":    {Hostname: "gone.example.com", Namespace: "a", Since: since, How: api.HostnameClaimed},
		"granted.example.com": {Hostname: "granted.example.com", Namespace: "c", Since: since, How: api.HostnameGranted},
	}
	head := api.NewState()
	head.Servers["rest"] = &api.Server{Name: "rest", Hostnames: []string{"rest.example.com"}}
	old := ingressAt("b", "old", 0, "b.example.com", "victim.example.com") // edited to add the victim's host
	victim := ingressAt("a", "victim", 10, "victim.example.com")
	newer := ingressAt("c", "new", 20, "new.example.com")
	racer := ingressAt("d", "racer", 30, "new.example.com", "rest.example.com")
	o := ownHosts([]*networkingv1.Ingress{old, victim, newer, racer}, held, head)

	if why := o.refusal(old); !strings.Contains(why, "victim.example.com is held by namespace a") {
		t.Errorf("old Ingress of b naming a's host: refusal %q", why)
	}
	if why := o.refusal(victim); why != "" {
		t.Errorf("holder refused: %q", why)
	}
	if why := o.refusal(newer); why != "" {
		t.Errorf("first claimant of new.example.com refused: %q", why)
	}
	if why := o.refusal(racer); !strings.Contains(why, "new.example.com is held by namespace c") {
		t.Errorf("second claimant: refusal %q", why)
	}
	if why := o.refusal(ingressAt("e", "rest", 0, "rest.example.com")); !strings.Contains(why, "REST API") {
		t.Errorf("Ingress naming a REST hostname: refusal %q", why)
	}
	var claims []string
	for _, c := range o.claims {
		claims = append(claims, c.Hostname+"="+c.Namespace)
	}
	if got, want := strings.Join(claims, " "), "b.example.com=b new.example.com=c"; got != want {
		t.Errorf("new claims = %q, want %q", got, want)
	}
	if len(o.releases) != 1 || o.releases[0].Hostname != "gone.example.com" || !o.releases[0].Since.Equal(since) {
		t.Errorf("releases = %+v, want gone.example.com's claim as stored (the grant stays)", o.releases)
	}
}

func TestCertCovers(t *testing.T) {
	for _, c := range []struct {
		names []string
		host  string
		want  bool
	}{
		{[]string{"shop.example.com"}, "shop.example.com", true},
		{[]string{"*.example.com"}, "shop.example.com", true},
		{[]string{"*.example.com"}, "a.shop.example.com", false},
		{[]string{"*.example.com"}, "example.com", false},
		{[]string{"*.com"}, "example.com", false},
		{[]string{"*.example.com"}, "*.example.com", true},
		{[]string{"shop.example.com"}, "*.example.com", false},
		{[]string{"other.example.com"}, "shop.example.com", false},
	} {
		if got := certCovers(c.names, c.host); got != c.want {
			t.Errorf("certCovers(%v, %q) = %t, want %t", c.names, c.host, got, c.want)
		}
	}
}

func TestExternalNameRefusal(t *testing.T) {
	for target, refused := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "127.0.0.1": true, "::1": true, "169.254.169.254": true,
		"fe80::1": true, "metadata.google.internal": true, "0.0.0.0": true,
		"api.example.com": false, "10.0.0.5": false,
	} {
		if got := externalNameRefusal(target) != ""; got != refused {
			t.Errorf("externalNameRefusal(%q) refused = %t, want %t", target, got, refused)
		}
	}
}

// TestCatchAllClaimRule: the catch-all (rules without a host, a default backend without
// rules) is claimed like a hostname, and a refusal says which it is, not "host _".
func TestCatchAllClaimRule(t *testing.T) {
	first := ingressAt("a", "all", 0, "")
	second := ingressAt("b", "thief", 10, "", "b.example.com")
	fallback := ingressAt("c", "fallback", 20)
	fallback.Spec.DefaultBackend = &networkingv1.IngressBackend{}
	o := ownHosts([]*networkingv1.Ingress{first, second, fallback}, nil, api.NewState())
	if why := o.refusal(first); why != "" {
		t.Errorf("first claimant of the catch-all refused: %q", why)
	}
	for _, ing := range []*networkingv1.Ingress{second, fallback} {
		why := o.refusal(ing)
		if !strings.Contains(why, "the catch-all") || !strings.Contains(why, "held by namespace a") || strings.Contains(why, "host _") {
			t.Errorf("%s/%s: refusal %q, want it to name the catch-all and its holder a", ing.Namespace, ing.Name, why)
		}
	}
	if len(o.claims) != 2 || o.claims[0] != (api.HostnameClaim{Hostname: api.CatchAllHostname, Namespace: "a", How: api.HostnameClaimed}) {
		t.Errorf("claims = %+v, want the catch-all for a, then b.example.com for b", o.claims)
	}

	head := api.NewState()
	head.Servers["rest"] = &api.Server{Name: "rest", Hostnames: []string{api.CatchAllHostname}}
	o = ownHosts([]*networkingv1.Ingress{first}, nil, head)
	if why := o.refusal(first); !strings.Contains(why, "the catch-all") || !strings.Contains(why, `REST API (server "rest")`) {
		t.Errorf("host-less Ingress while a REST server holds the catch-all: refusal %q", why)
	}
}
