package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestKubernetesProxyPolicies: the body, retry, error page, use-regex and server-alias
// annotations of ingress-nginx, on Ingresses of the real API server, behave as the same
// policies set through REST (policies); a server-alias naming another
// namespace's host is left out and reported while the rest of its Ingress is served.
func TestKubernetesProxyPolicies(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	web := k.ns.upstream(t, "web")
	ki.service("web", web)
	ki.service("flaky", k.ns.upstream(t, "fail"), web)
	ki.service("pages", k.ns.upstream(t, "pages"))
	host := ki.host("shop")
	ing := func(name string, p kubetest.Path, ann map[string]string) {
		i := kubetest.Ingress(ki.ns, name, ingressClass, p)
		i.Annotations = map[string]string{}
		for k, v := range ann {
			i.Annotations[nginxAnn+k] = v
		}
		k.c.Create(t, i)
	}
	path := func(p, svc string) kubetest.Path { return kubetest.Path{Host: host, Path: p, Service: svc, Port: 80} }
	ing("upload", path("/upload", "web"), map[string]string{"proxy-body-size": "1k", "client-body-buffer-size": "16k",
		"proxy-buffering": "off", "proxy-buffer-size": "8k", "proxy-buffers-number": "4", "proxy-request-buffering": "on",
		"proxy-max-temp-file-size": "1m"})
	ing("retry", path("/retry", "flaky"), map[string]string{"proxy-next-upstream": "error timeout http_503",
		"proxy-next-upstream-tries": "2", "proxy-next-upstream-timeout": "10"})
	ing("noretry", path("/noretry", "flaky"), map[string]string{"proxy-next-upstream": "error timeout http_503",
		"proxy-next-upstream-tries": "1"})
	ing("err", path("/err", "web"), map[string]string{"custom-http-errors": "404,503", "default-backend": "pages"})
	re := path("/re/[0-9]+$", "web")
	re.Type = networkingv1.PathTypeImplementationSpecific
	ing("re", re, map[string]string{"use-regex": "true", "server-alias": "alias." + ki.ns + ".test"})
	for _, name := range []string{"upload", "retry", "noretry", "err", "re"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	ki.waitFor(host, "/re/1", 200)
	// The verdict API says each of them is honoured.
	vs := ki.verdicts("")
	for _, name := range []string{"upload", "retry", "noretry", "err", "re"} {
		v := vs[ki.ns+"/"+name]
		for _, a := range v.Annotations {
			if a.Verdict != "honoured" {
				t.Fatalf("Ingress %s: annotation %s is %s (%s), want honoured", name, a.Name, a.Verdict, a.Why)
			}
		}
		if v.Verdict != "served" || len(v.Annotations) == 0 {
			t.Fatalf("Ingress %s: verdict %+v, want served with its annotations listed", name, v)
		}
	}
	checkBodySize(t, ki.instance, host, "web")
	checkRetry(t, ki.instance, host, "web", nil)
	checkErrorPage(t, ki.instance, host, "web", "pages", "namespace="+ki.ns+" ingress=err service=web port=80")
	checkRegex(t, ki.instance, host, "web")
	ki.wantFrom("alias."+ki.ns+".test", "/re/7", "web")

	// Another namespace routes its host first; an alias of it is refused and reported,
	// while the Ingress's own host and its other alias are served.
	other := k.c.Namespace(t, ki.ns+"-other")
	taken := "taken." + other + ".test"
	k.c.Create(t, kubetest.Service(other, "b", 80), kubetest.EndpointSlice(other, "b", "b-1", upstreamPort, ready([]*nsUpstream{k.ns.upstream(t, "b")})...))
	k.c.Create(t, kubetest.Ingress(other, "owner", ingressClass, kubetest.Path{Host: taken, Path: "/", Service: "b", Port: 80}))
	ki.servedBy(taken, "b", time.Now(), 30*time.Second)
	second := ki.host("second")
	ok2 := "ok2." + ki.ns + ".test"
	ing("aliases", kubetest.Path{Host: second, Path: "/", Service: "web", Port: 80},
		map[string]string{"server-alias": taken + "," + ok2})
	e := ki.event("aliases", reconciler.ReasonHostClaimed)
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "server-alias "+taken) || !strings.Contains(e.Message, other) {
		t.Fatalf("event on the Ingress: %s %q; want a Warning that server-alias %s is held by %s", e.Type, e.Message, taken, other)
	}
	ki.waitFor(ok2, "/x", 200)
	ki.wantFrom(second, "/x", "web")
	ki.wantFrom(ok2, "/x", "web")
	ki.wantFrom(taken, "/x", "b")
}
