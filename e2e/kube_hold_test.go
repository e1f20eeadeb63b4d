package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testAutomaticRollbackHolds: an Ingress edit that sends its traffic to a failing Service
// is rolled back automatically, and stays rolled back when the reconciler syncs again (here
// for another Ingress), where before that sync put the failing route back live. The Ingress
// hears why; editing it again is served.
func testAutomaticRollbackHolds(t *testing.T, k *kube) {
	ki := k.serve(t)
	ki.rollBackQuickly()
	a, failing, b := k.ns.upstream(t, "a"), k.ns.upstream(t, "failing"), k.ns.upstream(t, "b")
	ki.service("web", a)
	ki.service("broken", failing)
	ki.service("next", b)
	host := ki.host("shop")
	k.c.Create(t, kubetest.Ingress(ki.ns, "shop", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(host, "a", time.Now(), 5*time.Second)
	ki.waitSynced()

	routeTo := func(svc string) {
		t.Helper()
		ings := k.c.Client.NetworkingV1().Ingresses(ki.ns)
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			ing, err := ings.Get(context.Background(), "shop", metav1.GetOptions{})
			if err != nil {
				return err
			}
			ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = svc
			_, err = ings.Update(context.Background(), ing, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("route shop to %s: %v", svc, err)
		}
	}
	routeTo("broken")
	deadline := time.Now().Add(10 * time.Second)
	for code, body := ki.get(host, "/"); !strings.HasPrefix(body, "failing "); code, body = ki.get(host, "/") {
		if time.Now().After(deadline) {
			t.Fatalf("the edit to the failing Service is not served: %d %q", code, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	bad := ki.head()

	// Failures from three client addresses roll it back.
	deadline = time.Now().Add(20 * time.Second)
	for i := 0; ; i++ {
		ki.getAs(clients[i%len(clients)], host, "/")
		if st := ki.status(); st["head"].(float64) > float64(bad) && st["inSync"] == true {
			break
		}
		if time.Now().After(deadline) || i > 2000 {
			t.Fatalf("no automatic rollback of revision %d: %v", bad, ki.status())
		}
		time.Sleep(10 * time.Millisecond)
	}
	ki.servedBy(host, "a", time.Now(), 5*time.Second)
	if e := ki.event("shop", "RolledBack"); e.Type != corev1.EventTypeWarning {
		t.Errorf("RolledBack event type = %q, want Warning", e.Type)
	} else {
		t.Logf("the Ingress hears: %s", e.Message)
	}

	// Another Ingress: the reconciler translates everything again.
	other := ki.host("other")
	k.c.Create(t, kubetest.Ingress(ki.ns, "other", ingressClass, kubetest.Path{Host: other, Path: "/", Service: "web", Port: 80}))
	ki.servedBy(other, "a", time.Now(), 5*time.Second)
	ki.waitSynced()
	for i := 0; i < 50; i++ {
		if code, body := ki.get(host, "/"); code != 200 || !strings.HasPrefix(body, "a ") {
			t.Fatalf("after another Ingress's sync, shop answers %d %q: the rolled-back edit is live again", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// The team fixes its Ingress: the new edit is served.
	routeTo("next")
	ki.servedBy(host, "b", time.Now(), 5*time.Second)
	ki.waitSynced()
	var holds struct{ Items []map[string]any }
	if code := ki.call("GET", "/api/v1/holds", nil, &holds); code != 200 || len(holds.Items) != 0 {
		t.Errorf("GET /api/v1/holds after the Ingress's fix: %d %v, want none", code, holds.Items)
	}
}
