package server_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// TestHistory writes through every kind of write and reads the history back: the revision
// list and its paging, one revision with its changes, the state at a past revision, and
// the diff between two.
func TestHistory(t *testing.T) {
	e := newEnv(t)
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends?message=first+pool", token: e.editor, body: backend("shop", 8080, 8081)})
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/servers", token: e.editor, body: vhost("web", "shop.example.com", "/", "shop"),
		header: map[string]string{"X-Change-Reason": "serve the shop"}})
	var at2 api.Config
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/config", token: e.viewer}).into(t, &at2)
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/backends/shop/endpoints", token: e.editor,
		body: server.EndpointsRequest{Endpoints: []api.Endpoint{{Address: "10.0.1.1", Port: 9090}}, Message: "move the pool"}})
	b := backend("shop", 9090)
	b.LoadBalance = api.EWMA
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/backends/shop", token: e.editor, body: b})

	var list server.RevisionList
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/revisions", token: e.viewer}).into(t, &list)
	if got, want := list.Head, int64(4); got != want {
		t.Fatalf("head = %d, want %d", got, want)
	}
	var ids []int64
	var messages []string
	for _, r := range list.Items {
		ids = append(ids, r.ID)
		messages = append(messages, r.Message)
		if r.Actor != "editor-token" || r.Source != api.SourceAPI {
			t.Errorf("revision %d actor/source = %s/%s, want editor-token/api", r.ID, r.Actor, r.Source)
		}
	}
	if diff := cmp.Diff([]int64{4, 3, 2, 1}, ids); diff != "" {
		t.Fatalf("revision ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "move the pool", "serve the shop", "first pool"}, messages); diff != "" {
		t.Fatalf("revision messages (-want +got):\n%s", diff)
	}

	var page server.RevisionList
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/revisions?before=3&limit=1", token: e.viewer}).into(t, &page)
	if got, want := len(page.Items), 1; got != want {
		t.Fatalf("page length = %d, want %d", got, want)
	}
	if got, want := page.Items[0].ID, int64(2); got != want {
		t.Fatalf("page item = %d, want %d", got, want)
	}

	var rev api.Revision
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/revisions/3", token: e.viewer}).into(t, &rev)
	if got, want := len(rev.Changes), 1; got != want {
		t.Fatalf("revision 3 changes = %d, want %d", got, want)
	}
	if c := rev.Changes[0]; c.Kind != api.KindBackend || c.Name != "shop" || c.Op != api.OpUpdate {
		t.Fatalf("revision 3 change = %s %s %s, want backend shop update", c.Kind, c.Name, c.Op)
	}

	// The state at revision 2 is what GET /config said then.
	res := e.must(http.StatusOK, req{method: "GET", path: "/api/v1/config?revision=2", token: e.viewer})
	if got, want := res.header.Get("ETag"), `"2"`; got != want {
		t.Fatalf("ETag = %s, want %s", got, want)
	}
	var then api.Config
	res.into(t, &then)
	if diff := cmp.Diff(at2, then, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("config at revision 2 (-then +now):\n%s", diff)
	}
	var head api.Config
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/config", token: e.viewer}).into(t, &head)
	if got, want := head.Backends[0].LoadBalance, api.EWMA; got != want {
		t.Fatalf("head load balance = %s, want %s", got, want)
	}
	e.must(http.StatusNotModified, req{method: "GET", path: "/api/v1/config", token: e.viewer,
		header: map[string]string{"If-None-Match": `"4"`}})
	e.must(http.StatusNotFound, req{method: "GET", path: "/api/v1/config?revision=99", token: e.viewer})

	// The diff from 2 to 4 is one backend update, with the endpoints before and after.
	var d api.Diff
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/revisions/4/diff?against=2", token: e.viewer}).into(t, &d)
	if got, want := len(d.Entries), 1; got != want {
		t.Fatalf("diff entries = %d, want %d: %+v", got, want, d)
	}
	var before, after api.Backend
	if err := jsonInto(d.Entries[0].Before, &before); err != nil {
		t.Fatal(err)
	}
	if err := jsonInto(d.Entries[0].After, &after); err != nil {
		t.Fatal(err)
	}
	if got, want := before.Endpoints[0].Port, 8080; got != want {
		t.Fatalf("diff before port = %d, want %d", got, want)
	}
	if got, want := after.LoadBalance, api.EWMA; got != want {
		t.Fatalf("diff after loadBalance = %s, want %s", got, want)
	}
	// The default diff is against the previous revision.
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/revisions/1/diff", token: e.viewer}).into(t, &d)
	if got, want := fmt.Sprint(d.From, d.To, len(d.Entries)), "0 1 1"; got != want {
		t.Fatalf("diff of revision 1 = %s, want %s", got, want)
	}
}

