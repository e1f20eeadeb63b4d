package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testHTTPToHTTPSRedirect: the spec's pattern for one host, a route on the HTTP listener
// that redirects to HTTPS and the application's route on the HTTPS listener: plain HTTP
// is redirected, and HTTPS reaches the application (it was redirected to itself, the
// redirect being the older route's location on both schemes).
func testHTTPToHTTPSRedirect(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	ki.service("a", k.ns.upstream(t, "a"))
	host := ki.host("secure")
	cert, key := kubetest.SelfSigned(t, host)
	k.c.Create(t, kubetest.TLSSecret(ki.ns, "cert", cert, key))
	ki.httpGateway(kubetest.HTTPSListener("https", ki.tlsPort(), "", "cert"))
	section := func(r *gatewayv1.HTTPRoute, name string) *gatewayv1.HTTPRoute {
		s := gatewayv1.SectionName(name)
		r.Spec.ParentRefs[0].SectionName = &s
		return r
	}
	redirect := section(kubetest.HTTPRoute(ki.ns, "to-https", "gw", []string{host}, kubetest.Rule("/", nil)), "http")
	https := "https"
	redirect.Spec.Rules[0].BackendRefs = nil
	redirect.Spec.Rules[0].Filters = []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestRedirect,
		RequestRedirect: &gatewayv1.HTTPRequestRedirectFilter{Scheme: &https}}}
	k.c.Create(t, redirect)
	k.c.Create(t, section(kubetest.HTTPRoute(ki.ns, "app", "gw", []string{host}, kubetest.Rule("/", []string{"a"})), "https"))
	ki.routeCondition(ki.ns, "app", "Accepted", "True", "Accepted")
	want := "302 https://" + host + "/shop"
	ki.waitUntil("plain HTTP redirected: "+want, 30*time.Second, func() (bool, string) {
		got := unfollowed(ki.Proxy, host, "/shop")
		return got == want, got
	})
	ki.waitSynced()
	if code, body := ki.getTLS(host, host, "/shop"); code != 200 || !strings.HasPrefix(body, "a ") {
		t.Fatalf("GET https://%s/shop = %d %q, want 200 from a", host, code, body)
	}
}

// unfollowed is the status and Location of GET base+path with the Host, not followed.
func unfollowed(base, host, path string) string {
	c := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Host = host
	resp, err := c.Do(req)
	if err != nil {
		return err.Error()
	}
	resp.Body.Close()
	return fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Location"))
}
