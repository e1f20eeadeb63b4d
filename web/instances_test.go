package web_test

import (
	"strings"
	"testing"
	"time"
)

// The Instances view lists serve's own OpenResty and an agent that reported (through the
// real report route, with the credential its join gave it): the agent lags the head, is
// not connected, and its last apply shows nginx's own error.
func TestInstancesShowsLagAndTheRejection(t *testing.T) {
	rp := startRestyplane(t)
	seedShop(rp)
	var cred struct {
		Secret string `json:"secret"`
	}
	if code := rp.call(rp.token("edge-agent", "dataplane"), "POST", "/api/v1/instances/edge-1/join", nil, &cred); code != 201 {
		t.Fatalf("join = %d", code)
	}
	dp := cred.Secret
	const nginxErr = `nginx: [emerg] unknown directive "bogus" in nginx.conf:12`
	report := map[string]any{"version": "test", "state": "running", "applied": 1, "rejected": 2,
		"applies": []map[string]any{{"revision": 2, "mode": "reload", "started": time.Now().UTC().Format(time.RFC3339Nano),
			"durationMs": 12.5, "outcome": "rejected", "error": nginxErr}}}
	if code := rp.call(dp, "POST", "/api/v1/instances/edge-1/report", report, nil); code != 204 {
		t.Fatalf("report = %d", code)
	}
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(rp.token("vera", "viewer"))
	b.route("#/instances", tid("instances"))
	b.waitFor("two instances", `document.querySelectorAll('[data-testid="instance-row"]').length === 2`)
	row := b.text(`[data-testid="instance-row"][data-name="edge-1"]`)
	for _, want := range []string{"edge-1", "behind", "disconnected", "running", "rejected", nginxErr} {
		if !strings.Contains(row, want) {
			t.Errorf("edge-1's row %q lacks %q", row, want)
		}
	}
	own := b.text(`[data-testid="instance-row"][data-name="default"]`)
	if !strings.Contains(own, "at head") || !strings.Contains(own, "this server") {
		t.Errorf("serve's own row = %q, want it at the head", own)
	}
	b.noHorizontalScroll("instances")
	if b.count(tid("instance-forget")) != 0 {
		t.Errorf("a viewer is offered to forget an instance")
	}

	// An admin forgets the agent, which is not connected; serve's own has no button.
	a := newBrowser(t, rp.API, 1280, 900)
	a.signIn(rp.token("ada", "admin"))
	a.route("#/instances", tid("instances"))
	a.waitFor("two instances", `document.querySelectorAll('[data-testid="instance-row"]').length === 2`)
	if a.count(tid("instance-forget")) != 1 {
		t.Fatalf("want one forget button, for edge-1 only")
	}
	a.click(`[data-testid="instance-row"][data-name="edge-1"] [data-testid="instance-forget"]`)
	a.waitVisible(tid("instance-forget-dialog"))
	a.click(tid("instance-forget-confirm"))
	a.waitFor("edge-1 forgotten", `document.querySelectorAll('[data-testid="instance-row"]').length === 1`)
}
