package reconciler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestGatewayProgrammedWaitsForReferencedObjects: another certificate in a listener's
// Secret, and another port of the Service a route's backendRef names, change what a
// Gateway serves (the certificate it presents; its route's share of requests answers 500)
// with no new generation of the Gateway or of the route. The revision each makes must be
// served before the Gateway and its listeners are Programmed again.
func TestGatewayProgrammedWaitsForReferencedObjects(t *testing.T) {
	f := newGatewayFixture(t)
	st := &servingStore{Store: f.store}
	cert, key := kubetest.SelfSigned(t, "shop.example.com")
	f.c.Create(t, kubetest.TLSSecret(f.ns, "cert", cert, key),
		kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.2.0.1")...),
		kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, ""), kubetest.HTTPSListener("https", 443, "", "cert")),
		kubetest.HTTPRoute(f.ns, "shop", "gw", []string{"shop.example.com"}, kubetest.Rule("/", []string{"web"})))
	f.runProgrammed(t, st)

	// Another certificate in the listener's Secret: a revision with the new certificate.
	before := f.store.Head().Revision
	secrets := f.c.Client.CoreV1().Secrets(f.ns)
	sec, err := secrets.Get(context.Background(), "cert", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get secret: %v", err)
	}
	sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey] = kubetest.SelfSigned(t, "shop.example.com")
	if _, err := secrets.Update(context.Background(), sec, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update secret: %v", err)
	}
	waitPending(t, f, before, "the new certificate")
	// nginx refuses it: the Gateway says so, with the revision and nginx's error.
	rev := f.store.Head().Revision
	st.failed.Store(&reconciler.Serving{Failed: rev, Outcome: api.OutcomeRejected, Error: "nginx: [emerg] cannot load certificate"})
	waitRefused(t, f, rev, "False/Invalid", "nginx refused it", "[emerg] cannot load certificate")
	st.served.Store(f.store.Head().Revision)
	waitFor(t, 10*time.Second, "the Gateway Programmed once the new certificate's revision is served", func() bool {
		return programmed(t, f.c, f.ns, "gw") == "True/Programmed"
	})

	// The Service's port 80 becomes 81: the route's backendRef (port 80) no longer
	// resolves, and its requests answer 500.
	before = f.store.Head().Revision
	svcs := f.c.Client.CoreV1().Services(f.ns)
	svc, err := svcs.Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get service: %v", err)
	}
	svc.Spec.Ports[0].Port = 81
	if _, err := svcs.Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update service: %v", err)
	}
	waitPending(t, f, before, "the Service's new port")
	// Its apply fails outside nginx's verdict, and is tried again: still Pending, and why.
	rev = f.store.Head().Revision
	st.failed.Store(&reconciler.Serving{Failed: rev, Outcome: api.OutcomeFailed, Error: "dial unix admin.sock: connection refused"})
	waitRefused(t, f, rev, "False/Pending", "tried again", "connection refused")
	st.served.Store(f.store.Head().Revision)
	waitFor(t, 10*time.Second, "the Gateway Programmed once the new port's revision is served", func() bool {
		return programmed(t, f.c, f.ns, "gw") == "True/Programmed"
	})
}

// waitPending waits for a revision after before, and for the Gateway "gw" and its
// listeners to be Programmed False (Pending) while the proxy serves the revision before.
func waitPending(t *testing.T, f *fixture, before int64, what string) {
	t.Helper()
	waitFor(t, 10*time.Second, "a revision of "+what, func() bool { return f.store.Head().Revision > before })
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, listeners := programmed(t, f.c, f.ns, "gw"), listenersProgrammed(t, f, "gw")
		if got == "False/Pending" && listeners == "False/Pending False/Pending" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Gateway while the proxy serves revision %d, before the revision %d of %s: Programmed %s (listeners %s), want False/Pending",
				before, f.store.Head().Revision, what, got, listeners)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listenersProgrammed spells the Programmed condition of each listener of the Gateway,
// in order, as programmed does.
func listenersProgrammed(t *testing.T, f *fixture, name string) string {
	t.Helper()
	gw, err := f.c.Gateway.GatewayV1().Gateways(f.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get gateway: %v", err)
	}
	var out []string
	for _, l := range gw.Status.Listeners {
		for _, cd := range l.Conditions {
			if cd.Type == string(gatewayv1.ListenerConditionProgrammed) {
				out = append(out, string(cd.Status)+"/"+cd.Reason)
			}
		}
	}
	return strings.Join(out, " ")
}

// waitRefused waits for the Gateway "gw" and its listeners to be Programmed as want
// ("Status/Reason") with a message that names revision rev and holds each of says.
func waitRefused(t *testing.T, f *fixture, rev int64, want string, says ...string) {
	t.Helper()
	waitGatewaySays(t, f, want, want+" "+want, fmt.Sprintf("after revision %d did not apply", rev),
		append(says, fmt.Sprintf("revision %d ", rev))...)
}

// waitGatewaySays waits for the Gateway "gw" to read Programmed want ("Status/Reason"),
// its listeners listeners, with a message that holds each of says.
func waitGatewaySays(t *testing.T, f *fixture, want, listeners, when string, says ...string) {
	t.Helper()
	var got, msg string
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, msg = programmedOf(t, f.c, f.ns, "gw")
		ok := got == want && listenersProgrammed(t, f, "gw") == listeners
		for _, s := range says {
			ok = ok && strings.Contains(msg, s)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Gateway %s: Programmed %s (listeners %s) %q, want %s (listeners %s) saying %q",
				when, got, listenersProgrammed(t, f, "gw"), msg, want, listeners, says)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
