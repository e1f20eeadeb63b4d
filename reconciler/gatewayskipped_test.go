package reconciler_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestGatewayLeftOutIsNotProgrammed: the proxy serves the Gateway's revision, but without
// its route's server, which nginx refused, and later without its listener's certificate:
// the rest of the revision went live, not what the Gateway makes. The Gateway and its
// listeners must not read Programmed while it is left out; they say which object, which
// instance, which revision and nginx's reason; once an apply (the applier's retry, with
// no new revision) serves it, they are Programmed again.
func TestGatewayLeftOutIsNotProgrammed(t *testing.T) {
	f := newGatewayFixture(t)
	st := &servingStore{Store: f.store}
	const host = "shop.example.com"
	createShopGateway(t, f, host)
	r, _ := f.run(t, st, "one")
	server := "k8s." + host + "_80"
	waitFor(t, 10*time.Second, "the route's server in the store", func() bool { return f.store.Head().Servers[server] != nil })
	rest(t, r)

	// The proxy serves the revision without the server.
	const refused = `nginx -t: [emerg] SSL_CTX_use_certificate("/p/certs/x.crt") failed (SSL: error:0A00018F:SSL routines::ee key too small)`
	rev := f.store.Head().Revision
	st.skipped.Store(&map[api.Ref]string{{Kind: api.KindServer, Name: server}: "edge-1: " + refused})
	st.served.Store(rev)
	waitRefused(t, f, rev, "False/Invalid", "server "+server, "edge-1", "ee key too small")
	// The applier's retry serves it, in the same revision.
	st.skipped.Store(nil)
	waitFor(t, 10*time.Second, "the Gateway Programmed once its server is served", func() bool {
		return programmed(t, f.c, f.ns, "gw") == "True/Programmed" && listenersProgrammed(t, f, "gw") == "True/Programmed True/Programmed"
	})

	// Another certificate in the listener's Secret; the proxy serves its revision without it.
	before := f.store.Head().Revision
	secrets := f.c.Client.CoreV1().Secrets(f.ns)
	sec, err := secrets.Get(context.Background(), "cert", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get secret: %v", err)
	}
	sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey] = kubetest.SelfSigned(t, host)
	if _, err := secrets.Update(context.Background(), sec, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update secret: %v", err)
	}
	waitPending(t, f, before, "the new certificate")
	var certificate string
	for n := range f.store.Head().Certificates {
		certificate = n
	}
	rev = f.store.Head().Revision
	st.skipped.Store(&map[api.Ref]string{{Kind: api.KindCertificate, Name: certificate}: "edge-1, edge-2: the certificates dict is full"})
	st.served.Store(rev)
	waitRefused(t, f, rev, "False/Invalid", "certificate "+certificate, "edge-1, edge-2", "dict is full")
	st.skipped.Store(nil)
	waitFor(t, 10*time.Second, "the Gateway Programmed once its certificate is served", func() bool {
		return programmed(t, f.c, f.ns, "gw") == "True/Programmed" && listenersProgrammed(t, f, "gw") == "True/Programmed True/Programmed"
	})
}

// TestGatewayLeftOutLaterIsTold: a Gateway already Programmed whose server a later apply
// of the same revision leaves out (a full push after nginx restarted, say) hears of it
// from that apply's report, not at the next change of the cluster.
func TestGatewayLeftOutLaterIsTold(t *testing.T) {
	f := newGatewayFixture(t)
	st := &servingStore{Store: f.store}
	const host = "shop.example.com"
	createShopGateway(t, f, host)
	r := f.runProgrammed(t, st)
	server := "k8s." + host + "_80"
	rev := f.store.Head().Revision
	why := "the policies dict is full"
	st.skipped.Store(&map[api.Ref]string{{Kind: api.KindServer, Name: server}: "default: " + why})
	r.ReportApply(api.ApplyRecord{Instance: "default", Revision: rev, Outcome: api.OutcomeSuccess,
		Skipped: []api.SkippedObject{{Kind: api.KindServer, Name: server, Reason: why}}})
	waitRefused(t, f, rev, "False/Invalid", "server "+server, "default", why)
}

// createShopGateway makes a Gateway "gw" of an HTTP and an HTTPS listener (Secret "cert")
// and a route "shop" for host to Service "web".
func createShopGateway(t *testing.T, f *fixture, host string) {
	t.Helper()
	cert, key := kubetest.SelfSigned(t, host)
	f.c.Create(t, kubetest.TLSSecret(f.ns, "cert", cert, key),
		kubetest.Service(f.ns, "web", 80), kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Ready("10.2.0.1")...),
		kubetest.Gateway(f.ns, "gw", f.class, kubetest.Listener("http", 80, ""), kubetest.HTTPSListener("https", 443, "", "cert")),
		kubetest.HTTPRoute(f.ns, "shop", "gw", []string{host}, kubetest.Rule("/", []string{"web"})))
}
