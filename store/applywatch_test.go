package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestWatchSkips: the watch hears of each committed apply record that left objects out,
// the managed instance's and an agent's report's alike, and of no other.
func TestWatchSkips(t *testing.T) {
	s := mustOpen(t)
	var heard []string
	s.WatchSkips(func(r api.ApplyRecord) { heard = append(heard, r.Instance+" "+r.Skipped[0].Name) })
	ctx := context.Background()
	skipped := []api.SkippedObject{{Kind: api.KindServer, Name: "k8s.a.test", Reason: "nginx said no"}}
	for _, rec := range []*api.ApplyRecord{
		{Revision: 0, Instance: "default", Mode: api.ModeReload, Started: time.Now(), Outcome: api.OutcomeSuccess, Skipped: skipped},
		{Revision: 0, Instance: "default", Mode: api.ModeDynamic, Started: time.Now(), Outcome: api.OutcomeSuccess},
	} {
		if err := s.RecordApply(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	rep := &api.Report{Version: "t", State: "running", Applies: []api.ApplyRecord{
		{Revision: 0, Mode: api.ModeReload, Started: time.Now(), Outcome: api.OutcomeSuccess, Skipped: skipped}}}
	if err := s.RecordReports(ctx, []api.InstanceReport{{Name: "edge-1", Report: rep, Seen: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"default k8s.a.test", "edge-1 k8s.a.test"}; !slices.Equal(heard, want) {
		t.Fatalf("heard %v, want %v", heard, want)
	}
}
