package fleet

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestApplyReportIsNoHeartbeat: the report an apply triggers carries its record and asks
// the reporter for the light report (heartbeat false); the periodic one asks for the full.
func TestApplyReportIsNoHeartbeat(t *testing.T) {
	var mu sync.Mutex
	var got []api.Report
	cp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rep api.Report
		if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
			t.Errorf("decode report: %v", err)
		}
		mu.Lock()
		got = append(got, rep)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer cp.Close()
	f, err := New(Options{ControlPlane: cp.URL, Token: "x", Name: "edge", DataDir: t.TempDir(), ReportEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	f.cred = "cred" // joined
	f.SetReporter(func(ctx context.Context, heartbeat bool) api.Report {
		if heartbeat {
			return api.Report{State: "heartbeat"}
		}
		return api.Report{State: "apply"}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.reportLoop(ctx)
	_ = f.RecordApply(ctx, &api.ApplyRecord{Revision: 3, Outcome: api.OutcomeSuccess})
	// Wait until the loop's report got through, not only arrived: the heartbeat below
	// must not race it for the record.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		f.mu.Lock()
		through := len(f.pending) == 0
		f.mu.Unlock()
		if n > 0 && through {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no report after an apply")
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	first := got[0]
	mu.Unlock()
	if first.State != "apply" || len(first.Applies) != 1 || first.Applies[0].Revision != 3 {
		t.Fatalf("report after an apply = %+v, want the light one with the record of revision 3", first)
	}
	if err := f.sendReport(ctx, true); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	last := got[len(got)-1]
	mu.Unlock()
	if last.State != "heartbeat" || len(last.Applies) != 0 {
		t.Fatalf("heartbeat = %+v, want the full one without records (they got through)", last)
	}
}

// TestApplyReportsWaitAndShareOneReport: the applies of a burst within ReportDelay go out
// in one report, no sooner than the delay, and the report says how long its newest apply
// waited.
func TestApplyReportsWaitAndShareOneReport(t *testing.T) {
	const delay = 150 * time.Millisecond
	reports := make(chan api.Report, 10)
	cp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rep api.Report
		if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
			t.Errorf("decode report: %v", err)
		}
		reports <- rep
		w.WriteHeader(http.StatusNoContent)
	}))
	defer cp.Close()
	f, err := New(Options{ControlPlane: cp.URL, Token: "x", Name: "edge", DataDir: t.TempDir(),
		ReportEvery: time.Hour, ReportDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	f.cred = "cred" // joined
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.reportLoop(ctx)
	start := time.Now()
	for rev := int64(1); rev <= 3; rev++ {
		_ = f.RecordApply(ctx, &api.ApplyRecord{Revision: rev, Outcome: api.OutcomeSuccess, Started: time.Now()})
	}
	var rep api.Report
	select {
	case rep = <-reports:
	case <-time.After(10 * time.Second):
		t.Fatal("no report after three applies")
	}
	if waited := time.Since(start); waited < delay {
		t.Errorf("the report went out %s after the applies, before the delay of %s", waited, delay)
	}
	if len(rep.Applies) != 3 {
		t.Errorf("report carries %d apply records, want the burst's 3 in one report", len(rep.Applies))
	}
	if rep.HeldMS < float64(delay/time.Millisecond) {
		t.Errorf("heldMs = %.1f, want at least the delay's %d", rep.HeldMS, delay/time.Millisecond)
	}
	select {
	case extra := <-reports:
		t.Errorf("a second report for the same burst: %+v", extra)
	case <-time.After(2 * delay):
	}
}

// TestConcurrentReportsDropEachRecordOnce: two reports that carried the same records, as a
// heartbeat sent while the loop's report waits for its answer does, drop them once between
// them: neither panics on the other's drop, and a record taken after both stays pending.
func TestConcurrentReportsDropEachRecordOnce(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 2)
	cp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		w.WriteHeader(http.StatusNoContent)
	}))
	defer cp.Close()
	f, err := New(Options{ControlPlane: cp.URL, Token: "x", Name: "edge", DataDir: t.TempDir(), ReportEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	f.cred = "cred" // joined
	ctx := context.Background()
	_ = f.RecordApply(ctx, &api.ApplyRecord{Revision: 1, Outcome: api.OutcomeSuccess})
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- f.sendReport(ctx, false) }()
	}
	<-arrived
	<-arrived
	_ = f.RecordApply(ctx, &api.ApplyRecord{Revision: 2, Outcome: api.OutcomeSuccess})
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) != 1 || f.pending[0].Revision != 2 {
		t.Fatalf("pending = %+v, want revision 2's record alone", f.pending)
	}
}

