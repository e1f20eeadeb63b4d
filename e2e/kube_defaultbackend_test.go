package e2e

import (
	"testing"
	"time"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesControllerDefaultBackend: with --default-backend, the Service it names
// answers, through nginx, what no Ingress routes (a path no rule of a served host claims,
// a host no Ingress names) and the codes of custom-http-errors on an Ingress without a
// default-backend annotation, while every path an Ingress routes keeps its upstream.
func TestKubernetesControllerDefaultBackend(t *testing.T) {
	k := newKube(t)
	defs := k.c.Namespace(t, "defaults")
	k.c.Create(t, kubetest.Service(defs, "fallback", 80),
		kubetest.EndpointSlice(defs, "fallback", "fallback-1", upstreamPort, ready([]*nsUpstream{k.ns.upstream(t, "fallback")})...))
	ki := k.serveWith(t, "--default-backend", defs+"/fallback:80")
	ki.service("web", k.ns.upstream(t, "web"))
	shop, errs := ki.host("shop"), ki.host("errs")
	app := kubetest.Ingress(ki.ns, "app", ingressClass, kubetest.Path{Host: shop, Path: "/app", Service: "web", Port: 80})
	errIng := kubetest.Ingress(ki.ns, "err", ingressClass, kubetest.Path{Host: errs, Path: "/err", Service: "web", Port: 80})
	errIng.Annotations = map[string]string{nginxAnn + "custom-http-errors": "404,503"}
	k.c.Create(t, app, errIng)
	for _, name := range []string{"app", "err"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != "Normal" {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	// Applied means in the history; the fallback answered nobody.test before the Ingresses
	// came, so only the sync says that their reload is done.
	ki.waitSynced()
	ki.servedBy("nobody.test", "fallback", time.Now(), 10*time.Second)
	ki.wantFrom(shop, "/app/x", "web")
	ki.wantFrom(shop, "/other", "fallback")
	ki.wantFrom("nobody.test", "/deep/path", "fallback")
	if code, body := ki.http10(); code != 200 || body != "fallback /" {
		t.Fatalf("HTTP/1.0 without Host: %d %q, want 200 from fallback", code, body)
	}
	checkErrorPage(t, ki.instance, errs, "web", "fallback", "namespace="+ki.ns+" ingress=err service=web port=80")
	v := ki.verdicts("")[ki.ns+"/err"]
	if v.Verdict != "served" || len(v.Annotations) != 1 || v.Annotations[0].Verdict != "honoured" {
		t.Fatalf("verdict of custom-http-errors without default-backend: %+v, want served and honoured", v)
	}
}
