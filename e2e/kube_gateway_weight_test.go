package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testWeightMovesPushed: an HTTPRoute's rule of two Services whose weights move, to and
// from 0, and both to 0, is applied by a dynamic push each time, never a reload, and the
// traffic follows at once: every request to the Service of weight 100, none to the one of
// weight 0, and every request answered 500 when both weigh 0, as the spec says.
func testWeightMovesPushed(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	ki.service("a", k.ns.upstream(t, "a"))
	ki.service("b", k.ns.upstream(t, "b"))
	ki.httpGateway()
	host := ki.host("weights")
	k.c.Create(t, kubetest.HTTPRoute(ki.ns, "weights", "gw", []string{host}, kubetest.Rule("/", []string{"a", "b"}, 100, 0)))
	ki.routeCondition(ki.ns, "weights", "Accepted", "True", "Accepted")
	ki.waitAnswer(host, "/", 200, "a ")
	ki.waitSynced()
	ki.wantAllFrom(host, "a")

	for _, step := range []struct {
		a, b int32
		want string // the upstream every request reaches, or "500"
	}{{0, 100, "b"}, {100, 0, "a"}, {0, 0, "500"}, {0, 100, "b"}} {
		ki.setWeights("weights", step.a, step.b)
		ki.wantAllFrom(host, step.want)
	}
}

// setWeights gives the two backendRefs of the route's first rule the weights, waits for
// the revision that writes them and its apply, and fails unless every apply since was a
// dynamic push.
func (ki *kubeInstance) setWeights(route string, a, b int32) {
	ki.t.Helper()
	before := ki.head()
	routes := ki.k.c.Gateway.GatewayV1().HTTPRoutes(ki.ns)
	// restyplane writes the route's status meanwhile: an update of an older version is
	// refused, and taken again from the newest.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		r, err := routes.Get(context.Background(), route, metav1.GetOptions{})
		if err != nil {
			return err
		}
		r.Spec.Rules[0].BackendRefs[0].Weight, r.Spec.Rules[0].BackendRefs[1].Weight = &a, &b
		_, err = routes.Update(context.Background(), r, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		ki.t.Fatalf("set the weights of HTTPRoute %s: %v", route, err)
	}
	ki.wantPushed(fmt.Sprintf("weights %d/%d", a, b), before)
}

// wantPushed waits for a revision after before and its apply, and fails unless every
// apply since was a dynamic push.
func (ki *kubeInstance) wantPushed(what string, before int64) {
	ki.t.Helper()
	ki.waitUntil(fmt.Sprintf("a revision after %d", before), 20*time.Second, func() (bool, string) {
		h := ki.head()
		return h > before, fmt.Sprintf("head %d", h)
	})
	ki.waitSynced()
	var applies struct {
		Items []struct {
			Revision int64
			Mode     string
			Outcome  string
		}
	}
	ki.call("GET", "/api/v1/applies?limit=20", nil, &applies)
	var modes []string
	for _, ap := range applies.Items {
		if ap.Revision > before {
			modes = append(modes, fmt.Sprintf("revision %d %s %s", ap.Revision, ap.Mode, ap.Outcome))
		}
	}
	if len(modes) == 0 {
		ki.t.Fatalf("%s: no apply after revision %d", what, before)
	}
	for _, m := range modes {
		if !strings.HasSuffix(m, " dynamic success") {
			ki.t.Errorf("%s applied as %v, want a dynamic push each", what, modes)
			break
		}
	}
}

// wantAllFrom fails unless 40 requests to host's / all come from upstream want, or are
// all answered 500 when want is "500".
func (ki *kubeInstance) wantAllFrom(host, want string) {
	ki.t.Helper()
	got := map[string]int{}
	for range 40 {
		code, body := ki.get(host, "/")
		from := fmt.Sprint(code)
		if code == 200 {
			from = strings.Fields(body + " -")[0]
		}
		got[from]++
	}
	if got[want] != 40 {
		ki.t.Errorf("40 requests to %s/ went %v, want all to %s", host, got, want)
	}
}
