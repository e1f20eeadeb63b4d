package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// dataplane creates a join token (role dataplane) and returns its secret.
func (e *env) dataplane() string {
	e.tb.Helper()
	tok, err := e.st.CreateToken(context.Background(), "dp-token-"+itoa(int(time.Now().UnixNano()%1e9)), api.RoleDataplane, "")
	if err != nil {
		e.tb.Fatalf("create dataplane token: %v", err)
	}
	return tok.Secret
}

// credential joins instance name with a fresh join token and returns its credential.
func (e *env) credential(name string) string {
	e.tb.Helper()
	var c api.Credential
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/instances/" + name + "/join", token: e.dataplane()}).into(e.tb, &c)
	if c.Instance != name || c.Secret == "" {
		e.tb.Fatalf("join %s = %+v", name, c)
	}
	return c.Secret
}

// TestFleetTokensReachOnlyTheirRoutes walks every route of the router: a join token is
// refused (403) everywhere but the join, an instance's credential everywhere but the feed
// and the report, and a viewer, editor or admin token is refused on those three, which
// carry private keys or speak for an instance.
func TestFleetTokensReachOnlyTheirRoutes(t *testing.T) {
	e := newEnv(t)
	join, cred := e.dataplane(), e.credential("x")
	own := map[string]string{"GET /api/v1/feed": cred, "POST /api/v1/instances/{name}/report": cred,
		"POST /api/v1/instances/{name}/join": join}
	n := 0
	for _, r := range e.srv.Routes() {
		if !strings.HasPrefix(r.Pattern, "/api/v1/") {
			continue
		}
		path := strings.NewReplacer("{name}", "x", "{id}", "1").Replace(r.Pattern)
		key := r.Method + " " + r.Pattern
		send := func(tok string) *resp {
			return e.send(req{method: r.Method, path: path, token: tok, body: "{}", header: map[string]string{"Content-Type": "application/json"}})
		}
		if owner := own[key]; owner != "" {
			for _, tok := range []string{e.viewer, e.editor, e.admin, join, cred} {
				if tok == owner {
					continue // the feed would stream on
				}
				if got := send(tok); got.status != http.StatusForbidden {
					t.Errorf("%s with another token = %d, want 403", key, got.status)
				}
			}
			continue
		}
		n++
		for _, tok := range []string{join, cred} {
			if got := send(tok); got.status != http.StatusForbidden {
				t.Errorf("%s with a fleet token = %d %s, want 403", key, got.status, got.body)
			}
		}
	}
	if n < 20 {
		t.Fatalf("walked only %d API routes", n)
	}
	// The dataplane role is made like any other.
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/tokens", token: e.admin,
		body: map[string]string{"name": "edge", "role": "dataplane"}})
}

// feedReader reads one feed stream line by line.
type feedReader struct {
	tb   testing.TB
	resp *http.Response
	sc   *bufio.Scanner
}

func (e *env) openFeed(token, query string) (*feedReader, int) {
	e.tb.Helper()
	hr, _ := http.NewRequest("GET", e.ts.URL+"/api/v1/feed?instance=edge"+query, nil)
	hr.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		e.tb.Fatalf("open feed: %v", err)
	}
	e.tb.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 64<<20)
	return &feedReader{tb: e.tb, resp: resp, sc: sc}, resp.StatusCode
}

// next returns the next line that is not a keep-alive, and its size in bytes.
func (f *feedReader) next() (api.FeedMessage, int) {
	f.tb.Helper()
	for f.sc.Scan() {
		var m api.FeedMessage
		if err := json.Unmarshal(f.sc.Bytes(), &m); err != nil {
			f.tb.Fatalf("feed line %q: %v", f.sc.Text(), err)
		}
		if m.Type != api.FeedKeepAlive {
			return m, len(f.sc.Bytes()) + 1
		}
	}
	f.tb.Fatalf("feed ended: %v", f.sc.Err())
	return api.FeedMessage{}, 0
}

