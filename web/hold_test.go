package web_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/rptest"
	"github.com/restyplane/restyplane/store"
)

// The history lists the objects a rollback holds back from Kubernetes as soon as the
// rollback is made, and an editor's Release ends a hold: the row goes, and so does the
// hold in the API. Kubernetes' writes go straight into the history before restyplane
// starts, as the reconciler makes them, so that no cluster is needed.
func TestHistoryListsHoldsAndReleasesThem(t *testing.T) {
	dir := t.TempDir()
	good := seedKubernetes(t, dir)
	p := rptest.Start(t, rptest.Options{Token: adminSecret, Reason: "browser test setup", DataDir: dir})
	rp := &restyplane{Process: p, t: t}

	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(rp.token("erin", "editor"))
	b.route("#/history", tid("history"))
	b.waitFor("the history follows the event stream", fmt.Sprintf(`document.querySelector(%s).dataset.live === 'events'`, js(tid("history"))))
	if n := b.count(tid("hold-row")); n != 0 {
		t.Fatalf("%d holds listed before any rollback", n)
	}

	rp.must("POST", fmt.Sprintf("/api/v1/revisions/%d/rollback", good), map[string]any{"message": "the new route broke checkout"})
	rollback := rp.head()
	b.waitFor("two holds listed", fmt.Sprintf(`document.querySelectorAll(%s).length === 2`, js(tid("hold-row"))))
	server := `[data-testid="hold-row"][data-kind="server"][data-name="k8s.shop.example.com"]`
	if got := b.text(server); !strings.Contains(got, "k8s.shop.example.com") || !strings.Contains(got, fmt.Sprintf("#%d", rollback)) {
		t.Fatalf("the server's hold row = %q, want its name and rollback #%d", got, rollback)
	}

	releaseRow(b, server)
	b.waitFor("the server's hold gone", fmt.Sprintf(`!document.querySelector(%s)`, js(server)))
	b.waitText(tid("status"), "Released server k8s.shop.example.com")
	if n := b.count(tid("hold-row")); n != 1 {
		t.Fatalf("%d holds listed after one release, want the backend's", n)
	}
	var holds struct{ Items []api.Hold }
	if code := rp.call(adminSecret, "GET", "/api/v1/holds", nil, &holds); code != 200 ||
		len(holds.Items) != 1 || holds.Items[0].Kind != api.KindBackend {
		t.Fatalf("GET /api/v1/holds = %d %+v, want the backend's hold alone", code, holds.Items)
	}
	b.noHorizontalScroll("history with a hold")

	// Someone else released the backend's hold meanwhile, and no revision said so: the
	// row is stale. Its Release says the hold is gone and takes the row away, no error.
	rp.must("DELETE", "/api/v1/holds/backend/k8s.shop.a.80?message=released+from+the+API", nil)
	backend := `[data-testid="hold-row"][data-kind="backend"]`
	releaseRow(b, backend)
	b.waitFor("the stale row gone", fmt.Sprintf(`!document.querySelector(%s)`, js(backend)))
	b.waitText(tid("status"), "backend k8s.shop.a.80 was no longer held")
	b.waitFor("the release dialog closed", fmt.Sprintf(`!document.querySelector(%s) || document.querySelector(%s).hidden || !document.querySelector(%s).open`,
		js(tid("hold-release-dialog")), js(tid("hold-release-dialog")), js(tid("hold-release-dialog"))))
}

// releaseRow releases the hold of the row that row selects, through its dialog.
func releaseRow(b *browser, row string) {
	b.click(row + ` [data-testid="hold-release"]`)
	b.waitVisible(tid("hold-release-dialog"))
	b.typeInto(tid("hold-release-dialog-reason"), "the fix is deployed")
	b.click(tid("hold-release-dialog-confirm"))
}

// seedKubernetes writes into a fresh history in dir a server and its backend as the
// reconciler does, then a change of both, and returns the revision before the change.
func seedKubernetes(t *testing.T, dir string) int64 {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "restyplane.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	defer st.Close()
	owner := api.Source{Kind: api.SourceKubernetes, Namespace: "shop", Name: "shop"}
	write := func(lb, path string) int64 {
		b := api.Backend{Name: "k8s.shop.a.80", Source: owner, LoadBalance: lb,
			Endpoints: []api.Endpoint{{Address: "127.0.0.1", Port: 9}}}
		s := api.Server{Name: "k8s.shop.example.com", Source: owner, Hostnames: []string{"shop.example.com"},
			Locations: []api.Location{{Path: path, Backend: b.Name}}}
		res, err := st.Write(ctx, api.Meta{Actor: api.ActorKubernetes, Source: api.SourceKubernetes, Message: "Ingress shop/shop"},
			[]api.Mutation{{Kind: api.KindBackend, Backend: &b}, {Kind: api.KindServer, Server: &s}})
		if err != nil || res.Revision == nil {
			t.Fatalf("kubernetes write: %v", err)
		}
		return res.Revision.ID
	}
	good := write(api.RoundRobin, "/")
	write(api.EWMA, "/v2")
	return good
}
