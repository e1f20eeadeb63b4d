package server_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// TestReportsAreBounded: every field of a report is bounded, revisions that do not exist
// are refused (a record at revision 9e18 would never be pruned), and the body is capped.
func TestReportsAreBounded(t *testing.T) {
	e := newEnv(t)
	cred := e.credential("edge-1")
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.admin, body: backend("a", 8080)})
	rec := func(mod func(*api.ApplyRecord)) []api.ApplyRecord {
		r := api.ApplyRecord{Revision: 1, Mode: api.ModeReload, Started: time.Now(), Outcome: api.OutcomeRejected, Error: "nginx: no"}
		mod(&r)
		return []api.ApplyRecord{r}
	}
	many := func(n int) map[string]api.BackendCounter {
		m := map[string]api.BackendCounter{}
		for i := 0; i < n; i++ {
			m["b"+itoa(i)] = api.BackendCounter{Requests: 1}
		}
		return m
	}
	for what, rep := range map[string]api.Report{
		"a served revision beyond the head":   {Applied: 9e18},
		"a rejected revision beyond the head": {Applied: 1, Rejected: 2},
		"a record of a revision that does not exist": {Applied: 1,
			Applies: rec(func(r *api.ApplyRecord) { r.Revision = 9e18 })},
		"an error of 16 KiB":  {Applied: 1, Applies: rec(func(r *api.ApplyRecord) { r.Error = strings.Repeat("x", 16<<10) })},
		"an unknown mode":     {Applied: 1, Applies: rec(func(r *api.ApplyRecord) { r.Mode = strings.Repeat("m", 200) })},
		"an unknown outcome":  {Applied: 1, Applies: rec(func(r *api.ApplyRecord) { r.Outcome = "great" })},
		"a negative duration": {Applied: 1, Applies: rec(func(r *api.ApplyRecord) { r.DurationMS = -1 })},
		"1000 skipped objects": {Applied: 1, Applies: rec(func(r *api.ApplyRecord) {
			r.Skipped = make([]api.SkippedObject, 1000)
			for i := range r.Skipped {
				r.Skipped[i] = api.SkippedObject{Kind: "backend", Name: "b", Reason: "x"}
			}
		})},
		"a skipped reason of 16 KiB": {Applied: 1, Applies: rec(func(r *api.ApplyRecord) {
			r.Skipped = []api.SkippedObject{{Kind: "backend", Name: "b", Reason: strings.Repeat("x", 16<<10)}}
		})},
		"101 apply records": {Applied: 1, Applies: func() []api.ApplyRecord {
			var out []api.ApplyRecord
			for i := 0; i < 101; i++ {
				out = append(out, rec(func(*api.ApplyRecord) {})...)
			}
			return out
		}()},
		"a backend name of 1000 characters": {Applied: 1, Backends: map[string]api.BackendCounter{strings.Repeat("b", 1000): {}}},
		"negative counters":                 {Applied: 1, Backends: map[string]api.BackendCounter{"a": {Requests: -1}}},
		"20001 backends":                    {Applied: 1, Backends: many(20001)},
	} {
		rep.Version, rep.State = "test", "running"
		if got := e.send(reqPost("/api/v1/instances/edge-1/report", cred, rep)); got.status != http.StatusBadRequest {
			t.Errorf("a report with %s = %d %.200s, want 400", what, got.status, got.body)
		}
	}
	big := `{"version":"test","state":"running","applied":1,"counters":{"` + strings.Repeat("x", 2<<20) + `":{}}}`
	if got := e.send(reqPost("/api/v1/instances/edge-1/report", cred, big)); got.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a report of 2 MiB = %d, want 413", got.status)
	}
	e.must(http.StatusNoContent, reqPost("/api/v1/instances/edge-1/report", cred,
		api.Report{Version: "test", State: "running", Applied: 1, Applies: rec(func(*api.ApplyRecord) {})}))
}

// TestReportsAreRateLimited: an instance that reports faster than any agent does is
// answered 429 past a burst; another instance is not held back by it.
func TestReportsAreRateLimited(t *testing.T) {
	e := newEnv(t)
	flood, calm := e.credential("edge-1"), e.credential("edge-2")
	rep := api.Report{Version: "test", State: "running"}
	codes := map[int]int{}
	for i := 0; i < 100; i++ {
		codes[e.send(reqPost("/api/v1/instances/edge-1/report", flood, rep)).status]++
	}
	if codes[http.StatusNoContent] < 10 || codes[http.StatusTooManyRequests] == 0 {
		t.Fatalf("100 reports at once answered %v, want a burst of 204s, then 429s", codes)
	}
	e.must(http.StatusNoContent, reqPost("/api/v1/instances/edge-2/report", calm, rep))
}

// TestInstancesAreCapped: a fleet at its cap takes no more joins (each instance is a row,
// a credential and metric series), until an admin forgets one.
func TestInstancesAreCapped(t *testing.T) {
	e := newEnvWith(t, options{Options: server.Options{MaxInstances: 2}})
	e.credential("edge-1")
	e.credential("edge-2")
	join := e.dataplane()
	if got := e.send(req{method: "POST", path: "/api/v1/instances/edge-3/join", token: join}); got.status != http.StatusConflict {
		t.Fatalf("a third join with a cap of 2 = %d %s, want 409", got.status, got.body)
	}
	e.must(http.StatusNoContent, req{method: "DELETE", path: "/api/v1/instances/edge-1", token: e.admin})
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/instances/edge-3/join", token: join})
}

// TestStreamsAreCappedPerToken: one token holds a bounded number of /events streams, and
// one instance of /feed streams; past them, 429, and other tokens are not held back.
func TestStreamsAreCappedPerToken(t *testing.T) {
	e := newEnv(t)
	open := func(path, token string) *http.Response {
		t.Helper()
		hr, _ := http.NewRequest("GET", e.ts.URL+path, nil)
		hr.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode == http.StatusOK {
			// The stream is counted once its handler runs: wait for its first line.
			if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		return resp
	}
	cred := e.credential("edge")
	for _, c := range []struct {
		path, token string
		max         int
	}{{"/api/v1/events", e.viewer, 16}, {"/api/v1/feed", cred, 4}} {
		for i := 0; i < c.max; i++ {
			if got := open(c.path, c.token); got.StatusCode != http.StatusOK {
				t.Fatalf("%s stream %d = %d, want 200", c.path, i+1, got.StatusCode)
			}
		}
		if got := open(c.path, c.token); got.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("%s stream %d = %d, want 429", c.path, c.max+1, got.StatusCode)
		}
	}
	if got := open("/api/v1/events", e.editor); got.StatusCode != http.StatusOK {
		t.Fatalf("another token's stream = %d, want 200", got.StatusCode)
	}
}