// TestHeldForIsTheNewestSuccess: heldFor measures from the end of the newest successful
// apply, is 0 when none succeeded, and never more than the control plane accepts.
func TestHeldForIsTheNewestSuccess(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	recs := []api.ApplyRecord{
		{Revision: 2, Outcome: api.OutcomeSuccess, Started: t0, DurationMS: 5},
		{Revision: 4, Outcome: api.OutcomeRejected, Started: t0.Add(50 * time.Millisecond)},
		{Revision: 3, Outcome: api.OutcomeSuccess, Started: t0.Add(10 * time.Millisecond), DurationMS: 10},
	}
	if got := heldFor(recs, t0.Add(100*time.Millisecond)); got != 80 {
		t.Errorf("heldFor = %v ms, want 80 (from revision 3's end at 20 ms)", got)
	}
	if got := heldFor(recs[1:2], t0.Add(time.Second)); got != 0 {
		t.Errorf("heldFor without a success = %v, want 0", got)
	}
	if got := heldFor(recs, t0.Add(48*time.Hour)); got != api.MaxHeldMS {
		t.Errorf("heldFor after two days = %v ms, want the %v the control plane accepts", got, float64(api.MaxHeldMS))
	}
}

// TestBacklogGoesInBoundedReports: a backlog of apply records (an agent cut off for a
// while) goes out in reports of at most api.MaxReportApplies records, one after the other,
// each record once; an error text longer than a report takes is cut, not refused.
func TestBacklogGoesInBoundedReports(t *testing.T) {
	reports := make(chan api.Report, 10)
	cp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rep api.Report
		if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
			t.Errorf("decode report: %v", err)
		}
		if err := rep.Validate(); err != nil {
			t.Errorf("the agent sent a report the control plane refuses: %v", err)
		}
		reports <- rep
		w.WriteHeader(http.StatusNoContent)
	}))
	defer cp.Close()
	f, err := New(Options{ControlPlane: cp.URL, Token: "x", Name: "edge", DataDir: t.TempDir(), ReportEvery: time.Hour, ReportDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	f.cred = "cred" // joined
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for rev := int64(1); rev <= 250; rev++ {
		_ = f.RecordApply(ctx, &api.ApplyRecord{Revision: rev, Mode: api.ModeReload, Outcome: api.OutcomeRejected,
			Error: strings.Repeat("e", 3*api.MaxApplyError)})
	}
	go f.reportLoop(ctx)
	var got []int64
	for len(got) < 250 {
		select {
		case rep := <-reports:
			if len(rep.Applies) > api.MaxReportApplies {
				t.Fatalf("a report carries %d records, want at most %d", len(rep.Applies), api.MaxReportApplies)
			}
			for _, a := range rep.Applies {
				got = append(got, a.Revision)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of 250 records reported", len(got))
		}
	}
	for i, rev := range got {
		if rev != int64(i+1) {
			t.Fatalf("records reported in order %v, want 1..250 once each", got)
		}
	}
}

// TestReportOfALateAnswerGoesAtOnce: the report of an apply waits ReportDelay from the
// apply's start, so an apply whose answer was read at the end of that delay (the
// applier's AnswerLater) is reported in the same wake-up, not a delay later.
func TestReportOfALateAnswerGoesAtOnce(t *testing.T) {
	const delay = 2 * time.Second
	reports := make(chan api.Report, 10)
	cp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rep api.Report
		if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
			t.Errorf("decode report: %v", err)
		}
		reports <- rep
		w.WriteHeader(http.StatusNoContent)
	}))
	defer cp.Close()
	f, err := New(Options{ControlPlane: cp.URL, Token: "x", Name: "edge", DataDir: t.TempDir(),
		ReportEvery: time.Hour, ReportDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	f.cred = "cred" // joined
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.reportLoop(ctx)
	start := time.Now()
	_ = f.RecordApply(ctx, &api.ApplyRecord{Revision: 1, Outcome: api.OutcomeSuccess, Started: start.Add(-delay), DurationMS: 5})
	select {
	case rep := <-reports:
		if took := time.Since(start); took > delay/2 {
			t.Errorf("the report went out %s after the record, want at once: its apply began a delay ago", took)
		}
		if len(rep.Applies) != 1 {
			t.Errorf("report carries %d apply records, want 1", len(rep.Applies))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no report after the apply")
	}
}
