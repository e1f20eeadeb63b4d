package kubetest

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestGatewayAPIServed checks that the API server accepts Gateway API's CRDs of the
// version go.mod names and serves and validates their objects.
func TestGatewayAPIServed(t *testing.T) {
	c := StartGatewayAPIT(t)
	ctx := context.Background()
	gc := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "restyplane"},
		Spec: gatewayv1.GatewayClassSpec{ControllerName: "restyplane.io/gateway-controller"}}
	if _, err := c.Gateway.GatewayV1().GatewayClasses().Create(ctx, gc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create GatewayClass: %v", err)
	}
	// The CRDs' validation runs: a controller name that is not a domain-prefixed path is refused.
	bad := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "bad"},
		Spec: gatewayv1.GatewayClassSpec{ControllerName: "no-domain"}}
	if _, err := c.Gateway.GatewayV1().GatewayClasses().Create(ctx, bad, metav1.CreateOptions{}); err == nil {
		t.Errorf("a GatewayClass with controllerName %q was accepted", bad.Spec.ControllerName)
	}
	ns := c.Namespace(t, "gw")
	for _, list := range []func() error{
		func() error {
			_, err := c.Gateway.GatewayV1().HTTPRoutes(ns).List(ctx, metav1.ListOptions{})
			return err
		},
		func() error {
			_, err := c.Gateway.GatewayV1().GRPCRoutes(ns).List(ctx, metav1.ListOptions{})
			return err
		},
		func() error {
			_, err := c.Gateway.GatewayV1beta1().ReferenceGrants(ns).List(ctx, metav1.ListOptions{})
			return err
		},
		func() error {
			_, err := c.Gateway.GatewayV1().BackendTLSPolicies(ns).List(ctx, metav1.ListOptions{})
			return err
		},
	} {
		if err := list(); err != nil {
			t.Errorf("list: %v", err)
		}
	}
}