// TestRollback restores a past state as a new revision and never rewrites history.
func TestRollback(t *testing.T) {
	e := newEnv(t)
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("shop", 8080)})
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("cart", 8080)})
	var at2 api.Config
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/config", token: e.viewer}).into(t, &at2)
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/backends/shop", token: e.editor, body: backend("shop", 9000, 9001)})
	e.must(http.StatusOK, req{method: "DELETE", path: "/api/v1/backends/cart", token: e.editor})

	// A rollback needs a reason, and viewers cannot roll back.
	e.must(http.StatusBadRequest, req{method: "POST", path: "/api/v1/revisions/2/rollback", token: e.editor})
	e.must(http.StatusForbidden, req{method: "POST", path: "/api/v1/revisions/2/rollback", token: e.viewer, body: server.RollbackRequest{Message: "x"}})
	e.must(http.StatusNotFound, req{method: "POST", path: "/api/v1/revisions/99/rollback", token: e.editor, body: server.RollbackRequest{Message: "x"}})

	var wr api.WriteResult
	e.must(http.StatusOK, req{method: "POST", path: "/api/v1/revisions/2/rollback", token: e.editor,
		body: server.RollbackRequest{Message: "the new pool is broken"}}).into(t, &wr)
	if wr.Revision == nil || wr.Revision.ID != 5 || wr.Revision.RollbackOf != 2 || wr.Revision.Message != "the new pool is broken" {
		t.Fatalf("rollback revision = %+v, want id 5 rolling back 2 with the message", wr.Revision)
	}
	var now api.Config
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/config", token: e.viewer}).into(t, &now)
	ignore := cmpopts.IgnoreFields(api.Backend{}, "Version")
	if diff := cmp.Diff(at2.Backends, now.Backends, ignore, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("state after rollback (-revision 2 +now):\n%s", diff)
	}
	if got, want := e.revisions(), int64(5); got != want {
		t.Fatalf("revisions = %d, want %d (history is never rewritten)", got, want)
	}
	// The revisions between are still there and still say what they said.
	var r4 api.Revision
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/revisions/4", token: e.viewer}).into(t, &r4)
	if got, want := r4.Changes[0].Op, api.OpDelete; got != want {
		t.Fatalf("revision 4 op = %s, want %s", got, want)
	}
	// Rolling back to where the head already is changes nothing.
	e.must(http.StatusOK, req{method: "POST", path: "/api/v1/revisions/5/rollback?message=again", token: e.editor}).into(t, &wr)
	if !wr.Noop {
		t.Fatalf("rollback to the head's state: noop = false, want true")
	}
	// A rollback with a stale If-Match of the head is refused.
	e.must(http.StatusPreconditionFailed, req{method: "POST", path: "/api/v1/revisions/1/rollback", token: e.editor,
		body: server.RollbackRequest{Message: "x"}, header: map[string]string{"If-Match": `"3"`}})
}

// TestConcurrency checks If-Match on every kind of write: the ETag of a GET makes a write
// conditional, and a stale one is 412 that stores nothing.
func TestConcurrency(t *testing.T) {
	e := newEnv(t)
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("shop", 8080)})
	res := e.must(http.StatusOK, req{method: "GET", path: "/api/v1/backends/shop", token: e.viewer})
	tag := res.header.Get("ETag")
	if got, want := tag, `"1"`; got != want {
		t.Fatalf("ETag = %s, want %s", got, want)
	}
	e.must(http.StatusNotModified, req{method: "GET", path: "/api/v1/backends/shop", token: e.viewer, header: map[string]string{"If-None-Match": tag}})

	// Two clients read version 1; the first write wins, the second is told.
	res = e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/backends/shop", token: e.editor, body: backend("shop", 8081),
		header: map[string]string{"If-Match": tag}})
	if got, want := res.header.Get("ETag"), `"2"`; got != want {
		t.Fatalf("ETag after write = %s, want %s", got, want)
	}
	n := e.revisions()
	stale := map[string]string{"If-Match": tag}
	for _, r := range []req{
		{method: "PUT", path: "/api/v1/backends/shop", body: backend("shop", 8082)},
		{method: "PUT", path: "/api/v1/backends/shop/endpoints", body: server.EndpointsRequest{Endpoints: []api.Endpoint{}}},
		{method: "DELETE", path: "/api/v1/backends/shop"},
		{method: "PUT", path: "/api/v1/config", body: api.Config{Backends: []api.Backend{}}},
	} {
		r.token, r.header = e.editor, stale
		res := e.must(http.StatusPreconditionFailed, r)
		var er server.ErrorResponse
		res.into(t, &er)
		if got, want := er.Error.Code, api.EPreconditionFailed; got != want {
			t.Fatalf("%s %s code = %s, want %s", r.method, r.path, got, want)
		}
	}
	if got := e.revisions(); got != n {
		t.Fatalf("revisions after stale writes = %d, want %d", got, n)
	}
	// The current ETag works.
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/config", token: e.editor, body: api.Config{Backends: []api.Backend{backend("shop", 1)}},
		header: map[string]string{"If-Match": `"2"`}})
}

