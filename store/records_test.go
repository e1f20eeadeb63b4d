package store

import (
	"context"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestRecordsHaveARetentionOfTheirOwn: with the history's retention off (the default),
// apply records and audit events older than the records' retention (90 days unless set)
// are pruned anyway, the recent ones stay, and the prune is audited.
func TestRecordsHaveARetentionOfTheirOwn(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	now := time.Now()
	old, recent := now.Add(-91*24*time.Hour), now.Add(-time.Hour)
	for _, at := range []time.Time{old, recent} {
		if err := s.RecordApply(ctx, &api.ApplyRecord{Revision: 0, Instance: "edge", Mode: api.ModeReload,
			Started: at, Outcome: api.OutcomeSuccess}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddAudit(ctx, api.AuditEvent{Time: at, Actor: "x", Action: api.AuditDenied, Outcome: "failure"}); err != nil {
			t.Fatal(err)
		}
	}
	pol, err := s.Retention(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if pol.Enabled() || pol.KeepRecordsDays != 90 {
		t.Fatalf("retention = %+v, want the history's off and records kept 90 days", pol)
	}
	res, err := s.Prune(ctx, meta("prune"), now)
	if err != nil {
		t.Fatal(err)
	}
	if res.Applies != 1 || res.AuditEvents != 1 {
		t.Fatalf("prune = %+v, want the old apply and the old audit event", res)
	}
	applies, err := s.Applies(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(applies) != 1 || !applies[0].Started.After(old) {
		t.Fatalf("applies left = %+v, want the recent one", applies)
	}
	evs, err := s.AuditEvents(ctx, api.AuditFilter{Action: api.AuditDenied})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Time.Before(recent.Add(-time.Second)) {
		t.Fatalf("denied events left = %+v, want the recent one", evs)
	}
	pruned, err := s.AuditEvents(ctx, api.AuditFilter{Action: api.AuditPrune})
	if err != nil {
		t.Fatal(err)
	}
	if len(pruned) != 1 {
		t.Fatalf("prune audit events = %+v, want one", pruned)
	}
	// A shorter retention set through the policy applies at the next prune.
	if _, err := s.SetRetention(ctx, meta("short"), api.Retention{KeepRecordsDays: 1}); err != nil {
		t.Fatal(err)
	}
	if res, err = s.Prune(ctx, meta("prune"), now.Add(22*time.Hour)); err != nil || res.Applies != 0 {
		t.Fatalf("prune with 1 day, 23 hours after the apply = %+v, %v; want it kept", res, err)
	}
	if res, err = s.Prune(ctx, meta("prune"), now.Add(25*time.Hour)); err != nil || res.Applies != 1 {
		t.Fatalf("prune with 1 day, 26 hours after the apply = %+v, %v; want it pruned", res, err)
	}
}
