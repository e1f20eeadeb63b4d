package conformance

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/internal/rptest"
)

const (
	// GatewayClass is the class the suite's Gateways name, of restyplane's controller.
	GatewayClass = "restyplane"
	// gatewayController is the controllerName restyplane answers to by default.
	gatewayController = "restyplane.io/gateway-controller"
	// adminToken is restyplane's first admin token in the harness.
	adminToken = "rp_conformance_admin_token_0123456789"
)

// Addresses are where restyplane serves in the harness: its nginx's own address, and
// the pool its Gateways get addresses of their own from (--gateway-addresses), with the
// part given only on request (--gateway-requested-addresses) and an address outside
// both, which the suite's GatewayStaticAddresses test asks for.
type Addresses struct {
	Proxy, Pool, Requested, Unusable string
}

// StartRestyplane runs restyplane serve with its reconciler on the cluster and its nginx
// on a loopback address of its own, ports 80 and 443, and gives each Gateway an address
// of its own from a loopback /25 where nothing listens (the suite's listeners' ports
// are served there), which it writes into the Gateways' status; and the GatewayClass the
// suite's Gateways name. The test's cleanup stops restyplane before the cluster.
func StartRestyplane(t testing.TB, c *Cluster) Addresses {
	t.Helper()
	addr, err := gatewayAddress()
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	pool, err := gatewayPool(addr)
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "restyplane-system"}}
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("conformance: create namespace %s: %v", ns.Name, err)
	}
	gc := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: GatewayClass},
		Spec: gatewayv1.GatewayClassSpec{ControllerName: gatewayController}}
	if _, err := c.Gateway.GatewayV1().GatewayClasses().Create(ctx, gc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("conformance: create GatewayClass: %v", err)
	}
	rptest.Start(t, rptest.Options{Token: adminToken, Reason: "gateway api conformance",
		Proxy: net.JoinHostPort(addr, "80"), TLS: net.JoinHostPort(addr, "443"),
		Args: []string{"--kubeconfig", c.Kubeconfig, "--lease-namespace", ns.Name,
			"--lease-identity", "conformance", "--gateway-address", addr,
			"--gateway-addresses", pool.Pool, "--gateway-requested-addresses", pool.Requested}})
	return pool
}

// gatewayAddress picks a loopback address, derived from the pid so that concurrent runs
// rarely meet, on which ports 80 and 443 are free.
func gatewayAddress() (string, error) {
	start := os.Getpid()
	for i := range 200 {
		n := start + i*7919
		addr := fmt.Sprintf("127.214.%d.%d", n/250%250, 1+n%250)
		if free(addr, "80") && free(addr, "443") {
			return addr, nil
		}
	}
	return "", fmt.Errorf("no loopback address in 127.214.0.0/16 with ports 80 and 443 free (does a server listen on *:80?)")
}

// free reports whether addr:port can be listened on now.
func free(addr, port string) bool {
	l, err := net.Listen("tcp", net.JoinHostPort(addr, port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// waitGatewayClassAccepted waits until restyplane has accepted the GatewayClass and said
// which features it supports, which the suite reads.
func waitGatewayClassAccepted(t testing.TB, c *Cluster, within time.Duration) *gatewayv1.GatewayClass {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		gc, err := c.Gateway.GatewayV1().GatewayClasses().Get(context.Background(), GatewayClass, metav1.GetOptions{})
		if err == nil {
			for _, cond := range gc.Status.Conditions {
				if cond.Type == string(gatewayv1.GatewayClassConditionStatusAccepted) && cond.Status == metav1.ConditionTrue {
					return gc
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("conformance: GatewayClass %s not Accepted within %v (%v)", GatewayClass, within, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
