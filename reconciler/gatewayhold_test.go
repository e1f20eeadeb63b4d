package reconciler

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestGatewayHeldObjects: the translation records which objects each Gateway and each
// route makes, every object it makes is some Gateway's, and a hold on one of them makes
// its Gateway not Programmed and tells its route, in a copy of the report.
func TestGatewayHeldObjects(t *testing.T) {
	cert, key := kubetest.SelfSigned(t, "shop.example.com")
	objs := gatewayBase(kubetest.Listener("http", 80, ""), kubetest.HTTPSListener("https", 443, "", "cert"))
	other := kubetest.Gateway("infra", "other", "rp", kubetest.Listener("alt", 8080, ""))
	other.Generation = 1
	objs = append(objs, other, kubetest.TLSSecret("infra", "cert", cert, key))
	objs = append(objs, serviceWith("infra", "web", "10.0.0.1")...)
	objs = append(objs, serviceWith("infra", "api", "10.0.0.2")...)
	shop := routeAged(parentOn(kubetest.HTTPRoute("infra", "shop", "", []string{"shop.example.com"}, kubetest.Rule("/", []string{"web"})), ""), 1)
	cart := routeAged(kubetest.HTTPRoute("infra", "cart", "other", []string{"cart.example.com"}, kubetest.Rule("/", []string{"api"})), 2)
	tr := translateGateway(t, append(objs, shop, cart)...)

	server := func(n string) api.Ref { return api.Ref{Kind: api.KindServer, Name: n} }
	backend := func(n string) api.Ref { return api.Ref{Kind: api.KindBackend, Name: n} }
	shopObjs := []api.Ref{backend("k8s.infra.web.80"), server("k8s.shop.example.com")}
	cartObjs := []api.Ref{backend("k8s.infra.api.80"), server("k8s.cart.example.com_8080")}
	for key, want := range map[string][]api.Ref{"HTTPRoute infra/shop": shopObjs, "HTTPRoute infra/cart": cartObjs} {
		if d := cmp.Diff(want, tr.Gateway.Routes[key].Objects); d != "" {
			t.Errorf("%s objects (-want +got):\n%s", key, d)
		}
	}
	gws := map[string][]api.Ref{}
	for _, g := range tr.Gateway.Gateways {
		gws[g.Gateway.Name] = g.Objects
	}
	// gw presents its HTTPS listener's certificate on shop's server and on the catch-all.
	want := map[string][]api.Ref{
		"gw": {backend("k8s.infra.web.80"), {Kind: api.KindCertificate, Name: certificateName("infra", "cert")},
			server(serverName(api.CatchAllHostname)), server("k8s.shop.example.com")},
		"other": cartObjs,
	}
	if d := cmp.Diff(want, gws, cmp.Transformer("sort", func(refs []api.Ref) []api.Ref { return objectSet(toSet(refs)).sorted() })); d != "" {
		t.Errorf("Gateways' objects (-want +got):\n%s", d)
	}
	// shop reaches its server through both of gw's listeners; the certificate and the
	// catch-all are gw's own.
	for _, l := range tr.Gateway.Gateways[0].Listeners {
		if d := cmp.Diff(shopObjs, l.Objects); d != "" {
			t.Errorf("gw's listener %s objects (-want +got):\n%s", l.Status.Name, d)
		}
	}
	made := map[api.Ref]bool{}
	for _, refs := range gws {
		for _, r := range refs {
			made[r] = true
		}
	}
	for n := range tr.Servers {
		if !made[server(n)] {
			t.Errorf("server %s is no Gateway's", n)
		}
	}
	for n := range tr.Backends {
		if !made[backend(n)] {
			t.Errorf("backend %s is no Gateway's", n)
		}
	}

	// A hold on shop's server: gw is not Programmed, shop hears why; the others not.
	held := map[api.Ref]api.Hold{server("k8s.shop.example.com"): {Kind: api.KindServer, Name: "k8s.shop.example.com", Revision: 7}}
	rep := heldGatewayReport(tr.Gateway, held)
	for _, g := range rep.Gateways {
		says := g.Held != ""
		if says != (g.Gateway.Name == "gw") || says && (!strings.Contains(g.Held, "revision 7,") || !strings.Contains(g.Held, "server k8s.shop.example.com")) {
			t.Errorf("Gateway %s: Held %q", g.Gateway.Name, g.Held)
		}
	}
	if p := rep.Routes["HTTPRoute infra/shop"].Problems; len(p) != 1 || p[0].Reason != ReasonRolledBack || !strings.Contains(p[0].Message, "generation 1 of this HTTPRoute") {
		t.Errorf("shop's problems = %v, want one RolledBack of generation 1", p)
	}
	if p := rep.Routes["HTTPRoute infra/cart"].Problems; len(p) != 0 {
		t.Errorf("cart's problems = %v, want none", p)
	}
	if g := tr.Gateway.Gateways[0]; g.Held != "" || len(tr.Gateway.Routes["HTTPRoute infra/shop"].Problems) != 0 {
		t.Errorf("the translation's own report changed: Held %q, problems %v", g.Held, tr.Gateway.Routes["HTTPRoute infra/shop"].Problems)
	}
}

