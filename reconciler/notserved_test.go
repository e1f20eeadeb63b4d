package reconciler_test

import (
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestNotServedEvent: when an apply record says an instance's nginx refused the server an
// Ingress routes by, the Ingress gets a Warning Event naming the instance, the server and
// nginx's reason, on the real API server; the same refusal again says nothing new.
func TestNotServedEvent(t *testing.T) {
	f := newFixture(t)
	const host = "refused.example.com"
	f.c.Create(t, kubetest.Service(f.ns, "web", 80),
		kubetest.EndpointSlice(f.ns, "web", "web-1", 8080, kubetest.Endpoint{Address: "10.1.0.2"}))
	r, _ := f.run(t, f.store, "one")
	f.c.Create(t, kubetest.Ingress(f.ns, "web", f.class, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	server := "k8s." + host
	waitFor(t, 5*time.Second, "the Ingress in the store", func() bool { return f.store.Head().Servers[server] != nil })

	const why = `nginx -t: [emerg] SSL_CTX_use_PrivateKey("/p/certs/x.key") failed (SSL: key values mismatch)`
	rec := api.ApplyRecord{Instance: "edge-1", Revision: f.store.Head().Revision, Outcome: api.OutcomeSuccess,
		Skipped: []api.SkippedObject{{Kind: api.KindServer, Name: server, Reason: why}, {Kind: api.KindServer, Name: "k8s.gone.example.com", Reason: why}}}
	r.ReportApply(rec)
	e := f.event(t, "web", reconciler.ReasonNotServed)
	if e.Type != "Warning" || !strings.Contains(e.Message, "edge-1") || !strings.Contains(e.Message, server) || !strings.Contains(e.Message, "key values mismatch") {
		t.Fatalf("event %s %q: want a Warning naming the instance, the server and nginx's reason", e.Type, e.Message)
	}
	r.ReportApply(rec)
	time.Sleep(500 * time.Millisecond)
	if e := f.event(t, "web", reconciler.ReasonNotServed); e.Count > 1 {
		t.Fatalf("the same refusal was reported %d times", e.Count)
	}
}
