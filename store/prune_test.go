package store

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// buildHistory writes about 70 revisions of creates, updates, deletes and rollbacks, with a
// certificate whose key changes, ending with a rollback to revision 1 after backend "x"
// was deleted: its restored row points at a body far below any cutoff.
func buildHistory(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	cert1, key1 := selfSigned(t, "shop.example.com")
	cert2, key2 := selfSigned(t, "shop.example.com")
	mustWrite := func(muts ...api.Mutation) {
		t.Helper()
		if _, err := write(s, meta("edit"), muts...); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(api.Mutation{Kind: api.KindBackend, Backend: backend("x", 7000)},
		api.Mutation{Kind: api.KindCertificate, Certificate: &api.Certificate{Name: "shop", Cert: cert1, Key: key1}})
	for i := 1; s.Head().Revision < 60; i++ {
		head := s.Head()
		name := fmt.Sprintf("b%d", i%4)
		switch {
		case i == 9:
			mustWrite(api.Mutation{Kind: api.KindCertificate, Certificate: &api.Certificate{Name: "shop", Cert: cert2, Key: key2}})
		case i == 30:
			mustWrite(api.Mutation{Kind: api.KindBackend, Name: "x", Delete: true})
		case i%7 == 0:
			if _, err := s.Rollback(ctx, meta("back"), max(1, head.Revision-5-int64(i%4))); err != nil {
				t.Fatal(err)
			}
		case i%5 == 0 && head.Backends[name] != nil:
			mustWrite(api.Mutation{Kind: api.KindBackend, Name: name, Delete: true})
		default:
			mustWrite(api.Mutation{Kind: api.KindBackend, Backend: backend(name, 8000+i)})
		}
	}
	if _, err := s.Rollback(ctx, meta("x is back"), 1); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		mustWrite(api.Mutation{Kind: api.KindBackend, Backend: backend("late", 9000+i)})
	}
}

// statesOf returns the state, keys included, at every revision from lo to the head.
func statesOf(t *testing.T, s *Store, lo int64) map[int64]*api.State {
	t.Helper()
	out := map[int64]*api.State{}
	for rev := lo; rev <= s.Head().Revision; rev++ {
		st, err := s.State(context.Background(), rev, true)
		if err != nil {
			t.Fatalf("state at %d: %v", rev, err)
		}
		out[rev] = st
	}
	return out
}

// objects is a state's config without revision and versions: what a rollback restores.
func objects(st *api.State) api.Config {
	c := st.Config(true)
	c.Revision, c.Settings.Version = 0, 0
	for i := range c.Backends {
		c.Backends[i].Version = 0
	}
	for i := range c.Servers {
		c.Servers[i].Version = 0
	}
	for i := range c.Certificates {
		c.Certificates[i].Version = 0
	}
	return c
}

func TestNothingPrunedByDefault(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	buildHistory(t, s)
	head := s.Head().Revision
	// Ten years on: the apply records and audit events have a retention of their own, the
	// history has none unless an admin sets it.
	res, err := s.Prune(ctx, meta("prune"), time.Now().Add(10*365*24*time.Hour))
	if err != nil || res.Revisions != 0 || res.RevisionRows != 0 || res.ObjectRows != 0 || res.Floor != 0 {
		t.Fatalf("prune without a policy = %+v, %v; want no revision pruned", res, err)
	}
	if n, _ := s.RevisionCount(ctx); n != head {
		t.Fatalf("%d revisions after a prune without a policy, want %d", n, head)
	}
	if pol, _ := s.Retention(ctx); pol.Enabled() {
		t.Fatalf("default retention %+v is enabled", pol)
	}
	if _, err := s.State(ctx, 1, true); err != nil {
		t.Fatalf("state at 1: %v", err)
	}
}

