package store

import (
	"context"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestLastSuccessOf: the newest successful apply of a revision on one instance, past a
// later failure of the same revision and past other instances' and revisions' records.
func TestLastSuccessOf(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	for _, rec := range []*api.ApplyRecord{
		{Revision: 3, Instance: "default", Outcome: api.OutcomeSuccess, Skipped: []api.SkippedObject{{Kind: api.KindServer, Name: "a", Reason: "first"}}},
		{Revision: 3, Instance: "default", Outcome: api.OutcomeSuccess, Skipped: []api.SkippedObject{{Kind: api.KindServer, Name: "a", Reason: "retried"}}},
		{Revision: 3, Instance: "default", Outcome: api.OutcomeFailed, Error: "dial"},
		{Revision: 3, Instance: "edge-1", Outcome: api.OutcomeSuccess},
		{Revision: 4, Instance: "default", Outcome: api.OutcomeRejected, Error: "nginx: [emerg]"},
	} {
		rec.Mode, rec.Started = api.ModeReload, time.Now()
		if err := s.RecordApply(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.LastSuccessOf(ctx, "default", 3)
	if err != nil || len(got.Skipped) != 1 || got.Skipped[0].Reason != "retried" {
		t.Fatalf("LastSuccessOf(default, 3) = %+v, %v; want the retry's record", got, err)
	}
	if _, err := s.LastSuccessOf(ctx, "default", 4); api.ErrorCode(err) != api.ENotFound {
		t.Fatalf("LastSuccessOf(default, 4): %v, want not_found", err)
	}
}