// TestEndpointsKeepTheRest replaces endpoints from several clients at once: each write
// keeps everything else about the backend, and none is lost to a concurrent one.
func TestEndpointsKeepTheRest(t *testing.T) {
	e := newEnv(t)
	b := backend("shop", 8080)
	b.LoadBalance = api.CHash
	b.HashBy = "$remote_addr"
	b.Retries = 2
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: b})
	const clients, each = 4, 10
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		go func() {
			for i := 0; i < each; i++ {
				res := e.send(req{method: "PUT", path: "/api/v1/backends/shop/endpoints", token: e.editor,
					body: server.EndpointsRequest{Endpoints: []api.Endpoint{{Address: "10.1.0." + itoa(c+1), Port: 1000 + i}}}})
				if res.status != http.StatusOK {
					errs <- fmt.Errorf("client %d write %d = %d: %s", c, i, res.status, res.body)
					return
				}
			}
			errs <- nil
		}()
	}
	for c := 0; c < clients; c++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var got api.Backend
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/backends/shop", token: e.viewer}).into(t, &got)
	if got.LoadBalance != api.CHash || got.HashBy != "$remote_addr" || got.Retries != 2 {
		t.Fatalf("backend after endpoint writes = %+v, want chash by $remote_addr with 2 retries", got)
	}
	if got, want := e.revisions(), int64(1+clients*each); got != want {
		t.Fatalf("revisions = %d, want %d", got, want)
	}
}

// TestDryRun answers every kind of write with its diff and stores nothing.
func TestDryRun(t *testing.T) {
	e := newEnv(t)
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("shop", 8080)})
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("spare", 8080)})
	n, audits := e.revisions(), len(e.auditEvents())
	for _, r := range []req{
		{method: "POST", path: "/api/v1/backends?dryRun=true", body: backend("cart", 8080)},
		{method: "PUT", path: "/api/v1/backends/shop?dryRun=true", body: backend("shop", 9090)},
		{method: "PUT", path: "/api/v1/backends/shop/endpoints?dryRun=true", body: server.EndpointsRequest{Endpoints: []api.Endpoint{}}},
		{method: "DELETE", path: "/api/v1/backends/shop?dryRun=true"},
		{method: "POST", path: "/api/v1/servers?dryRun=true", body: vhost("web", "a.example.com", "/", "shop")},
		{method: "PUT", path: "/api/v1/config?dryRun=true", body: api.Config{Backends: []api.Backend{}}},
		{method: "POST", path: "/api/v1/revisions/1/rollback?dryRun=true&message=try"},
	} {
		r.token = e.editor
		var wr api.WriteResult
		e.must(http.StatusOK, r).into(t, &wr)
		if !wr.DryRun {
			t.Errorf("%s %s: dryRun = false, want true", r.method, r.path)
		}
		if len(wr.Diff.Entries) == 0 {
			t.Errorf("%s %s: diff = %+v, want the change", r.method, r.path, wr.Diff)
		}
	}
	if got := e.revisions(); got != n {
		t.Fatalf("revisions after dry runs = %d, want %d", got, n)
	}
	if got := len(e.auditEvents()); got != audits {
		t.Fatalf("audit events after dry runs = %d, want %d", got, audits)
	}
	e.must(http.StatusNotFound, req{method: "GET", path: "/api/v1/backends/cart", token: e.viewer})
	// A dry run still validates.
	e.must(http.StatusBadRequest, req{method: "POST", path: "/api/v1/backends?dryRun=true", token: e.editor, body: backend("bad;name", 1)})
}