// TestFeedSnapshotDeltaResumeGone: a stream starts with a snapshot holding certificate
// keys, then sends one delta per change with only what changed (deletes by name); a
// resume from an older revision starts with the delta from it; from the head, with nothing
// but a keep-alive; from beyond the head, 410.
func TestFeedSnapshotDeltaResumeGone(t *testing.T) {
	e := newEnvWith(t, options{})
	dp := e.credential("edge")
	cert, key := selfSigned(t, "shop.test")
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/certificates", token: e.admin,
		body: api.Certificate{Name: "shop", Cert: cert, Key: key}})
	for _, n := range []string{"a", "b"} {
		e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.admin, body: backend(n, 8080)})
	}
	rev2 := e.revisions()

	f, code := e.openFeed(dp, "")
	if code != http.StatusOK {
		t.Fatalf("feed = %d", code)
	}
	snap, _ := f.next()
	if snap.Type != api.FeedSnapshot || snap.Revision != rev2 || len(snap.Backends) != 2 || len(snap.Certificates) != 1 {
		t.Fatalf("snapshot = %+v", snap)
	}
	if snap.Certificates[0].Key == "" {
		t.Fatal("the snapshot's certificate has no key: a data plane could not serve TLS")
	}
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/backends/a/endpoints", token: e.admin,
		body: map[string]any{"endpoints": []map[string]any{{"address": "10.0.0.9", "port": 80}}, "message": "move"}})
	d, size := f.next()
	if d.Type != api.FeedDelta || len(d.Backends) != 1 || d.Backends[0].Name != "a" || d.Settings != nil || len(d.Certificates) != 0 {
		t.Fatalf("delta = %+v", d)
	}
	if size > 2048 {
		t.Fatalf("a one-endpoint delta is %d bytes, want under 2 KiB", size)
	}
	e.must(http.StatusOK, req{method: "DELETE", path: "/api/v1/backends/b", token: e.admin})
	d, _ = f.next()
	if len(d.DeletedBackends) != 1 || d.DeletedBackends[0] != "b" || len(d.Backends) != 0 {
		t.Fatalf("delete delta = %+v", d)
	}
	head := e.revisions()

	// Resume from the revision before the two changes: one delta covering both.
	r, code := e.openFeed(dp, "&from="+itoa(int(rev2)))
	if code != http.StatusOK {
		t.Fatalf("resume = %d", code)
	}
	d, _ = r.next()
	if d.Type != api.FeedDelta || d.Revision != head || len(d.Backends) != 1 || len(d.DeletedBackends) != 1 {
		t.Fatalf("resume delta = %+v", d)
	}
	// From the head: the first line is a keep-alive at the head.
	h, _ := e.openFeed(dp, "&from="+itoa(int(head)))
	if !h.sc.Scan() {
		t.Fatal("no first line from the head")
	}
	var ka api.FeedMessage
	_ = json.Unmarshal(h.sc.Bytes(), &ka)
	if ka.Type != api.FeedKeepAlive || ka.Revision != head {
		t.Fatalf("first line from the head = %+v", ka)
	}
	if _, code := e.openFeed(dp, "&from="+itoa(int(head+5))); code != http.StatusGone {
		t.Fatalf("from beyond the head = %d, want 410", code)
	}
}

