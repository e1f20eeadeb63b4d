package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testRouteRollback: a route's change is one revision whose message names the route and
// its generation; rolling the history back to the revision before it moves traffic back,
// and the Gateway, though the proxy serves the rollback, is not Programmed while the
// rollback holds what its route asks for.
func testRouteRollback(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	a, b := k.ns.upstream(t, "a"), k.ns.upstream(t, "b")
	ki.service("a", a)
	ki.service("b", b)
	ki.httpGateway()
	host := ki.host("shop")
	k.c.Create(t, kubetest.HTTPRoute(ki.ns, "shop", "gw", []string{host}, kubetest.Rule("/", []string{"a"})))
	ki.servedBy(host, "a", time.Now(), 30*time.Second)
	ki.waitSynced()
	before := ki.head()

	routes := k.c.Gateway.GatewayV1().HTTPRoutes(ki.ns)
	r, err := routes.Get(context.Background(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the route: %v", err)
	}
	r.Spec.Rules[0].BackendRefs[0].Name = gatewayv1.ObjectName("b")
	if r, err = routes.Update(context.Background(), r, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("edit the route: %v", err)
	}
	ki.servedBy(host, "b", time.Now(), 30*time.Second)
	var rev struct {
		Message string `json:"message"`
	}
	ki.call("GET", fmt.Sprintf("/api/v1/revisions/%d", ki.head()), nil, &rev)
	if want := fmt.Sprintf("HTTPRoute %s/shop generation %d", ki.ns, r.Generation); !strings.Contains(rev.Message, want) {
		t.Errorf("the edit's revision message %q does not name %q", rev.Message, want)
	}

	ki.must("POST", fmt.Sprintf("/api/v1/revisions/%d/rollback", before), map[string]any{"message": "e2e: back to a"})
	ki.servedBy(host, "a", time.Now(), 30*time.Second)
	ki.waitUntil("the Gateway not Programmed while the rollback holds its route", 20*time.Second, func() (bool, string) {
		gw := ki.gateway("gw")
		ok, last := hasCondition(gw.Status.Conditions, string(gatewayv1.GatewayConditionProgrammed), "False", "Invalid", gw.Generation)
		return ok && strings.Contains(last, "a rollback") && strings.Contains(last, "DELETE /api/v1/holds/"), last
	})
}
