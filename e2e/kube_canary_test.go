package e2e

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testCanaryWeightPushed: an Ingress canary's canary-weight moving from 0 to 100 and back
// is applied by a dynamic push each time, never a reload (the location keeps the main
// Ingress's backend, and the split is a field of that backend), and the traffic follows.
func testCanaryWeightPushed(t *testing.T, k *kube) {
	ki := k.serve(t)
	ki.service("web", k.ns.upstream(t, "a"))
	ki.service("next", k.ns.upstream(t, "b"))
	host := ki.host("canary")
	k.c.Create(t, kubetest.Ingress(ki.ns, "main", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	canary := kubetest.Ingress(ki.ns, "canary", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "next", Port: 80})
	canary.Annotations = map[string]string{nginxAnn + "canary": "true", nginxAnn + "canary-weight": "0"}
	k.c.Create(t, canary)
	ki.waitFor(host, "/", 200)
	ki.waitSynced()
	ki.wantAllFrom(host, "a")

	ings := k.c.Client.NetworkingV1().Ingresses(ki.ns)
	for _, step := range []struct{ weight, want string }{{"100", "b"}, {"0", "a"}, {"100", "b"}} {
		before := ki.head()
		// restyplane writes the Ingress's status meanwhile: retry on a newer version.
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			ing, err := ings.Get(context.Background(), "canary", metav1.GetOptions{})
			if err != nil {
				return err
			}
			ing.Annotations[nginxAnn+"canary-weight"] = step.weight
			_, err = ings.Update(context.Background(), ing, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("set canary-weight %s: %v", step.weight, err)
		}
		ki.wantPushed(fmt.Sprintf("canary-weight %s", step.weight), before)
		ki.wantAllFrom(host, step.want)
	}
}