func toSet(refs []api.Ref) map[api.Ref]bool {
	s := map[api.Ref]bool{}
	for _, r := range refs {
		s[r] = true
	}
	return s
}

// TestHeldOf: a few held objects are named, then how many more, with their rollbacks.
func TestHeldOf(t *testing.T) {
	var refs []api.Ref
	held := map[api.Ref]api.Hold{}
	for i, n := range []string{"a", "b", "c", "d", "e", "free"} {
		r := api.Ref{Kind: api.KindBackend, Name: n}
		refs = append(refs, r)
		if n != "free" {
			held[r] = api.Hold{Kind: r.Kind, Name: n, Revision: int64(7 + 2*(i%2))}
		}
	}
	for _, c := range []struct {
		refs        []api.Ref
		names, revs string
	}{
		{refs, "backend a, backend b, backend c and 2 more", "revisions 7, 9"},
		{refs[:1], "backend a", "revision 7"},
		{refs[5:], "", ""},
	} {
		if names, revs := heldOf(c.refs, held); names != c.names || revs != c.revs {
			t.Errorf("heldOf(%v) = %q, %q; want %q, %q", c.refs, names, revs, c.names, c.revs)
		}
	}
}

// TestHeldGateway: a hold on what routes make through one listener is told on that
// listener alone while another is programmed; on the Gateway too once none is, or when
// the held object is the Gateway's own (a certificate no listener's routes make).
func TestHeldGateway(t *testing.T) {
	ref := func(kind, n string) api.Ref { return api.Ref{Kind: kind, Name: n} }
	shop, cart, cert := ref(api.KindServer, "shop"), ref(api.KindServer, "cart"), ref(api.KindCertificate, "cert")
	g := GatewayStatusReport{Programmable: true, Objects: []api.Ref{cart, cert, shop}, Listeners: []ListenerReport{
		{Programmable: true, Objects: []api.Ref{shop}},
		{Programmable: true, Objects: []api.Ref{cart}},
	}}
	for _, c := range []struct {
		name      string
		held      []api.Ref
		invalid   bool // the second listener is not Programmable
		gateway   string
		listeners [2]string
	}{
		{"nothing held", nil, false, "", [2]string{"", ""}},
		{"one listener's", []api.Ref{shop}, false, "", [2]string{"server shop", ""}},
		{"every listener's", []api.Ref{shop, cart}, false, "server cart, server shop", [2]string{"server shop", "server cart"}},
		{"the other listener is not programmable", []api.Ref{shop}, true, "server shop", [2]string{"server shop", ""}},
		{"the Gateway's own", []api.Ref{cert}, false, "certificate cert", [2]string{"", ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			held := map[api.Ref]api.Hold{}
			for _, r := range c.held {
				held[r] = api.Hold{Kind: r.Kind, Name: r.Name, Revision: 7}
			}
			in := g
			in.Listeners = slices.Clone(g.Listeners)
			in.Listeners[1].Programmable = !c.invalid
			got := heldGateway(in, held)
			says := func(what, msg, want string) {
				t.Helper()
				if want == "" && msg != "" || want != "" && !strings.Contains(msg, "holds "+want+" back") {
					t.Errorf("%s Held = %q, want it to hold %q back", what, msg, want)
				}
			}
			says("Gateway", got.Held, c.gateway)
			for i, l := range got.Listeners {
				says(fmt.Sprintf("listener %d", i), l.Held, c.listeners[i])
			}
			if in.Listeners[0].Held != "" {
				t.Errorf("heldGateway changed the listeners it was given")
			}
		})
	}
}
