package reconciler

import (
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestGatewayHTTPToHTTPSRedirect: the spec's pattern of a redirect to HTTPS on the HTTP
// listener and the application on the HTTPS one, for one host: each route answers on its
// listener's scheme alone, so plain HTTP redirects and HTTPS reaches the application (it
// was one location, the oldest route's, on both: HTTPS redirected to itself). A route
// attached to both listeners answers on both, without a condition.
func TestGatewayHTTPToHTTPSRedirect(t *testing.T) {
	host := "shop.example.com"
	cert, key := kubetest.SelfSigned(t, host)
	base := func() []runtime.Object {
		objs := gatewayBase(kubetest.Listener("http", 80, ""), kubetest.HTTPSListener("https", 443, "", "cert"))
		objs = append(objs, kubetest.TLSSecret("infra", "cert", cert, key))
		return append(objs, serviceWith("infra", "web", "10.0.0.1")...)
	}
	app := func(section string) runtime.Object {
		return routeAged(parentOn(kubetest.HTTPRoute("infra", "app", "", []string{host}, kubetest.Rule("/", []string{"web"})), section), 2)
	}
	redirect := kubetest.HTTPRoute("infra", "to-https", "", []string{host}, kubetest.Rule("/", nil))
	https := "https"
	redirect.Spec.Rules[0].BackendRefs = nil
	redirect.Spec.Rules[0].Filters = []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestRedirect,
		RequestRedirect: &gatewayv1.HTTPRequestRedirectFilter{Scheme: &https}}}
	tr := translateGateway(t, append(base(), routeAged(parentOn(redirect, "http"), 1), app("https"))...)
	for _, key := range []string{"HTTPRoute infra/to-https", "HTTPRoute infra/app"} {
		if got := conditionsOf(tr.Gateway.Routes[key]); !strings.HasPrefix(got, "Accepted=True") || strings.Contains(got, "False") {
			t.Errorf("%s: %s, want accepted whole", key, got)
		}
	}
	got := locationsOf(tr.Servers["k8s."+host])
	sort.Strings(got)
	want := []string{`prefix / {"scheme":"http"} -> `, `prefix / {"scheme":"https"} -> k8s.infra.web.80`}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("locations of %s = %q, want the redirect on plain HTTP and the application on HTTPS: %q", host, got, want)
	}
	for _, l := range tr.Servers["k8s."+host].Locations {
		if (l.When.Scheme == "http") != (l.Redirect != nil) {
			t.Errorf("location %+v: the redirect belongs to plain HTTP alone", l)
		}
	}

	tr = translateGateway(t, append(base(), app(""))...)
	if got := locationsOf(tr.Servers["k8s."+host]); strings.Join(got, "; ") != "prefix / -> k8s.infra.web.80" {
		t.Errorf("a route of both listeners: locations %q, want / without conditions", got)
	}
	// A route of the HTTP listener alone on a host no HTTPS listener serves: no condition.
	plain := gatewayBase(kubetest.Listener("http", 80, ""))
	tr = translateGateway(t, append(append(plain, serviceWith("infra", "web", "10.0.0.1")...), app("http"))...)
	if got := locationsOf(tr.Servers["k8s."+host]); strings.Join(got, "; ") != "prefix / -> k8s.infra.web.80" {
		t.Errorf("a plain route on a plain host: locations %q, want / without conditions", got)
	}
}
