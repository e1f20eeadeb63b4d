package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testFailingPodsAreNotRolledBack: when a Service's Pods are replaced by failing ones (a bad
// rollout), the endpoints move with them and stay there. An automatic rollback would point
// the proxy at Pods that are gone, and the next sync would move it back: a loop of
// revisions between the two while the failures last.
func testFailingPodsAreNotRolledBack(t *testing.T, k *kube) {
	ki := k.serve(t)
	ki.rollBackQuickly()
	a, failing := k.ns.upstream(t, "a"), k.ns.upstream(t, "failing")
	ki.service("web", a)
	host := ki.host("shop")
	k.c.Create(t, kubetest.Ingress(ki.ns, "shop", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(host, "a", time.Now(), 5*time.Second)
	ki.waitSynced()
	ki.setEndpoints("web", failing)
	deadline := time.Now().Add(10 * time.Second)
	for code, body := ki.get(host, "/"); !strings.HasPrefix(body, "failing "); code, body = ki.get(host, "/") {
		if time.Now().After(deadline) {
			t.Fatalf("the new Pods are not served: %d %q", code, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	moved := ki.head()
	for i := 0; i < 300; i++ {
		ki.getAs(clients[i%len(clients)], host, "/")
		time.Sleep(10 * time.Millisecond)
	}
	ki.waitSynced()
	var revs struct{ Items []map[string]any }
	ki.call("GET", "/api/v1/revisions?limit=20", nil, &revs)
	for _, r := range revs.Items {
		if r["id"].(float64) > float64(moved) {
			t.Errorf("revision %v after the Pods moved: %v by %v", r["id"], r["message"], r["actor"])
		}
	}
}
