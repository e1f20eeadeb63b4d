package reconciler

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// Held reports whether srv serves nothing but the held paths of refused Ingresses: nil,
// or locations that each answer 503 themselves.
func Held(srv *api.Server) bool {
	if srv == nil {
		return true
	}
	for _, l := range srv.Locations {
		if l.Return == nil || l.Return.Code != 503 || l.Backend != "" {
			return false
		}
	}
	return true
}

// TestRefusedIngressFailsClosed: an Ingress with basic auth on /admin that becomes
// unplannable (its auth Secret is gone) keeps /admin, answering 503: another Ingress's
// broader "/" of the same host, without auth, must not take it.
func TestRefusedIngressFailsClosed(t *testing.T) {
	const ns, host = "shop", "shop.example.com"
	open := aged(kubetest.Ingress(ns, "open", "c", kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}), 0)
	admin := aged(kubetest.Ingress(ns, "admin", "c", kubetest.Path{Host: host, Path: "/admin", Service: "web", Port: 80}), 1,
		nginxPrefix+"auth-type", "basic", nginxPrefix+"auth-secret", "gone")
	tr := Translate(snapshotOf(open, admin, kubetest.Service(ns, "web", 80),
		kubetest.EndpointSlice(ns, "web", "web-1", 8080, kubetest.Endpoint{Address: "10.0.0.2"})), nil)
	if tr.Reports[ns+"/admin"].Applied {
		t.Fatalf("the Ingress whose auth Secret is gone is applied: %+v", tr.Reports[ns+"/admin"].Problems)
	}
	srv := tr.Servers[serverName(host)]
	if srv == nil {
		t.Fatal("no server for the host")
	}
	var got []string
	for _, l := range srv.Locations {
		switch {
		case l.Path == "/admin" && l.Return != nil && l.Return.Code == 503 && l.Backend == "":
			got = append(got, "/admin held")
		case l.Path == "/" && l.Backend != "":
			got = append(got, "/ routed")
		}
	}
	if len(got) != 2 {
		t.Fatalf("locations %+v: want / routed and /admin answering 503", srv.Locations)
	}
}

// TestWildcardTLSEntry: a TLS entry naming *.example.com, as ingress-nginx accepts it,
// serves the rule hosts it covers with its certificate; a deeper name is not covered.
func TestWildcardTLSEntry(t *testing.T) {
	const ns = "shop"
	cert, key := kubetest.SelfSigned(t, "*.example.com")
	ing := aged(kubetest.Ingress(ns, "web", "c",
		kubetest.Path{Host: "a.example.com", Path: "/", Service: "web", Port: 80},
		kubetest.Path{Host: "b.c.example.com", Path: "/", Service: "web", Port: 80}), 0)
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"*.example.com"}, SecretName: "wild"}}
	tr := Translate(snapshotOf(ing, kubetest.Service(ns, "web", 80), kubetest.TLSSecret(ns, "wild", cert, key),
		kubetest.EndpointSlice(ns, "web", "web-1", 8080, kubetest.Endpoint{Address: "10.0.0.2"})), nil)
	if rep := tr.Reports[ns+"/web"]; !rep.Applied {
		t.Fatalf("not applied: %+v", rep.Problems)
	}
	if s := tr.Servers[serverName("a.example.com")]; s == nil || s.TLS == nil {
		t.Fatalf("a.example.com is not served over TLS: %+v", s)
	}
	if s := tr.Servers[serverName("b.c.example.com")]; s == nil || s.TLS != nil {
		t.Fatalf("b.c.example.com, which *.example.com does not cover, has TLS: %+v", s)
	}
}

// TestRedirectHostWithoutPaths: a rule of a host and no paths, with permanent-redirect,
// redirects every request of the host, as ingress-nginx's server for it does.
func TestRedirectHostWithoutPaths(t *testing.T) {
	ing := aged(&networkingv1.Ingress{}, 0, nginxPrefix+"permanent-redirect", "https://new.example.com/")
	ing.Namespace, ing.Name = "shop", "old"
	ing.Spec.Rules = []networkingv1.IngressRule{{Host: "old.example.com"}}
	tr := Translate(snapshotOf(ing), nil)
	if rep := tr.Reports["shop/old"]; !rep.Applied {
		t.Fatalf("not applied: %+v", rep.Problems)
	}
	s := tr.Servers[serverName("old.example.com")]
	if s == nil || len(s.Locations) != 1 || s.Locations[0].Redirect == nil || s.Locations[0].Backend != "" {
		t.Fatalf("server %+v, want one location that redirects", s)
	}
}