func TestPrunedHistoryKeepsEveryKeptState(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	buildHistory(t, s)
	before := statesOf(t, s, 1)
	head := s.Head().Revision
	// Two prunes, the second over what the first left below its floor, end where one would.
	var res api.PruneResult
	for _, keep := range []int64{40, 20} {
		if _, err := s.SetRetention(ctx, meta("policy"), api.Retention{KeepRevisions: keep}); err != nil {
			t.Fatal(err)
		}
		var err error
		if res, err = s.Prune(ctx, api.Meta{Actor: "admin"}, time.Now()); err != nil {
			t.Fatal(err)
		}
		if floor := head - keep + 1; res.Floor != floor || res.ObjectRows == 0 {
			t.Fatalf("prune keeping %d = %+v, want floor %d", keep, res, floor)
		}
	}
	floor := head - 19
	var err error
	// Rows below the floor stay: the state at the floor needs them, and the late rollback
	// points at backend x's body of revision 1.
	var x1, dangling int
	s.db.Get(&x1, `SELECT COUNT(*) FROM object_versions WHERE kind = 'backend' AND name = 'x' AND revision = 1`)
	s.db.Get(&dangling, `SELECT COUNT(*) FROM object_versions v WHERE v.body_of IS NOT NULL AND NOT EXISTS
		(SELECT 1 FROM object_versions b WHERE b.kind = v.kind AND b.name = v.name AND b.revision = v.body_of)`)
	if x1 != 1 || dangling != 0 {
		t.Fatalf("row of x at revision 1: %d, rows whose body_of is gone: %d; want 1 and 0", x1, dangling)
	}
	after := statesOf(t, s, floor)
	for rev := floor; rev <= head; rev++ {
		if !reflect.DeepEqual(before[rev], after[rev]) {
			t.Fatalf("state at kept revision %d changed by the prune:\nbefore %+v\nafter  %+v", rev, objects(before[rev]), objects(after[rev]))
		}
	}
	for rev := int64(1); rev < floor; rev++ {
		_, err := s.State(ctx, rev, false)
		wantCode(t, err, api.EGone)
		_, err = s.Revision(ctx, rev)
		wantCode(t, err, api.EGone)
		_, err = s.Diff(ctx, rev, head)
		wantCode(t, err, api.EGone)
		_, err = s.Rollback(ctx, meta("back"), rev)
		wantCode(t, err, api.EGone)
	}
	_, err = s.Diff(ctx, 0, head)
	wantCode(t, err, api.EGone)
	if list, _ := s.Revisions(ctx, 0, 1000); len(list) != 20 || list[len(list)-1].ID != floor {
		t.Fatalf("listed %d revisions, want the 20 kept", len(list))
	}
	ev, _ := s.AuditEvents(ctx, api.AuditFilter{Action: api.AuditPrune})
	if len(ev) != 2 || ev[0].Actor != "admin" || ev[0].Revision != floor ||
		!strings.Contains(ev[0].Detail, "pruned 20 revisions") ||
		!strings.Contains(ev[0].Detail, fmt.Sprintf("oldest kept revision %d", floor)) {
		t.Fatalf("prune audit events = %+v", ev)
	}
	// Every kept revision can be rolled back to, and comes back exactly, keys included.
	for rev := floor; rev <= head; rev++ {
		if _, err := s.Rollback(ctx, meta("back"), rev); err != nil {
			t.Fatalf("rollback to kept revision %d: %v", rev, err)
		}
		if got, want := objects(s.Head()), objects(before[rev]); !reflect.DeepEqual(got, want) {
			t.Fatalf("rollback to %d: head %+v, want %+v", rev, got, want)
		}
	}
	// The head is whole after reopening, and a second prune keeps it so.
	if _, err := s.Prune(ctx, meta("again"), time.Now()); err != nil {
		t.Fatal(err)
	}
	want := s.Head()
	s.Close()
	s2, err := Open(ctx, s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if !reflect.DeepEqual(s2.Head(), want) {
		t.Fatalf("head after reopen %+v, want %+v", objects(s2.Head()), objects(want))
	}
}

func TestPruneKeepsRecentRevisionsAndPrunesApplies(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	buildHistory(t, s)
	head := s.Head()
	for _, rev := range []int64{1, head.Revision} {
		if err := s.RecordApply(ctx, &api.ApplyRecord{Revision: rev, Instance: "default", Mode: "reload",
			Started: time.Now(), Outcome: "success"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SetRetention(ctx, meta("policy"), api.Retention{KeepRevisions: 1, KeepDays: 1}); err != nil {
		t.Fatal(err)
	}
	// Everything is younger than a day: nothing goes although only one revision must stay.
	if res, err := s.Prune(ctx, meta("prune"), time.Now()); err != nil || res != (api.PruneResult{}) {
		t.Fatalf("prune of recent revisions = %+v, %v; want none", res, err)
	}
	if _, err := s.Diff(ctx, 0, head.Revision); err != nil {
		t.Fatalf("diff from 0 after a prune that removed nothing: %v", err)
	}
	res, err := s.Prune(ctx, meta("prune"), time.Now().Add(48*time.Hour))
	if err != nil || res.Floor != head.Revision || res.Applies != 1 {
		t.Fatalf("prune two days later = %+v, %v; want all but the head and one apply record", res, err)
	}
	if applies, _ := s.Applies(ctx, 0, 10); len(applies) != 1 || applies[0].Revision != head.Revision {
		t.Fatalf("apply records after prune: %+v", applies)
	}
	s.Close()
	s2, err := Open(ctx, s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if !reflect.DeepEqual(s2.Head(), head) {
		t.Fatalf("head after prune and reopen %+v, want %+v", objects(s2.Head()), objects(head))
	}
}

func TestRetentionValidatesAndAudits(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	_, err := s.SetRetention(ctx, meta("bad"), api.Retention{KeepRevisions: -1})
	wantCode(t, err, api.EInvalid)
	_, err = s.SetRetention(ctx, meta("bad"), api.Retention{KeepRevisions: 5, KeepDays: api.MaxKeepDays + 1})
	wantCode(t, err, api.EInvalid)
	got, err := s.SetRetention(ctx, api.Meta{Actor: "root"}, api.Retention{KeepRevisions: 5, KeepDays: 30, Floor: 99})
	if err != nil || got != (api.Retention{KeepRevisions: 5, KeepDays: 30, KeepRecordsDays: api.DefaultKeepRecordsDays}) {
		t.Fatalf("set retention = %+v, %v", got, err)
	}
	ev, _ := s.AuditEvents(ctx, api.AuditFilter{Action: api.AuditRetention})
	if len(ev) != 1 || ev[0].Actor != "root" || !strings.Contains(ev[0].Detail, "5 revisions") {
		t.Fatalf("retention audit = %+v", ev)
	}
}

func TestConcurrentPrunesCountEachRevisionOnce(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	buildHistory(t, s)
	head := s.Head().Revision
	want := statesOf(t, s, head-9)
	if _, err := s.SetRetention(ctx, meta("policy"), api.Retention{KeepRevisions: 10}); err != nil {
		t.Fatal(err)
	}
	results := make(chan api.PruneResult, 2)
	for range 2 {
		go func() {
			res, err := s.Prune(ctx, meta("prune"), time.Now())
			if err != nil {
				t.Error(err)
			}
			results <- res
		}()
	}
	a, b := <-results, <-results
	if a.Revisions+b.Revisions != head-10 || a.Floor != head-9 || b.Floor != head-9 {
		t.Fatalf("two prunes at once: %+v and %+v, want %d revisions between them and floor %d", a, b, head-10, head-9)
	}
	if got := statesOf(t, s, head-9); !reflect.DeepEqual(got, want) {
		t.Fatal("kept states changed by two prunes at once")
	}
}
