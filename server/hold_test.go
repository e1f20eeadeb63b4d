package server_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// TestHoldsListedAndReleased: a rollback through the API of what Kubernetes wrote holds
// each object it takes back; GET /holds lists them by kind then name, a viewer cannot
// release one, an editor can (audited as the editor), and a hold released is gone. A
// rollback of what the REST API wrote holds nothing.
func TestHoldsListedAndReleased(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	holds := func() []api.Hold {
		t.Helper()
		var l server.HoldList
		e.must(http.StatusOK, req{method: "GET", path: "/api/v1/holds", token: e.viewer}).into(t, &l)
		return l.Items
	}
	rollback := func(to int64) {
		t.Helper()
		e.must(http.StatusOK, req{method: "POST", path: "/api/v1/revisions/" + strconv.FormatInt(to, 10) + "/rollback",
			token: e.editor, body: map[string]string{"message": "the change broke checkout"}})
	}

	// What the REST API wrote, rolled back: no hold.
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("web", 8080)})
	good := e.st.Head().Revision
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/backends/web/endpoints", token: e.editor,
		body: map[string]any{"endpoints": []any{map[string]any{"address": "10.0.0.9", "port": 8080}}}})
	rollback(good)
	if got := holds(); len(got) != 0 {
		t.Fatalf("holds after a rollback of REST objects = %+v, want none", got)
	}

	// What Kubernetes wrote, changed by Kubernetes, rolled back: both objects held.
	owner := api.Source{Kind: api.SourceKubernetes, Namespace: "shop", Name: "shop"}
	kube := func(lb, path string) {
		t.Helper()
		b := backend("k8s.shop.a.80", 8080)
		b.Source, b.LoadBalance = owner, lb
		s := vhost("k8s.shop.example.com", "shop.example.com", path, b.Name)
		s.Source = owner
		if _, err := e.st.Write(ctx, api.Meta{Actor: api.ActorKubernetes, Source: api.SourceKubernetes},
			[]api.Mutation{{Kind: api.KindBackend, Backend: &b}, {Kind: api.KindServer, Server: &s}}); err != nil {
			t.Fatalf("kubernetes write: %v", err)
		}
	}
	kube(api.RoundRobin, "/")
	good = e.st.Head().Revision
	kube(api.EWMA, "/v2")
	rollback(good)
	rev := e.st.Head().Revision
	got := holds()
	if len(got) != 2 || got[0].Kind != api.KindBackend || got[0].Name != "k8s.shop.a.80" ||
		got[1].Kind != api.KindServer || got[1].Name != "k8s.shop.example.com" {
		t.Fatalf("holds = %+v, want backend k8s.shop.a.80 then server k8s.shop.example.com", got)
	}
	for _, h := range got {
		if h.Revision != rev || h.Rejected == "" || h.Since.IsZero() {
			t.Errorf("hold %s/%s = %+v, want revision %d, a rejected digest and a time", h.Kind, h.Name, h, rev)
		}
	}

	const path = "/api/v1/holds/server/k8s.shop.example.com"
	e.must(http.StatusForbidden, req{method: "DELETE", path: path, token: e.viewer})
	e.must(http.StatusBadRequest, req{method: "DELETE", path: "/api/v1/holds/widget/k8s.shop.example.com", token: e.editor})
	// If-Match names the rollback of the hold the editor saw (its revision is its ETag): a
	// hold a newer rollback made since is not released in its place (RFC 9110 13.1.1).
	older := `"` + strconv.FormatInt(rev-1, 10) + `"`
	e.must(http.StatusPreconditionFailed, req{method: "DELETE", path: path, token: e.editor, header: map[string]string{"If-Match": older}})
	e.must(http.StatusBadRequest, req{method: "DELETE", path: path, token: e.editor, header: map[string]string{"If-Match": "42"}})
	if got := holds(); len(got) != 2 {
		t.Fatalf("holds after refused releases = %+v, want both still", got)
	}
	e.must(http.StatusNoContent, req{method: "DELETE", path: path + "?message=the+fix+is+deployed", token: e.editor,
		header: map[string]string{"If-Match": `"` + strconv.FormatInt(rev, 10) + `"`}})
	if got := holds(); len(got) != 1 || got[0].Kind != api.KindBackend {
		t.Fatalf("holds after the release = %+v, want the backend's alone", got)
	}
	if m := string(e.must(http.StatusOK, req{method: "GET", path: "/metrics"}).body); !strings.Contains(m, "\nrestyplane_holds 1\n") {
		t.Errorf("/metrics does not say restyplane_holds 1")
	}
	var audit server.AuditList
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/audit", token: e.editor}).into(t, &audit)
	found := false
	for _, ev := range audit.Items {
		if ev.Action == api.AuditHoldRelease && ev.Outcome == "success" {
			found = true
			if ev.Actor != "editor-token" || ev.Target != "server/k8s.shop.example.com" ||
				!strings.Contains(ev.Detail, "the fix is deployed") || ev.Remote == "" {
				t.Errorf("hold release audit event = %+v", ev)
			}
		}
	}
	if !found {
		t.Fatalf("no %s event in the audit log: %+v", api.AuditHoldRelease, audit.Items)
	}
	res := e.must(http.StatusNotFound, req{method: "DELETE", path: path, token: e.editor})
	var body server.ErrorResponse
	res.into(t, &body)
	if body.Error.Code != api.ENotFound {
		t.Errorf("second release = %s, want a not_found error", res.body)
	}
	// A release that fails is audited as one, as every write's failure is.
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/audit", token: e.editor}).into(t, &audit)
	failed := false
	for _, ev := range audit.Items {
		failed = failed || ev.Action == api.AuditHoldRelease && ev.Outcome == "failure" &&
			ev.Target == "server/k8s.shop.example.com" && strings.Contains(ev.Detail, api.ENotFound)
	}
	if !failed {
		t.Errorf("no failed %s event in the audit log after the second release: %+v", api.AuditHoldRelease, audit.Items)
	}
}
