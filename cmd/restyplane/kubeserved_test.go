//go:build !nokube

package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
	"github.com/restyplane/restyplane/store"
)

// statusApplier is a managed instance's applier as far as its status goes.
type statusApplier struct {
	server.Applier
	st api.Status
}

func (a statusApplier) Status(context.Context) api.Status { return a.st }

// TestServedRevisionLeftOut: what the instances that serve the newest revision left out
// of it, as the apply that brought each there (or a later retry of it) recorded. A later
// revision's failure does not hide it, an instance still at an older revision does not
// count, and a retry that applied the object takes it out. A location policy left out is
// its server's.
func TestServedRevisionLeftOut(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "restyplane.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const why = `nginx -t: [emerg] SSL_CTX_use_certificate("/p/certs/a.crt") failed (SSL: ee key too small)`
	srv := api.SkippedObject{Kind: api.KindServer, Name: "k8s.a.test", Reason: why}
	ref := api.Ref{Kind: api.KindServer, Name: "k8s.a.test"}
	applied := func(rev int64, skipped ...api.SkippedObject) api.ApplyRecord {
		return api.ApplyRecord{Revision: rev, Mode: api.ModeReload, Started: time.Now(), Outcome: api.OutcomeSuccess, Skipped: skipped}
	}
	report := func(name string, rev int64, recs ...api.ApplyRecord) {
		t.Helper()
		rep := &api.Report{Version: "t", State: "running", Applied: rev, Applies: recs}
		if err := st.RecordReports(ctx, []api.InstanceReport{{Name: name, Report: rep, Seen: time.Now()}}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(s applyingStore, when string, want map[api.Ref]string) {
		t.Helper()
		got, err := s.ServedRevision(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got.Skipped); d != "" {
			t.Errorf("%s: Skipped (-want +got):\n%s", when, d)
		}
	}

	agents := applyingStore{Store: st}
	report("edge-1", 3, applied(3, srv))
	report("edge-2", 3, applied(3, srv))
	report("edge-3", 2, applied(2, api.SkippedObject{Kind: api.KindBackend, Name: "old", Reason: "does not resolve"}))
	report("edge-4", 3, applied(3, api.SkippedObject{Kind: api.KindServer, Name: "k8s.a.test/2", Reason: "no memory"}))
	check(agents, "applied", map[api.Ref]string{ref: "edge-1, edge-2: " + why + "; edge-4: location policy k8s.a.test/2: no memory"})
	report("edge-1", 3, api.ApplyRecord{Revision: 4, Mode: api.ModeReload, Started: time.Now(), Outcome: api.OutcomeRejected, Error: "nginx: [emerg]"})
	check(agents, "after edge-1 refused revision 4", map[api.Ref]string{ref: "edge-1, edge-2: " + why + "; edge-4: location policy k8s.a.test/2: no memory"})
	report("edge-2", 3, applied(3))
	report("edge-4", 3, applied(3))
	check(agents, "after edge-2's and edge-4's retries", map[api.Ref]string{ref: "edge-1: " + why})

	rec := applied(5, srv)
	rec.Instance = "default"
	if err := st.RecordApply(ctx, &rec); err != nil {
		t.Fatal(err)
	}
	managed := applyingStore{Store: st, applier: statusApplier{st: api.Status{Instance: "default", Applied: 5, LastApply: &rec}}}
	check(managed, "managed", map[api.Ref]string{ref: "default: " + why})
	failed := api.ApplyRecord{Revision: 6, Instance: "default", Outcome: api.OutcomeFailed, Error: "dial unix admin.sock"}
	managed.applier = statusApplier{st: api.Status{Instance: "default", Applied: 5, LastApply: &failed}}
	check(managed, "managed, after revision 6 failed", map[api.Ref]string{ref: "default: " + why})
}
