package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// settingsJSON is the part of GET /api/v1/settings the settings test changes.
type settingsJSON struct {
	WorkerConnections int
	RollbackWindow    string
	RealIPFrom        []string
	RealIPHeader      string
	Version           int64
}

// An admin changes the trusted proxies, a numeric setting and the rollback window in the
// Settings view: the settings change in one revision with the reason given, nginx runs it,
// and a CIDR past /32 is refused at its field without changing anything. The retention
// policy is edited beside them. A viewer sees the same values read only.
func TestSettingsFormChangesSettingsAndShowsErrors(t *testing.T) {
	rp := startRestyplane(t)
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	setText := func(sel, v string) {
		evalJS[chromedp.Void](b, fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = %s; e.dispatchEvent(new Event('input', { bubbles: true })); })()`, js(sel), js(v)))
	}
	value := func(sel string) string {
		return evalJS[string](b, fmt.Sprintf(`document.querySelector(%s).value`, js(sel)))
	}
	var before settingsJSON
	if code := rp.call(adminSecret, "GET", "/api/v1/settings", nil, &before); code != 200 {
		t.Fatalf("GET settings = %d", code)
	}

	b.click(tid("nav-settings"))
	b.waitVisible(tid("settings-form"))
	if got, want := value(tid("setting-workerConnections")), fmt.Sprint(before.WorkerConnections); got != want {
		t.Fatalf("worker connections field = %q, want the stored %q", got, want)
	}

	// A bad CIDR: the API's message at the trusted proxies field, and no new version.
	setText(tid("setting-realIPFrom"), "10.0.0.0/33")
	b.typeInto(tid("settings-reason"), "a typo")
	b.click(tid("form-submit"))
	b.waitVisible(tid("form-error"))
	if got := b.text(`.field-error:not([hidden])`); !strings.Contains(got, "10.0.0.0/33") {
		t.Fatalf("field error = %q, want the API's message about 10.0.0.0/33", got)
	}
	if got := evalJS[string](b, fmt.Sprintf(`document.querySelector(%s).getAttribute('aria-invalid') || ''`, js(tid("setting-realIPFrom")))); got != "true" {
		t.Fatalf("trusted proxies field aria-invalid = %q, want true", got)
	}
	var after settingsJSON
	if rp.call(adminSecret, "GET", "/api/v1/settings", nil, &after); after.Version != before.Version || len(after.RealIPFrom) != 0 {
		t.Fatalf("a refused save changed the settings: %+v, was %+v", after, before)
	}

	headBefore := rp.head()
	setText(tid("setting-realIPFrom"), "10.0.0.0/8\n192.168.0.0/16, 2001:db8::/32")
	b.typeInto(tid("setting-realIPHeader"), "X-Real-IP")
	b.typeInto(tid("setting-workerConnections"), "2048")
	b.typeInto(tid("setting-rollbackWindow"), "45s")
	b.typeInto(tid("settings-reason"), "trust the load balancers")
	// The preview is a dry run: it shows the change and stores nothing.
	b.click(tid("form-preview"))
	b.waitVisible(tid("preview-dialog"))
	if got := b.text(tid("preview-dialog")); !containsAll(got, "X-Real-IP", "Apply mode: reload") {
		t.Fatalf("preview = %q, want the new header and a reload", got)
	}
	b.click(tid("preview-close"))
	b.waitFor("the preview closes", `!document.querySelector('dialog')`)
	if got := rp.head(); got != headBefore {
		t.Fatalf("head after a preview = %d, want %d", got, headBefore)
	}
	b.click(tid("form-submit"))
	b.waitText(tid("status"), fmt.Sprintf("Settings: saved as revision #%d", headBefore+1))
	b.waitVisible(tid("settings-form"))
	if got := value(tid("setting-realIPHeader")); got != "X-Real-IP" {
		t.Fatalf("after saving, the header field = %q", got)
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/settings", nil, &after); code != 200 ||
		strings.Join(after.RealIPFrom, " ") != "10.0.0.0/8 192.168.0.0/16 2001:db8::/32" || after.RealIPHeader != "X-Real-IP" ||
		after.WorkerConnections != 2048 || after.RollbackWindow != "45s" {
		t.Fatalf("settings after saving = %d %+v", code, after)
	}
	var rev struct {
		Message string
		Actor   string
		Changes []struct{ Kind string }
	}
	if code := rp.call(adminSecret, "GET", fmt.Sprintf("/api/v1/revisions/%d", headBefore+1), nil, &rev); code != 200 ||
		rev.Message != "trust the load balancers" || len(rev.Changes) != 1 || rev.Changes[0].Kind != "settings" {
		t.Fatalf("revision %d = %d %+v, want one settings change with the reason", headBefore+1, code, rev)
	}
	waitApplied(t, rp, headBefore+1)

	// The retention policy, beside the settings: no revision, but stored.
	b.typeInto(tid("retention-keep-revisions"), "500")
	b.typeInto(tid("retention-keep-days"), "30")
	b.click(tid("retention-submit"))
	b.waitText(tid("status"), "keep the newest 500 revisions and 30 days")
	var ret struct{ KeepRevisions, KeepDays int64 }
	if code := rp.call(adminSecret, "GET", "/api/v1/retention", nil, &ret); code != 200 || ret.KeepRevisions != 500 || ret.KeepDays != 30 {
		t.Fatalf("retention = %d %+v", code, ret)
	}
	if got := rp.head(); got != headBefore+1 {
		t.Fatalf("head after the retention change = %d, want %d (no revision)", got, headBefore+1)
	}

	// A viewer sees the stored values, read only, with nothing to save. Signing in again
	// returns to the page that was open at sign-out.
	viewer := rp.token("victor", "viewer")
	b.click(tid("signout"))
	b.typeInto(tid("signin-token"), viewer)
	b.click(tid("signin-submit"))
	b.waitVisible(tid("settings-read-only"))
	b.waitVisible(tid("nav-settings"))
	if got := value(tid("setting-realIPFrom")); got != "10.0.0.0/8\n192.168.0.0/16\n2001:db8::/32" {
		t.Fatalf("a viewer's trusted proxies field = %q", got)
	}
	if n := b.count(`[data-testid="settings-form"] input:not([readonly]):not([disabled]), [data-testid="settings-form"] textarea:not([readonly]), [data-testid="settings-form"] select:not([disabled])`); n != 0 {
		t.Errorf("a viewer may edit %d settings fields", n)
	}
	if n := b.count(tid("form-submit") + ", " + tid("retention")); n != 0 {
		t.Errorf("a viewer is offered %d save buttons or the retention policy", n)
	}
}

// waitApplied waits until restyplane's nginx runs revision rev.
func waitApplied(t *testing.T, rp *restyplane, rev int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var st struct{ Applied int64 }
		if rp.call(adminSecret, "GET", "/api/v1/status", nil, &st); st.Applied >= rev {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not apply revision %d within 20s (applied %d)", rev, st.Applied)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
