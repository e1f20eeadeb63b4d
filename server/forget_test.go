package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestForgetInstance: an admin forgets an instance that holds no feed stream (an agent
// taken out of service, or a pod a rollout replaced), which then leaves the list, /status
// and the metrics, with an audit event saying who; a connected one is refused (409), an
// unknown one is 404, and only an admin may.
func TestForgetInstance(t *testing.T) {
	e := newEnv(t)
	creds := map[string]string{}
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.admin, body: backend("a", 8080)})
	for _, name := range []string{"edge", "old-pod"} {
		creds[name] = e.credential(name)
		e.must(http.StatusNoContent, req{method: "POST", path: "/api/v1/instances/" + name + "/report", token: creds[name],
			body: api.Report{Version: "test", State: "running", Applied: e.revisions()}})
	}
	f, code := e.openFeed(creds["edge"], "") // as "edge"
	if code != http.StatusOK {
		t.Fatalf("feed = %d", code)
	}
	f.next()
	forget := func(name, token string) *resp {
		return e.send(req{method: "DELETE", path: "/api/v1/instances/" + name, token: token})
	}
	if got := forget("edge", e.admin); got.status != http.StatusConflict || !strings.Contains(string(got.body), "feed stream") {
		t.Fatalf("forget a connected instance = %d %s, want 409 naming its feed stream", got.status, got.body)
	}
	if got := forget("old-pod", e.editor); got.status != http.StatusForbidden {
		t.Fatalf("forget as an editor = %d, want 403", got.status)
	}
	if got := forget("old-pod", e.admin); got.status != http.StatusNoContent {
		t.Fatalf("forget = %d %s, want 204", got.status, got.body)
	}
	var list api.InstanceList
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/instances", token: e.viewer}).into(t, &list)
	if len(list.Items) != 1 || list.Items[0].Name != "edge" {
		t.Fatalf("instances after forgetting old-pod = %+v", list.Items)
	}
	var st api.Status
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/status", token: e.viewer}).into(t, &st)
	if st.Fleet == nil || st.Fleet.Instances != 1 {
		t.Fatalf("status fleet = %+v, want 1 instance", st.Fleet)
	}
	if body := string(e.must(http.StatusOK, req{method: "GET", path: "/metrics"}).body); strings.Contains(body, `instance="old-pod"`) {
		t.Fatalf("metrics still name old-pod")
	}
	if got := forget("old-pod", e.admin); got.status != http.StatusNotFound {
		t.Fatalf("forget again = %d, want 404", got.status)
	}
	var found bool
	for _, ev := range e.auditEvents() {
		if ev.Action == api.AuditInstanceForget && ev.Target == "instance/old-pod" && ev.Outcome == "success" && ev.Actor != "" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no audit event for forgetting old-pod: %+v", e.auditEvents())
	}
	// Forgetting removes the credential too, and frees the name: an agent that joins again
	// is listed again once it reports. Forgetting is not a ban.
	e.must(http.StatusUnauthorized, req{method: "POST", path: "/api/v1/instances/old-pod/report", token: creds["old-pod"],
		body: api.Report{Version: "test", State: "running", Applied: e.revisions()}})
	e.must(http.StatusNoContent, req{method: "POST", path: "/api/v1/instances/old-pod/report", token: e.credential("old-pod"),
		body: api.Report{Version: "test", State: "running", Applied: e.revisions()}})
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/instances", token: e.viewer}).into(t, &list)
	if len(list.Items) != 2 {
		t.Fatalf("instances after old-pod reported again = %+v", list.Items)
	}
}

// TestOneNameOneAgent: while an agent holds a feed stream under a name, another agent
// (another identity) is refused that name, on the feed and in reports, with a 409 that
// says to give each its own; the same agent reconnecting is not, and once the first
// stream ends the name is free.
func TestOneNameOneAgent(t *testing.T) {
	e := newEnv(t)
	dp := e.credential("edge")
	first, second := strings.Repeat("a", 32), strings.Repeat("b", 32)
	open := func(id string) (*http.Response, error) {
		hr, _ := http.NewRequest("GET", e.ts.URL+"/api/v1/feed?instance=edge", nil)
		hr.Header.Set("Authorization", "Bearer "+dp)
		hr.Header.Set(api.AgentIDHeader, id)
		return http.DefaultClient.Do(hr)
	}
	report := func(id string) *resp {
		return e.send(req{method: "POST", path: "/api/v1/instances/edge/report", token: dp,
			header: map[string]string{api.AgentIDHeader: id}, body: api.Report{Version: "test", State: "running"}})
	}
	a, err := open(first)
	if err != nil || a.StatusCode != http.StatusOK {
		t.Fatalf("first agent's feed = %v %v", a, err)
	}
	again, err := open(first) // a reconnect that overlaps its old stream
	if err != nil || again.StatusCode != http.StatusOK {
		t.Fatalf("the same agent's second stream = %v %v", again, err)
	}
	again.Body.Close()
	b, err := open(second)
	if err != nil {
		t.Fatal(err)
	}
	b.Body.Close()
	if b.StatusCode != http.StatusConflict {
		t.Fatalf("a second agent under the same name = %d, want 409", b.StatusCode)
	}
	if got := report(second); got.status != http.StatusConflict || !strings.Contains(string(got.body), "--name") {
		t.Fatalf("the second agent's report = %d %s, want 409 naming --name", got.status, got.body)
	}
	if got := report(first); got.status != http.StatusNoContent {
		t.Fatalf("the first agent's report = %d %s", got.status, got.body)
	}
	if got := report("not-an-id"); got.status != http.StatusBadRequest {
		t.Fatalf("a malformed agent id = %d, want 400", got.status)
	}
	a.Body.Close()
	waitUntil(t, "the first agent's stream to end", func() bool {
		var list api.InstanceList
		e.must(http.StatusOK, req{method: "GET", path: "/api/v1/instances", token: e.viewer}).into(t, &list)
		return len(list.Items) == 1 && !list.Items[0].Connected
	})
	if got := report(second); got.status != http.StatusNoContent {
		t.Fatalf("the second agent's report once the name is free = %d %s", got.status, got.body)
	}
}
