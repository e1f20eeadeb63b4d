package fleet

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 {
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
