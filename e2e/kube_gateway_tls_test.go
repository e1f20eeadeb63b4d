package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testBackendTLSPolicy: a route's Service whose endpoint is a real HTTPS server of a
// test CA fails while the proxy speaks plain HTTP to it; a BackendTLSPolicy whose
// ConfigMap does not exist yet makes it answer 500 and says NoValidCACertificate, never
// plain HTTP; once the ConfigMap exists the proxy verifies the server for the policy's
// hostname and the request succeeds; with a hostname the certificate does not hold it
// answers 502.
func testBackendTLSPolicy(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	ip := k.ns.subnet + "1" // the host's end of the veth: a slice may not name loopback
	ca := newTestCA(t, "backend ca")
	up := tlsUpstreamOn(t, ip, "secure", ca, "api.internal", nil)
	k.c.Create(t, kubetest.Service(ki.ns, "secure", 80),
		kubetest.EndpointSlice(ki.ns, "secure", "secure-1", int32(up["port"].(int)), kubetest.Ready(ip)...))
	ki.httpGateway()
	host := ki.host("btls")
	k.c.Create(t, kubetest.HTTPRoute(ki.ns, "web", "gw", []string{host}, kubetest.Rule("/", []string{"secure"})))
	ki.routeCondition(ki.ns, "web", "Accepted", "True", "Accepted")
	// Go's TLS server answers a plain-HTTP request with a 400 of its own.
	ki.waitAnswer(host, "/x", 400, "Client sent an HTTP request to an HTTPS server")

	p := &gatewayv1.BackendTLSPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ki.ns, Name: "secure"},
		Spec: gatewayv1.BackendTLSPolicySpec{
			TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{{
				LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Kind: "Service", Name: "secure"}}},
			Validation: gatewayv1.BackendTLSPolicyValidation{Hostname: "api.internal",
				CACertificateRefs: []gatewayv1.LocalObjectReference{{Kind: "ConfigMap", Name: "backend-ca"}}}}}
	policies := k.c.Gateway.GatewayV1().BackendTLSPolicies(ki.ns)
	if _, err := policies.Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	msg := ki.policyCondition("secure", "Accepted", "False", "NoValidCACertificate")
	ki.policyCondition("secure", "ResolvedRefs", "False", "InvalidCACertificateRef")
	if !strings.Contains(msg, "answer 500") {
		t.Errorf("Accepted message %q does not say what requests get", msg)
	}
	ki.waitAnswer(host, "/x", 500, "")

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ki.ns, Name: "backend-ca"}, Data: map[string]string{"ca.crt": ca.PEM}}
	if _, err := k.c.Client.CoreV1().ConfigMaps(ki.ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ki.policyCondition("secure", "Accepted", "True", "Accepted")
	ki.policyCondition("secure", "ResolvedRefs", "True", "ResolvedRefs")
	ki.waitAnswer(host, "/x", 200, "secure /x host="+host)

	cur, err := policies.Get(context.Background(), "secure", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Spec.Validation.Hostname = "wrong.internal"
	if _, err := policies.Update(context.Background(), cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ki.waitAnswer(host, "/x", 502, "")
	ki.policyCondition("secure", "Accepted", "True", "Accepted")
}

// testUnresolvedShare: a rule's backendRef to a Service that does not exist, beside one
// that does, keeps its share of the requests, which the proxy answers 500.
func testUnresolvedShare(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	ki.service("a", k.ns.upstream(t, "a"))
	ki.httpGateway()
	host := ki.host("share")
	k.c.Create(t, kubetest.HTTPRoute(ki.ns, "share", "gw", []string{host}, kubetest.Rule("/", []string{"a", "missing"}, 1, 1)))
	ki.routeCondition(ki.ns, "share", "ResolvedRefs", "False", "BackendNotFound")
	ki.waitAnswer(host, "/", 200, "a ")
	ki.waitSynced()
	counts := map[int]int{}
	for range 200 {
		code, _ := ki.get(host, "/")
		counts[code]++
	}
	// Half each, within what 200 draws of a fair coin stray (about 3.5 sigma).
	if counts[200]+counts[500] != 200 || counts[500] < 75 || counts[500] > 125 {
		t.Errorf("200 requests got %v; want about half 500 and half 200", counts)
	}
}

// policyCondition waits until the BackendTLSPolicy's status for restyplane's controller,
// with the Gateway gw as ancestor, has the condition, and returns its message.
func (ki *kubeInstance) policyCondition(name, typ string, status metav1.ConditionStatus, reason string) string {
	ki.t.Helper()
	msg := ""
	ki.waitUntil(fmt.Sprintf("BackendTLSPolicy %s/%s %s=%s/%s", ki.ns, name, typ, status, reason), 20*time.Second, func() (bool, string) {
		p, err := ki.k.c.Gateway.GatewayV1().BackendTLSPolicies(ki.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, a := range p.Status.Ancestors {
			if a.ControllerName != reconciler.DefaultGatewayController || a.AncestorRef.Name != "gw" {
				continue
			}
			ok, last := hasCondition(a.Conditions, typ, status, reason, p.Generation)
			msg = last
			return ok, last
		}
		return false, fmt.Sprintf("no ancestor of restyplane's in %+v", p.Status.Ancestors)
	})
	return msg
}
