package reconciler_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
	"github.com/restyplane/restyplane/store"
)

// servingStore is the store with the revision the proxy serves, what it left out of it,
// and the revision it failed to apply, set by the test, as restyplane serve's store says
// what its nginx serves.
type servingStore struct {
	*store.Store
	served  atomic.Int64
	skipped atomic.Pointer[map[api.Ref]string]
	failed  atomic.Pointer[reconciler.Serving] // Failed, Outcome and Error of the last failure
}

func (s *servingStore) ServedRevision(context.Context) (reconciler.Serving, error) {
	out := reconciler.Serving{Revision: s.served.Load()}
	if sk := s.skipped.Load(); sk != nil {
		out.Skipped = *sk
	}
	if f := s.failed.Load(); f != nil && f.Failed > out.Revision {
		out.Failed, out.Outcome, out.Error = f.Failed, f.Outcome, f.Error
	}
	return out, nil
}

var _ reconciler.Served = (*servingStore)(nil)

// runProgrammed runs a reconciler on st and returns it once the proxy serves its first
// revision and the Gateway gw says it is Programmed.
func (f *fixture) runProgrammed(t *testing.T, st *servingStore) *reconciler.Reconciler {
	t.Helper()
	r, _ := f.run(t, st, "one")
	waitFor(t, 10*time.Second, "the route's server in the store", func() bool { return f.store.Head().Revision > 0 })
	rest(t, r)
	st.served.Store(f.store.Head().Revision)
	waitFor(t, 10*time.Second, "the Gateway Programmed", func() bool { return programmed(t, f.c, f.ns, "gw") == "True/Programmed" })
	return r
}

// programmed spells the Gateway's Programmed condition: "Status/Reason".
func programmed(t *testing.T, c *kubetest.Cluster, ns, name string) string {
	t.Helper()
	got, _ := programmedOf(t, c, ns, name)
	return got
}

// programmedOf returns the Gateway's Programmed condition, "Status/Reason" ("none"), and
// its message.
func programmedOf(t *testing.T, c *kubetest.Cluster, ns, name string) (string, string) {
	t.Helper()
	gw, err := c.Gateway.GatewayV1().Gateways(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get gateway: %v", err)
	}
	for _, cd := range gw.Status.Conditions {
		if cd.Type == string(gatewayv1.GatewayConditionProgrammed) {
			return fmt.Sprintf("%s/%s", cd.Status, cd.Reason), cd.Message
		}
	}
	return "none", ""
}

// TestGatewayProgrammedWaitsForPolicyRevision: a BackendTLSPolicy put on the Service of a
// Gateway's route changes what the Gateway serves (its backend speaks verified TLS now)
// without a new generation of the Gateway or of the route. The revision it makes must be
// served before the Gateway is Programmed again: until then it is Pending.
func TestGatewayProgrammedWaitsForPolicyRevision(t *testing.T) {
	f := newGatewayFixture(t)
	st := &servingStore{Store: f.store}
	f.c.Create(t,
		kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8443, kubetest.Ready("10.2.0.1")...),
		kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, "")),
		kubetest.HTTPRoute(f.ns, "shop", "gw", []string{"shop.example.com"}, kubetest.Rule("/", []string{"web"})))
	r := f.runProgrammed(t, st)

	before := f.store.Head().Revision
	ca, _ := kubetest.CA(t, "test CA")
	f.c.Create(t,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "ca"}, Data: map[string]string{"ca.crt": string(ca)}},
		&gatewayv1.BackendTLSPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "secure"},
			Spec: gatewayv1.BackendTLSPolicySpec{
				TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{{
					LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Kind: "Service", Name: "web"}}},
				Validation: gatewayv1.BackendTLSPolicyValidation{Hostname: "web.internal",
					CACertificateRefs: []gatewayv1.LocalObjectReference{{Kind: "ConfigMap", Name: "ca"}}}}})
	tls := "k8s." + f.ns + ".web.80.tls"
	waitFor(t, 10*time.Second, "the TLS backend in the store", func() bool { return f.store.Head().Backends[tls] != nil })
	rest(t, r)
	policies := f.c.Gateway.GatewayV1().BackendTLSPolicies(f.ns)
	// The policy's status is written after the Gateway's, by the same report.
	waitFor(t, 10*time.Second, "the policy's ancestor status", func() bool {
		p, err := policies.Get(context.Background(), "secure", metav1.GetOptions{})
		return err == nil && len(p.Status.Ancestors) == 1
	})
	if rev := f.store.Head().Revision; rev <= before {
		t.Fatalf("head revision %d after the policy, want a new one after %d", rev, before)
	}
	if got := programmed(t, f.c, f.ns, "gw"); got != "False/Pending" {
		t.Fatalf("the Gateway while the proxy still serves revision %d, before the policy's %d: Programmed %s, want False/Pending",
			before, f.store.Head().Revision, got)
	}
	st.served.Store(f.store.Head().Revision)
	waitFor(t, 10*time.Second, "the Gateway Programmed once the policy's revision is served", func() bool {
		return programmed(t, f.c, f.ns, "gw") == "True/Programmed"
	})

	// Another CA in the policy's ConfigMap: the same again, with no new generation of the
	// policy either.
	before = f.store.Head().Revision
	other, _ := kubetest.CA(t, "another CA")
	cms := f.c.Client.CoreV1().ConfigMaps(f.ns)
	cm, err := cms.Get(context.Background(), "ca", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get configmap: %v", err)
	}
	cm.Data["ca.crt"] = string(other)
	if _, err := cms.Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update configmap: %v", err)
	}
	waitFor(t, 10*time.Second, "the Gateway Pending for the new CA's revision", func() bool {
		return f.store.Head().Revision > before && programmed(t, f.c, f.ns, "gw") == "False/Pending"
	})
	st.served.Store(f.store.Head().Revision)
	waitFor(t, 10*time.Second, "the Gateway Programmed once the new CA's revision is served", func() bool {
		return programmed(t, f.c, f.ns, "gw") == "True/Programmed"
	})
}
