package e2e

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestRegexRewrite: a regex location's rewrite sends the path its capture groups make to
// the upstream, with the query string and X-Forwarded-Prefix; a rewrite naming a group the
// regex lacks, or anything nginx would expand, is a 400 naming the field.
func TestRegexRewrite(t *testing.T) {
	in := start(t)
	in.must("POST", "/api/v1/backends", backend("api", serveLoopback(t, headerEcho("api"))))
	in.must("POST", "/api/v1/servers", server("rw", "rw.test",
		map[string]any{"path": "^/api(/|$)(.*)", "match": "regex", "backend": "api", "rewrite": "/$2", "forwardedPrefix": "/api"},
		map[string]any{"path": "^/thanos(/|$)(.*)", "match": "regex", "backend": "api", "rewrite": "/thanos/$2"},
		map[string]any{"path": "^/v([0-9])/([a-z]+)", "match": "regex", "backend": "api", "rewrite": "/$2/v$1"}))
	in.waitSynced()
	for path, want := range map[string]string{
		"/api/users/7": "api /users/7 host=rw.test prefix=/api ",
		"/api":         "api / host=rw.test prefix=/api ",
		"/api/":        "api / host=rw.test prefix=/api ",
		"/thanos/q":    "api /thanos/q ",
		"/v2/items":    "api /items/v2 ",
	} {
		if code, body := in.get("rw.test", path); code != 200 || !strings.HasPrefix(body, want) {
			t.Errorf("GET %s = %d %q, want 200 starting %q", path, code, body, want)
		}
	}
	// The query string is kept.
	if resp, body := in.do("rw.test", "/api/q?x=1"); resp.StatusCode != 200 || !strings.HasPrefix(body, "api /q ") {
		t.Errorf("GET /api/q?x=1 = %d %q", resp.StatusCode, body)
	}
	for _, rw := range []string{"/$3", "/$host", "https://evil.test/$1", "/$1;return 200", "/a?b=$1"} {
		var out struct {
			Error struct{ Field, Message string }
		}
		body := server("bad", "bad.test", map[string]any{"path": "^/api(/|$)(.*)", "match": "regex", "backend": "api", "rewrite": rw})
		if code := in.call("POST", "/api/v1/servers", body, &out); code != 400 || out.Error.Field != "locations[0].rewrite" {
			t.Errorf("rewrite %q: %d %+v, want 400 naming locations[0].rewrite", rw, code, out)
		}
		if rw == "/$3" && !strings.Contains(out.Error.Message, "2 capture groups") {
			t.Errorf("rewrite /$3: %q does not say the path has 2 groups", out.Error.Message)
		}
	}
}

// TestKubernetesCaptureRewrite: ingress-nginx's rewrite-target with capture groups on a
// regex path sends /$2 to the upstream, with x-forwarded-prefix; one naming a group its
// path lacks refuses the Ingress, saying why.
func TestKubernetesCaptureRewrite(t *testing.T) {
	k := newKube(t)
	ki := k.serve(t)
	ep := serveOn(t, k.ns.subnet+"1", headerEcho("api"))
	k.c.Create(t, kubetest.Service(ki.ns, "api", 80),
		kubetest.EndpointSlice(ki.ns, "api", "api-1", int32(ep["port"].(int)), kubetest.Ready(ep["address"].(string))...))
	host := ki.host("rw")
	ing := func(name, path, target string, ann ...string) {
		i := kubetest.Ingress(ki.ns, name, ingressClass, kubetest.Path{Host: host, Path: path, Service: "api", Port: 80})
		i.Annotations = map[string]string{nginxAnn + "rewrite-target": target}
		for j := 0; j+1 < len(ann); j += 2 {
			i.Annotations[nginxAnn+ann[j]] = ann[j+1]
		}
		k.c.Create(t, i)
	}
	ing("api", "/api(/|$)(.*)", "/$2", "x-forwarded-prefix", "/api")
	ing("thanos", "/thanos(/|$)(.*)", "/thanos/$2", "use-regex", "true")
	ing("bad", "/bad(/|$)(.*)", "/$3")
	for _, name := range []string{"api", "thanos"} {
		if e := ki.event(name, reconciler.ReasonApplied); e.Type != corev1.EventTypeNormal {
			t.Fatalf("Ingress %s: %s event %q", name, e.Type, e.Message)
		}
	}
	if e := ki.event("bad", reconciler.ReasonSkipped); !strings.Contains(e.Message, "$3") || !strings.Contains(e.Message, "2 capture groups") {
		t.Fatalf("Ingress bad: event %q, want it refused naming $3 and the path's 2 groups", e.Message)
	}
	ki.waitFor(host, "/api/users", 200)
	for path, want := range map[string]string{
		"/api/users/7": "api /users/7 host=" + host + " prefix=/api ",
		"/thanos/q":    "api /thanos/q host=" + host + " prefix= ",
	} {
		if code, body := ki.get(host, path); code != 200 || !strings.HasPrefix(body, want) {
			t.Errorf("GET %s = %d %q, want 200 starting %q", path, code, body, want)
		}
	}
	if code, _ := ki.get(host, "/bad/x"); code != 404 {
		t.Errorf("GET /bad/x = %d, want 404: its Ingress is refused", code)
	}
}
