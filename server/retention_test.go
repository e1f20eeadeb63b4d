package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// writeRevisions makes n revisions, each an edit of backend "web".
func (e *env) writeRevisions(n int) {
	e.tb.Helper()
	for i := 0; i < n; i++ {
		e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/backends/web", token: e.editor, body: backend("web", 8000+i)})
	}
}

func TestRetentionIsAdminOnly(t *testing.T) {
	e := newEnv(t)
	for _, tok := range []string{e.viewer, e.editor} {
		e.must(http.StatusForbidden, req{method: "GET", path: "/api/v1/retention", token: tok})
		e.must(http.StatusForbidden, req{method: "PUT", path: "/api/v1/retention", token: tok, body: api.Retention{KeepRevisions: 1}})
		e.must(http.StatusForbidden, req{method: "POST", path: "/api/v1/retention/prune", token: tok})
	}
	e.must(http.StatusUnauthorized, req{method: "POST", path: "/api/v1/retention/prune"})
	var pol api.Retention
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/retention", token: e.admin}).into(t, &pol)
	if pol.Enabled() {
		t.Fatalf("default retention %+v, want off", pol)
	}
	e.must(http.StatusBadRequest, req{method: "PUT", path: "/api/v1/retention", token: e.admin, body: `{"keepRevisions": -1}`})
	e.must(http.StatusBadRequest, req{method: "PUT", path: "/api/v1/retention", token: e.admin, body: `{"keepRevisions": 1, "bogus": 1}`})
	if pol, _ := e.st.Retention(context.Background()); pol.Enabled() {
		t.Fatal("a refused PUT changed the policy")
	}
}

func TestPruneOverHTTP(t *testing.T) {
	e := newEnv(t)
	e.writeRevisions(10)
	// Nothing is pruned by default.
	var res api.PruneResult
	e.must(http.StatusOK, req{method: "POST", path: "/api/v1/retention/prune", token: e.admin}).into(t, &res)
	if res != (api.PruneResult{}) || e.revisions() != 10 {
		t.Fatalf("prune without a policy = %+v, %d revisions left", res, e.revisions())
	}
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/retention", token: e.admin, body: api.Retention{KeepRevisions: 4}})
	if e.revisions() != 10 {
		t.Fatal("setting a policy pruned by itself")
	}
	e.must(http.StatusOK, req{method: "POST", path: "/api/v1/retention/prune", token: e.admin}).into(t, &res)
	if res.Revisions != 6 || res.Floor != 7 {
		t.Fatalf("prune = %+v, want 6 revisions and floor 7", res)
	}
	for _, r := range []req{
		{method: "GET", path: "/api/v1/revisions/6", token: e.viewer},
		{method: "GET", path: "/api/v1/config?revision=3", token: e.viewer},
		{method: "GET", path: "/api/v1/revisions/2/diff", token: e.viewer},
		{method: "POST", path: "/api/v1/revisions/6/rollback", token: e.editor, body: server.RollbackRequest{Message: "back"}},
	} {
		got := e.must(http.StatusGone, r)
		var er server.ErrorResponse
		got.into(t, &er)
		if er.Error.Code != api.EGone || !strings.Contains(er.Error.Message, "pruned") || !strings.Contains(er.Error.Message, "oldest kept revision is 7") {
			t.Fatalf("%s %s: %+v, want a gone error naming the oldest kept revision", r.method, r.path, er.Error)
		}
	}
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/revisions/7", token: e.viewer})
	e.must(http.StatusOK, req{method: "POST", path: "/api/v1/revisions/7/rollback", token: e.editor, body: server.RollbackRequest{Message: "back"}})
	var web api.Backend
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/backends/web", token: e.viewer}).into(t, &web)
	if web.Endpoints[0].Port != 8006 {
		t.Fatalf("after rollback to 7: port %d, want 8006", web.Endpoints[0].Port)
	}
	var prunes, sets int
	for _, ev := range e.auditEvents() {
		switch {
		case ev.Action == api.AuditPrune && ev.Actor == "admin-token" && ev.Revision == 7 && strings.Contains(ev.Detail, "pruned 6 revisions"):
			prunes++
		case ev.Action == api.AuditRetention && ev.Actor == "admin-token":
			sets++
		}
	}
	if prunes != 1 || sets != 1 {
		t.Fatalf("audit: %d prune and %d retention events, want 1 and 1", prunes, sets)
	}
}
