package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/rollback"
	"github.com/restyplane/restyplane/server"
)

// TestReportsFeedTheRollbackWatcher: two agents' reports, neither enough alone, make the
// control plane roll a revision back on a real store, once, as actor applier with both
// instances named; /status shows the watch while it runs.
func TestReportsFeedTheRollbackWatcher(t *testing.T) {
	var w *rollback.Watcher
	e := newEnvWith(t, options{Options: server.Options{Rollback: sinkFunc(func() server.CounterSink { return w })}})
	w = rollback.New(e.st, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	creds := map[string]string{"edge-1": e.credential("edge-1"), "edge-2": e.credential("edge-2")}
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.admin, body: backend("web", 8080)})
	good := e.st.Head().Revision
	waitSeen(t, w, good)
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/backends/web/endpoints", token: e.admin,
		body: map[string]any{"endpoints": []any{map[string]any{"address": "10.0.0.9", "port": 8080}}}})
	bad := e.st.Head().Revision
	waitUntil(t, "the watch of the new revision", func() bool {
		var st api.Status
		e.must(http.StatusOK, req{method: "GET", path: "/api/v1/status", token: e.viewer}).into(t, &st)
		return st.Watching == bad
	})
	report := func(name string, req, errs, clients int64) {
		rep := api.Report{State: "running", Applied: bad, Backends: map[string]api.BackendCounter{
			"web": {Requests: req, Errors: errs, Clients: clients}}}
		e.must(http.StatusNoContent, reqPost("/api/v1/instances/"+name+"/report", creds[name], rep))
	}
	report("edge-1", 100, 0, 0)
	report("edge-2", 100, 0, 0)
	report("edge-1", 112, 12, 2)
	report("edge-2", 112, 12, 1)
	waitUntil(t, "the rollback", func() bool { return e.st.Head().Revision > bad })
	h := e.st.Head()
	r, err := e.st.Revision(context.Background(), h.Revision)
	if err != nil {
		t.Fatal(err)
	}
	if r.Actor != api.ActorApplier || !strings.Contains(r.Message, "24 of 24 requests") ||
		!strings.Contains(r.Message, "3 distinct clients, on instances edge-1, edge-2") {
		t.Fatalf("rollback revision = %+v", r)
	}
	if got := h.Backends["web"].Endpoints; len(got) != 1 || got[0].Address != "10.0.0.1" {
		t.Fatalf("rolled back to %+v, want revision %d's endpoint 10.0.0.1", got, good)
	}
}

// TestOneInstanceCannotRollBack: three agents run a revision; one of them reports every
// request failing, from many clients, and nothing happens; once a second one agrees, the
// revision is rolled back, and the audit row names the two whose reports decided it.
func TestOneInstanceCannotRollBack(t *testing.T) {
	var w *rollback.Watcher
	e := newEnvWith(t, options{Options: server.Options{Rollback: sinkFunc(func() server.CounterSink { return w })}})
	w = rollback.New(e.st, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, nil)
	w.SetLive(e.srv.Connected)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	creds := map[string]string{}
	for _, n := range []string{"edge-1", "edge-2", "edge-3"} {
		creds[n] = e.credential(n)
	}
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.admin, body: backend("web", 8080)})
	waitSeen(t, w, e.st.Head().Revision)
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/backends/web/endpoints", token: e.admin,
		body: map[string]any{"endpoints": []any{map[string]any{"address": "10.0.0.9", "port": 8080}}}})
	bad := e.st.Head().Revision
	waitUntil(t, "the watch of the new revision", func() bool { rev, _ := w.Watching(); return rev == bad })
	report := func(name string, req, errs, clients int64) {
		rep := api.Report{State: "running", Applied: bad, Backends: map[string]api.BackendCounter{
			"web": {Requests: req, Errors: errs, Clients: clients}}}
		e.must(http.StatusNoContent, reqPost("/api/v1/instances/"+name+"/report", creds[name], rep))
	}
	for _, n := range []string{"edge-1", "edge-2", "edge-3"} {
		report(n, 0, 0, 0)
	}
	report("edge-1", 100, 100, 50)
	report("edge-3", 1000, 0, 0)
	time.Sleep(time.Second) // four looks of the watcher
	if h := e.st.Head().Revision; h != bad {
		t.Fatalf("one instance of three rolled revision %d back (head %d)", bad, h)
	}
	report("edge-2", 20, 20, 3)
	waitUntil(t, "the rollback", func() bool { return e.st.Head().Revision > bad })
	var audit server.AuditList
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/audit?action=rollback", token: e.admin}).into(t, &audit)
	if len(audit.Items) != 1 || audit.Items[0].Actor != api.ActorApplier ||
		!strings.Contains(audit.Items[0].Detail, "on instances edge-1, edge-2: 2 of the 3 instances running it agree") {
		t.Fatalf("rollback audit = %+v, want one by the applier naming edge-1 and edge-2", audit.Items)
	}
}

// sinkFunc defers to the watcher made after the server, which the test needs first.
type sinkFunc func() server.CounterSink

func (f sinkFunc) Observe(instance string, applied int64, c map[string]api.BackendCounter) {
	f().Observe(instance, applied, c)
}

func (f sinkFunc) Watching() (int64, int64) { return f().Watching() }

func reqPost(path, token string, body any) req {
	return req{method: "POST", path: path, token: token, body: body}
}

// waitSeen waits until the watcher has looked at revision rev, watching it or taking it as
// good. The bad revision written next is then judged against rev: were both writes to
// reach the watcher together, it would go back to the empty history, which it never does.
func waitSeen(t *testing.T, w *rollback.Watcher, rev int64) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("the watcher to look at revision %d", rev), func() bool {
		watching, good := w.Watching()
		return watching == rev || good == rev
	})
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
