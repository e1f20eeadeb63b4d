package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesAuth: basic auth from a real Opaque Secret and external auth against a real
// auth service, both set by ingress-nginx annotations on Ingresses of the real API server,
// behave as they do when set through REST; an Ingress naming another namespace's Secret
// is refused.
func TestKubernetesAuth(t *testing.T) {
	k := newKube(t)
	ki := k.serveWith(t, "--openresty-prefix", searchablePrefix(t))
	ki.service("web", k.ns.upstream(t, "web"))
	a := newAuthServiceOn(t, k.ns.subnet+"1")
	host := ki.host("shop")
	k.c.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ki.ns, Name: "admins"},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"auth": []byte(htpasswdLines())}})
	ing := func(name, path string, ann map[string]string) {
		i := kubetest.Ingress(ki.ns, name, ingressClass, kubetest.Path{Host: host, Path: path, Service: "web", Port: 80})
		i.Annotations = map[string]string{}
		for k, v := range ann {
			i.Annotations[nginxAnn+k] = v
		}
		k.c.Create(t, i)
	}
	ing("open", "/open", nil)
	ing("admin", "/admin", map[string]string{"auth-type": "basic", "auth-secret": "admins", "auth-realm": "shop admin"})
	ing("ext", "/ext", map[string]string{"auth-url": a.url, "auth-response-headers": "X-User"})
	ing("login", "/login", map[string]string{"auth-url": a.url, "auth-response-headers": "X-User",
		"auth-signin": "https://login.test/start", "auth-request-redirect": "https://" + host + "/after"})
	for _, name := range []string{"open", "admin", "ext", "login"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	ki.waitFor(host, "/login/p", 302)
	checkBasicAuth(t, ki.instance, host, "web", "shop admin")
	checkExternalAuth(t, ki.instance, a, host, "web")

	// A team may not use another team's Secret: the Ingress is refused, its path held (503).
	other := k.c.Namespace(t, ki.ns+"-other")
	thief := kubetest.Ingress(other, "thief", ingressClass, kubetest.Path{Host: "thief." + other + ".test", Path: "/", Service: "web", Port: 80})
	thief.Annotations = map[string]string{nginxAnn + "auth-type": "basic", nginxAnn + "auth-secret": ki.ns + "/admins"}
	k.c.Create(t, thief)
	e := ki.eventIn(other, "thief", reconciler.ReasonRefusedAnnotation)
	if !strings.Contains(e.Message, "another namespace") {
		t.Fatalf("refusal event: %q, want it to say the Secret is of another namespace", e.Message)
	}
	ki.waitFor("thief."+other+".test", "/", 503)
}

// TestKubernetesRefusedAuthFailsClosed: an Ingress with basic auth on /admin beside
// another Ingress's / without auth. When its auth Secret is deleted the Ingress can no
// longer be translated and is refused; /admin must then answer 503, never fall through to
// the open / and its upstream.
func TestKubernetesRefusedAuthFailsClosed(t *testing.T) {
	k := newKube(t)
	ki := k.serveWith(t, "--openresty-prefix", searchablePrefix(t))
	ki.service("web", k.ns.upstream(t, "web"))
	host := ki.host("shop")
	k.c.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ki.ns, Name: "admins"},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"auth": []byte(htpasswdLines())}})
	k.c.Create(t, kubetest.Ingress(ki.ns, "open", ingressClass, kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}))
	admin := kubetest.Ingress(ki.ns, "admin", ingressClass, kubetest.Path{Host: host, Path: "/admin", Service: "web", Port: 80})
	admin.Annotations = map[string]string{nginxAnn + "auth-type": "basic", nginxAnn + "auth-secret": "admins"}
	k.c.Create(t, admin)
	ki.event("admin", reconciler.ReasonApplied)
	ki.waitFor(host, "/admin/x", 401)

	if err := k.c.Client.CoreV1().Secrets(ki.ns).Delete(context.Background(), "admins", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if e := ki.event("admin", reconciler.ReasonSkipped); !strings.Contains(e.Message, "admins") {
		t.Fatalf("refusal event %q does not name the Secret", e.Message)
	}
	ki.waitFor(host, "/admin/x", 503)
	for range 20 {
		if resp, body := ki.do(host, "/admin/x"); resp.StatusCode != 503 {
			t.Fatalf("/admin/x after the auth Secret is gone: %d %q, want 503 (never the open / upstream)", resp.StatusCode, body)
		}
	}
	ki.waitFor(host, "/", 200)
}

// nginxAnn is ingress-nginx's annotation prefix.
const nginxAnn = "nginx.ingress.kubernetes.io/"

// waitFor waits until the applier ran the head revision and then until a request for
// host and path through the proxy answers code. An Applied Event says the Ingress is in
// the history, not that it is live: during a reload, workers of the previous generation
// still answer, so one answer of the new config is no proof that the next one will be.
func (ki *kubeInstance) waitFor(host, path string, code int) {
	ki.t.Helper()
	ki.waitSynced()
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, body := ki.do(host, path)
		if resp.StatusCode == code {
			return
		}
		if time.Now().After(deadline) {
			ki.t.Fatalf("GET %s%s = %d %q after 15s, want %d", host, path, resp.StatusCode, body, code)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
