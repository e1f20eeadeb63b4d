//go:build !nokube

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestMigrate: on a real API server with Ingresses of ingress-nginx's class and of
// restyplane's, `restyplane migrate` prints every Ingress's verdict and its annotations',
// as a table and as JSON, with the counts, and writes nothing to the cluster.
func TestMigrate(t *testing.T) {
	c := kubetest.StartT(t)
	ns := c.Namespace(t, "shop")
	web := kubetest.Ingress(ns, "web", "nginx", kubetest.Path{Host: "shop.example.com", Path: "/", Service: "web", Port: 80})
	web.Annotations = map[string]string{"nginx.ingress.kubernetes.io/ssl-redirect": "false",
		"nginx.ingress.kubernetes.io/load-balance": "ewma"}
	snippet := kubetest.Ingress(ns, "snippet", "nginx", kubetest.Path{Host: "admin.example.com", Path: "/", Service: "web", Port: 80})
	snippet.Annotations = map[string]string{"nginx.ingress.kubernetes.io/configuration-snippet": "more_set_headers \"X-A: b\";\nlua_need_request_body on;"}
	ours := kubetest.Ingress(ns, "api", "restyplane", kubetest.Path{Host: "api.example.com", Path: "/v1", Service: "web", Port: 80})
	c.Create(t, kubetest.IngressClass("nginx", "k8s.io/ingress-nginx", false),
		kubetest.IngressClass("restyplane", defaultController, false),
		kubetest.Service(ns, "web", 80), kubetest.EndpointSlice(ns, "web", "web-1", 8080, kubetest.Ready("10.0.0.7")...),
		web, snippet, ours)
	before := resourceVersions(t, c, ns)
	kubeconfig := c.Kubeconfig(t)

	var table, stderr bytes.Buffer
	if err := run(t.Context(), []string{"migrate", "--kubeconfig", kubeconfig}, &table, &stderr); err != nil {
		t.Fatalf("migrate: %v\n%s", err, stderr.String())
	}
	t.Logf("restyplane migrate:\n%s", table.String())
	// Each line's fields, by its first field (an Ingress's key, or the verdict or reason
	// of the detail lines under it) and second.
	rows := map[string][]string{}
	for _, line := range strings.Split(table.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			rows[f[0]+" "+f[1]] = f
		}
	}
	for key, want := range map[string][]string{
		"INGRESS CLASS":        {"INGRESS", "CLASS", "VERDICT"},
		ns + "/api restyplane": {ns + "/api", "restyplane", "(restyplane's)", "served"},
		ns + "/snippet nginx":  {ns + "/snippet", "nginx", "refused"},
		ns + "/web nginx":      {ns + "/web", "nginx", "served"},
		"honoured nginx.ingress.kubernetes.io/load-balance:": {"honoured", "nginx.ingress.kubernetes.io/load-balance:", "ewma",
			"(round_robin", "or", "ewma)"},
	} {
		if diff := cmp.Diff(want, rows[key]); diff != "" {
			t.Errorf("table row %q (-want +got):\n%s", key, diff)
		}
	}
	if f := rows["RefusedSnippet not"]; !strings.Contains(strings.Join(f, " "), "configuration-snippet") {
		t.Errorf("the snippet's refusal = %q, want a RefusedSnippet line naming configuration-snippet", f)
	}
	if f := rows["refused nginx.ingress.kubernetes.io/configuration-snippet:"]; !strings.Contains(strings.Join(f, " "), "lua_need_request_body on;") {
		t.Errorf("the snippet annotation's row = %q, want it refused with its value on one line", f)
	}
	if !strings.Contains(table.String(), "\n3 Ingresses: 2 served, 0 translated, 1 refused\n") {
		t.Errorf("the table does not end with the counts 2 served, 0 translated, 1 refused")
	}

	var out bytes.Buffer
	if err := run(t.Context(), []string{"migrate", "--kubeconfig", kubeconfig, "-o", "json"}, &out, &stderr); err != nil {
		t.Fatalf("migrate -o json: %v\n%s", err, stderr.String())
	}
	var m migration
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("migrate -o json is not JSON: %v\n%s", err, out.String())
	}
	type row struct {
		Name, Class, Verdict string
		Ours                 bool
		Annotations          map[string]string
	}
	var got []row
	for _, v := range m.Ingresses {
		r := row{Name: v.Namespace + "/" + v.Name, Class: v.Class, Verdict: v.Verdict, Ours: v.Ours, Annotations: map[string]string{}}
		for _, a := range v.Annotations {
			r.Annotations[a.Name] = a.Verdict
		}
		got = append(got, r)
	}
	want := []row{
		{Name: ns + "/api", Class: "restyplane", Verdict: api.VerdictServed, Ours: true, Annotations: map[string]string{}},
		{Name: ns + "/snippet", Class: "nginx", Verdict: api.VerdictRefused,
			Annotations: map[string]string{"nginx.ingress.kubernetes.io/configuration-snippet": api.VerdictRefused}},
		{Name: ns + "/web", Class: "nginx", Verdict: api.VerdictServed, Annotations: map[string]string{
			"nginx.ingress.kubernetes.io/ssl-redirect": api.VerdictHonoured, "nginx.ingress.kubernetes.io/load-balance": api.VerdictHonoured}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("migrate -o json (-want +got):\n%s", diff)
	}
	if want := (migrationCounts{Served: 2, Refused: 1}); m.Counts != want {
		t.Errorf("counts = %+v, want %+v", m.Counts, want)
	}

	// Read-only: no object changed (status included), no Event written.
	if diff := cmp.Diff(before, resourceVersions(t, c, ns)); diff != "" {
		t.Errorf("migrate changed the cluster (-before +after):\n%s", diff)
	}
	evs, err := c.Client.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	if len(evs.Items) > 0 {
		t.Errorf("migrate wrote %d Events, want none: %v", len(evs.Items), evs.Items[0].Message)
	}
}

// resourceVersions are the resource versions of the namespace's Ingresses, by name.
func resourceVersions(t *testing.T, c *kubetest.Cluster, ns string) map[string]string {
	t.Helper()
	l, err := c.Client.NetworkingV1().Ingresses(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list ingresses: %v", err)
	}
	out := map[string]string{}
	for _, ing := range l.Items {
		out[ing.Name] = ing.ResourceVersion
	}
	return out
}