// TestReportListsInstance: a report makes the instance appear in GET /instances with its
// lag, its apply records in /applies, and a rejected revision with nginx's error.
func TestReportListsInstance(t *testing.T) {
	e := newEnv(t)
	dp1, dp2 := e.credential("edge-1"), e.credential("edge-2")
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.admin, body: backend("a", 8080)})
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.admin, body: backend("b", 8080)})
	rep := api.Report{Version: "test", State: "running", Applied: 1, Rejected: 2, Applies: []api.ApplyRecord{
		{Revision: 2, Mode: api.ModeReload, Started: time.Now(), Outcome: api.OutcomeRejected, Error: "nginx: [emerg] no"}}}
	e.must(http.StatusNoContent, req{method: "POST", path: "/api/v1/instances/edge-1/report", token: dp1, body: rep})
	// An instance that has applied nothing yet is listed without a last apply.
	e.must(http.StatusNoContent, req{method: "POST", path: "/api/v1/instances/edge-2/report", token: dp2, body: api.Report{Version: "test", State: "starting"}})
	var list api.InstanceList
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/instances", token: e.viewer}).into(t, &list)
	if len(list.Items) != 2 || list.Items[1].Name != "edge-2" || list.Items[1].LastApply != nil || list.Items[1].State != "starting" {
		t.Fatalf("instances = %+v", list)
	}
	in := list.Items[0]
	if in.Name != "edge-1" || in.Applied != 1 || in.Lag != 1 || in.Rejected != 2 || in.Connected ||
		in.LastApply == nil || in.LastApply.Error != "nginx: [emerg] no" || in.LastApply.Instance != "edge-1" {
		t.Fatalf("instance = %+v", in)
	}
}

// TestFeedDeltaSizeIndependentOfConfig: a one-endpoint change costs about the same bytes
// on the feed with 10 backends as with 5,000, and under 2 KiB.
func TestFeedDeltaSizeIndependentOfConfig(t *testing.T) {
	sizes := map[int]int{}
	for _, n := range []int{10, 5000} {
		e := newEnv(t)
		dp := e.credential("edge")
		cfg := api.Config{}
		for i := 0; i < n; i++ {
			cfg.Backends = append(cfg.Backends, backend("pool-"+itoa(i), 8080, 8081))
		}
		e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/config", token: e.admin, body: cfg})
		f, _ := e.openFeed(dp, "")
		f.next()
		e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/backends/pool-7/endpoints", token: e.admin,
			body: map[string]any{"endpoints": []map[string]any{{"address": "10.0.0.9", "port": 80}}, "message": "one endpoint"}})
		_, sizes[n] = f.next()
	}
	if sizes[5000] > 2048 || sizes[5000] > 2*sizes[10] {
		t.Fatalf("one-endpoint delta: %d bytes with 10 backends, %d with 5,000; want the same within 2x and under 2 KiB", sizes[10], sizes[5000])
	}
	t.Logf("one-endpoint delta: %d bytes with 10 backends, %d with 5,000", sizes[10], sizes[5000])
}

// TestPropagationLeavesOutTheAgentsWait: the propagation histogram measures from a
// revision's write to its apply, so the time an agent held its report (heldMs) is left out;
// a negative or absurd heldMs is refused.
func TestPropagationLeavesOutTheAgentsWait(t *testing.T) {
	e := newEnv(t)
	dp := e.credential("edge-1")
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.admin, body: backend("a", 8080)})
	time.Sleep(300 * time.Millisecond)
	rep := api.Report{Version: "test", State: "running", Applied: 1, HeldMS: 300, Applies: []api.ApplyRecord{
		{Revision: 1, Mode: api.ModeDynamic, Started: time.Now().Add(-300 * time.Millisecond), Outcome: api.OutcomeSuccess}}}
	e.must(http.StatusNoContent, req{method: "POST", path: "/api/v1/instances/edge-1/report", token: dp, body: rep})
	body := string(e.must(http.StatusOK, req{method: "GET", path: "/metrics"}).body)
	if want := `restyplane_fleet_propagation_seconds_bucket{le="0.25"} 1`; !strings.Contains(body, want) {
		t.Errorf("/metrics lacks %s: the 300 ms the agent held its report counted as propagation:\n%s", want, body)
	}
	for _, held := range []float64{-1, 1e12} {
		rep.HeldMS = held
		e.must(http.StatusBadRequest, req{method: "POST", path: "/api/v1/instances/edge-1/report", token: dp, body: rep})
	}
}
