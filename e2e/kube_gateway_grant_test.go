package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// testIngressSecretGrant: an Ingress's auth-secret naming another namespace's Secret is
// refused (its path held at 503) until a ReferenceGrant of that namespace lets Ingresses
// of the Ingress's namespace use the Secret; then basic auth applies.
func testIngressSecretGrant(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	ki.service("web", k.ns.upstream(t, "web"))
	owner := ki.otherNamespace("owner")
	k.c.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: owner, Name: "admins"},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"auth": []byte(htpasswdLines())}})
	host := ki.host("guarded")
	ing := kubetest.Ingress(ki.ns, "guarded", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80})
	ing.Annotations = map[string]string{nginxAnn + "auth-type": "basic", nginxAnn + "auth-secret": owner + "/admins"}
	k.c.Create(t, ing)
	e := ki.event("guarded", reconciler.ReasonRefusedAnnotation)
	if !strings.Contains(e.Message, "ReferenceGrant") || !strings.Contains(e.Message, owner+"/admins") {
		t.Fatalf("refusal event %q does not say that a ReferenceGrant of %s is needed for %s/admins", e.Message, owner, owner)
	}
	ki.waitFor(host, "/x", 503)

	name := gatewayv1.ObjectName("admins")
	k.c.Create(t, &gatewayv1beta1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: owner, Name: "ingress-auth"},
		Spec: gatewayv1beta1.ReferenceGrantSpec{
			From: []gatewayv1beta1.ReferenceGrantFrom{{Group: "networking.k8s.io", Kind: "Ingress", Namespace: gatewayv1.Namespace(ki.ns)}},
			To:   []gatewayv1beta1.ReferenceGrantTo{{Group: "", Kind: "Secret", Name: &name}}}})
	ki.waitFor(host, "/x", 401)
	// The 401 may come from a new worker while the reload that brought it in is still
	// under way: a kept-alive connection to an old worker, idle in the client's pool, is
	// answered by the old revision until that worker closes it. The user's request is
	// looked at until it is the new revision's too.
	u := htpasswdUsers[0]
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, body := ki.do(host, "/x", "Authorization", basic(u, "secret"))
		if resp.StatusCode == 200 && strings.HasPrefix(body, "web /x") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("user %s of the granted Secret: %d %q after 15s, want 200 from web", u, resp.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
