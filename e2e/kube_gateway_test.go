package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestGatewayAPI runs Gateway API's resources on a real API server through a real
// restyplane and nginx to real upstreams. The subtests share the cluster; each has its own
// restyplane, namespace and hosts.
func TestGatewayAPI(t *testing.T) {
	k := newGatewayKube(t)
	t.Run("MatchesAndWeightsServed", func(t *testing.T) { testRouteMatchesAndWeights(t, k) })
	t.Run("ListenerOnItsOwnPort", func(t *testing.T) { testListenerOwnPort(t, k) })
	t.Run("StatusAsTheSpecSays", func(t *testing.T) { testGatewayStatus(t, k) })
	t.Run("RouteAndIngressContendForAHost", func(t *testing.T) { testRouteIngressTenancy(t, k) })
	t.Run("RouteChangeRolledBack", func(t *testing.T) { testRouteRollback(t, k) })
	t.Run("GRPCRouteAnswersACall", func(t *testing.T) { testGRPCRoute(t, k) })
	t.Run("IngressSecretOfAnotherNamespaceByGrant", func(t *testing.T) { testIngressSecretGrant(t, k) })
	t.Run("BackendTLSPolicyVerifiesTheBackend", func(t *testing.T) { testBackendTLSPolicy(t, k) })
	t.Run("UnresolvedBackendShareAnswers500", func(t *testing.T) { testUnresolvedShare(t, k) })
	t.Run("WeightMovesArePushedNotReloaded", func(t *testing.T) { testWeightMovesPushed(t, k) })
	t.Run("AnAddressPerGateway", func(t *testing.T) { testGatewayAddresses(t, k) })
	t.Run("RedirectToHTTPSBesideTheApplication", func(t *testing.T) { testHTTPToHTTPSRedirect(t, k) })
	t.Run("ListenerNginxRefusesIsNotProgrammed", func(t *testing.T) { testListenerNotServed(t, k) })
}

// httpGateway creates a Gateway "gw" of the test's namespace with an HTTP listener "http"
// on restyplane's own port and the extra listeners.
func (ki *kubeInstance) httpGateway(extra ...gatewayv1.Listener) {
	ki.t.Helper()
	ls := append([]gatewayv1.Listener{kubetest.Listener("http", ki.proxyPort(), "")}, extra...)
	ki.k.c.Create(ki.t, kubetest.Gateway(ki.ns, "gw", gatewayClass, ls...))
}

// teamRule is a rule of "/team" that requests with header X-Team: value take to Service c.
func teamRule(value string) gatewayv1.HTTPRouteRule {
	r := kubetest.Rule("/team", []string{"c"})
	r.Matches[0].Headers = []gatewayv1.HTTPHeaderMatch{{Name: "X-Team", Value: value}}
	return r
}

// testRouteMatchesAndWeights: an HTTPRoute's rule of two weighted Services splits "/" by
// its weights; a header match sends its requests to a third Service, and a request
// without the header falls through to "/"; an exact path matches itself alone.
func testRouteMatchesAndWeights(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	a, b, c := k.ns.upstream(t, "a"), k.ns.upstream(t, "b"), k.ns.upstream(t, "c")
	ki.service("a", a)
	ki.service("b", b)
	ki.service("c", c)
	ki.httpGateway()
	host := ki.host("shop")
	exact := kubetest.Rule("/exact", []string{"b"})
	et := gatewayv1.PathMatchExact
	exact.Matches[0].Path.Type = &et
	k.c.Create(t, kubetest.HTTPRoute(ki.ns, "shop", "gw", []string{host}, kubetest.Rule("/", []string{"a", "b"}, 3, 1), teamRule("blue"), exact))
	ki.routeCondition(ki.ns, "shop", "Accepted", "True", "Accepted")
	ki.waitAnswer(host, "/team/x", 200, "c ", "X-Team", "blue")
	ki.waitSynced()

	if counts := upstreamCounts(t, ki.Proxy, host, "/", 80); !splitThreeToOne(counts, 80) {
		t.Errorf("80 requests to / went %v; want a and b by weights 3:1", counts)
	}
	for _, c := range []struct {
		path string
		hdr  []string
		want string
	}{
		{"/team/x", []string{"X-Team", "blue"}, "c"},
		{"/team/x", []string{"X-Team", "red"}, "a|b"},
		{"/exact", nil, "b"},
	} {
		code, body := ki.get(host, c.path, c.hdr...)
		from := strings.Fields(body + " -")[0]
		if code != 200 || !strings.Contains("|"+c.want+"|", "|"+from+"|") {
			t.Errorf("GET %s%s %v = %d %q, want 200 from %s", host, c.path, c.hdr, code, body, c.want)
		}
	}
}

// testListenerOwnPort: a route attached by sectionName to a listener on a port of its own
// is served on that port alone, and only that listener counts it.
func testListenerOwnPort(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	a := k.ns.upstream(t, "a")
	ki.service("a", a)
	port := freePort(t)
	ki.httpGateway(kubetest.Listener("alt", port, ""))
	host := ki.host("alt")
	r := kubetest.HTTPRoute(ki.ns, "alt", "gw", []string{host}, kubetest.Rule("/", []string{"a"}))
	alt := gatewayv1.SectionName("alt")
	r.Spec.ParentRefs[0].SectionName = &alt
	k.c.Create(t, r)
	ki.routeCondition(ki.ns, "alt", "Accepted", "True", "Accepted")
	ownURL := fmt.Sprintf("http://127.0.0.1:%d", port)
	ki.waitUntil("GET "+host+"/ on port "+fmt.Sprint(port), 30*time.Second, func() (bool, string) {
		code, body := proxyGet(ownURL, host, "/")
		return code == 200 && strings.HasPrefix(body, "a "), fmt.Sprintf("%d %q", code, body)
	})
	if code, body := ki.get(host, "/"); code != 404 {
		t.Errorf("GET %s/ on restyplane's own port = %d %q, want 404: the route is the alt listener's", host, code, body)
	}
	ki.waitUntil("attachedRoutes", 20*time.Second, func() (bool, string) {
		gw := ki.gateway("gw")
		got := map[gatewayv1.SectionName]int32{}
		for _, l := range gw.Status.Listeners {
			got[l.Name] = l.AttachedRoutes
		}
		return got["alt"] == 1 && got["http"] == 0, fmt.Sprint(got)
	})
}
