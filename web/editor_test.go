package web_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// An editor signs in, creates a backend and a server through the forms, sees a validation
// error next to its field, finds the revisions in the history, diffs two of them, rolls
// back through the confirmation dialog, and sees the overview follow without a reload.
func TestEditorChangesDiffsAndRollsBack(t *testing.T) {
	rp := startRestyplane(t)
	addr, port := upstream(t, "shop-api")
	addr2, port2 := upstream(t, "shop-api-2")
	editor := rp.token("alice", "editor")
	b := newBrowser(t, rp.API, 1280, 900)

	b.signIn(editor)
	if got, want := b.text(tid("whoami")), "alice · editor"; got != want {
		t.Fatalf("whoami = %q, want %q", got, want)
	}
	if got, want := b.text(tid("ov-head")), "#0"; got != want {
		t.Fatalf("overview head = %q, want %q", got, want)
	}

	// A backend, through the form.
	b.click(tid("nav-backends"))
	b.waitVisible(tid("backend-list"))
	b.click(tid("new-backend"))
	b.waitVisible(tid("backend-form"))
	b.typeInto(tid("backend-name"), "shop-api")
	b.typeInto(field("endpoints[0].address"), addr)
	b.typeInto(field("endpoints[0].port"), strconv.Itoa(port))
	b.typeInto(tid("backend-reason"), "first pool for the shop")
	b.click(tid("form-submit"))
	b.waitVisible(tid("backend-detail"))
	b.waitText(tid("status"), "saved as revision #1")
	if got, want := b.count(tid("endpoint-row")), 1; got != want {
		t.Fatalf("endpoint rows = %d, want %d", got, want)
	}

	// The API's validation error shows next to the field it names, and nothing is stored.
	b.route("#/backends/new", tid("backend-form"))
	b.typeInto(tid("backend-name"), "bad-port")
	b.typeInto(field("endpoints[0].address"), "10.0.0.1")
	b.typeInto(field("endpoints[0].port"), "70000")
	b.typeInto(tid("backend-reason"), "this must fail")
	b.click(tid("form-submit"))
	portErr := `.field-error[data-error-for="endpoints[0].port"]`
	b.waitVisible(portErr)
	if got := b.text(portErr); !strings.Contains(got, "1-65535") {
		t.Fatalf("port error = %q, want the API's message about 1-65535", got)
	}
	beside := evalJS[bool](b, `(() => {
		const input = document.querySelector('[data-field="endpoints[0].port"]');
		const err = input.closest('.field').querySelector('.field-error');
		return !err.hidden && input.getAttribute('aria-invalid') === 'true' &&
			input.getAttribute('aria-describedby').split(' ').includes(err.id) && document.activeElement === input;
	})()`)
	if !beside {
		t.Fatal("the port error is not in the port field's box, not announced by it, or the port input has no focus")
	}
	if got, want := rp.head(), int64(1); got != want {
		t.Fatalf("head after an invalid write = %d, want %d", got, want)
	}

	// A server, through the form.
	b.click(tid("nav-servers"))
	b.waitVisible(tid("server-list"))
	b.click(tid("new-server"))
	b.waitVisible(tid("server-form"))
	b.typeInto(tid("server-name"), "shop")
	b.typeInto(field("hostnames[0]"), "shop.test")
	b.typeInto(field("locations[0].path"), "/")
	b.choose(field("locations[0].backend"), "shop-api")
	b.typeInto(tid("server-reason"), "serve the shop")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))
	b.waitText(tid("status"), "saved as revision #2")
	if got, want := b.count(tid("location-row")), 1; got != want {
		t.Fatalf("location rows = %d, want %d", got, want)
	}
	waitProxy(t, rp, "shop.test", "/", 200, "hello from shop-api")

	// Edit the backend: a second endpoint and another algorithm.
	b.route("#/backends/shop-api", tid("backend-detail"))
	b.click(tid("backend-edit"))
	b.waitVisible(tid("backend-form"))
	b.click(tid("add-endpoint"))
	b.typeInto(field("endpoints[1].address"), addr2)
	b.typeInto(field("endpoints[1].port"), strconv.Itoa(port2))
	b.typeInto(field("endpoints[1].weight"), "3")
	b.choose(tid("backend-lb"), "ewma")
	b.typeInto(tid("backend-reason"), "second endpoint, least latency")
	// A dry run previews the change without storing it.
	b.click(tid("form-preview"))
	b.waitVisible(tid("preview-dialog"))
	if got := b.count(`[data-testid="preview-dialog"] [data-testid="diff-entry"][data-name="shop-api"][data-op="update"]`); got != 1 {
		t.Fatalf("preview shows %d updates of shop-api, want 1", got)
	}
	b.click(tid("preview-close"))
	b.waitFor("the preview closes", `!document.querySelector('dialog')`)
	if got, want := rp.head(), int64(2); got != want {
		t.Fatalf("head after a preview = %d, want %d", got, want)
	}
	b.click(tid("form-submit"))
	b.waitVisible(tid("backend-detail"))
	b.waitText(tid("status"), "saved as revision #3")
	if got, want := b.count(tid("endpoint-row")), 2; got != want {
		t.Fatalf("endpoint rows after the edit = %d, want %d", got, want)
	}

	// The overview shows what runs and how each change went live: the new server by a
	// reload, the endpoint change by a dynamic update.
	b.click(tid("nav-overview"))
	b.waitVisible(tid("overview"))
	b.waitText(tid("ov-applied"), "#3")
	b.waitText(tid("ov-sync"), "in sync")
	b.waitFor("the applies table shows revisions 2 and 3", `!!document.querySelector('[data-testid="apply-row"][data-revision="3"]') && !!document.querySelector('[data-testid="apply-row"][data-revision="2"]')`)
	for rev, mode := range map[int]string{2: "reload", 3: "dynamic"} {
		row := fmt.Sprintf(`[data-testid="apply-row"][data-revision="%d"]`, rev)
		if got := b.text(row); !containsAll(got, mode, "success") {
			t.Errorf("apply of revision %d reads %q, want a successful %s", rev, got, mode)
		}
	}
	waitProxy(t, rp, "shop.test", "/", 200, "hello from shop-api")

	// The history shows every revision with its actor and reason.
	b.click(tid("nav-history"))
	b.waitVisible(tid("history-list"))
	if got, want := b.count(tid("revision")), 3; got != want {
		t.Fatalf("revisions in the history = %d, want %d", got, want)
	}
	rev2 := `[data-testid="revision"][data-revision="2"]`
	if got := b.text(rev2 + ` [data-testid="revision-message"]`); got != "serve the shop" {
		t.Fatalf("revision 2 message = %q, want %q", got, "serve the shop")
	}
	if got := b.text(rev2 + ` [data-testid="revision-actor"]`); got != "alice" {
		t.Fatalf("revision 2 actor = %q, want alice", got)
	}

	// A diff between two revisions, side by side.
	b.typeInto(tid("compare-from"), "1")
	b.typeInto(tid("compare-to"), "3")
	before := b.renders()
	b.click(tid("compare-submit"))
	b.waitRendered(before, tid("diff-view"))
	if got := b.text(tid("diff-summary")); !strings.Contains(got, "2 objects differ") {
		t.Fatalf("diff summary = %q, want 2 objects", got)
	}
	backendEntry := `[data-testid="diff-entry"][data-kind="backend"][data-name="shop-api"]`
	changed := evalJS[[]string](b, `[...document.querySelectorAll('`+backendEntry+` tr.diff-change')].map((tr) => tr.cells[1].textContent + ' => ' + tr.cells[3].textContent)`)
	if !containsAll(strings.Join(changed, "\n"), `"round_robin"`, `"ewma"`) {
		t.Fatalf("changed lines of shop-api = %q, want loadBalance round_robin => ewma", changed)
	}
	if got := b.count(`[data-testid="diff-entry"][data-kind="server"][data-op="create"]`); got != 1 {
		t.Fatalf("server entries created in the diff = %d, want 1", got)
	}

	// Rollback: the dialog shows what it will change and needs a reason; Escape cancels.
	b.route("#/history", tid("history-list"))
	rollback1 := `[data-testid="revision"][data-revision="1"] [data-testid="revision-rollback"]`
	b.click(rollback1)
	b.waitVisible(tid("rollback-dialog"))
	b.waitVisible(tid("rollback-diff"))
	if got := b.count(`[data-testid="rollback-diff"] [data-testid="diff-entry"][data-kind="server"][data-op="delete"]`); got != 1 {
		t.Fatalf("the rollback dialog shows %d server deletions, want 1", got)
	}
	if got, want := evalJS[string](b, `document.activeElement.dataset.testid || ''`), "rollback-dialog-reason"; got != want {
		t.Fatalf("focus in the open dialog is on %q, want %q", got, want)
	}
	b.do("press Escape", chromedp.KeyEvent(kb.Escape))
	b.waitFor("the dialog closes on Escape", `!document.querySelector('[data-testid="rollback-dialog"]')`)
	if !evalJS[bool](b, `document.activeElement === document.querySelector('`+rollback1+`')`) {
		t.Fatal("focus did not return to the rollback button after Escape")
	}
	b.click(rollback1)
	b.waitVisible(tid("rollback-dialog"))
	b.click(tid("rollback-dialog-confirm"))
	b.waitVisible(`dialog .field-error[data-error-for="message"]`)
	if got, want := rp.head(), int64(3); got != want {
		t.Fatalf("head after a rollback without reason = %d, want %d", got, want)
	}
	b.typeInto(tid("rollback-dialog-reason"), "the second endpoint misbehaves")
	b.click(tid("rollback-dialog-confirm"))
	b.waitText(tid("status"), "Rolled back to #1 in revision #4")
	b.waitFor("the history shows the rollback", `!!document.querySelector('[data-testid="revision"][data-revision="4"]') && !document.querySelector('dialog')`)
	if got := b.text(`[data-testid="revision"][data-revision="4"]`); !containsAll(got, "rollback to #1", "the second endpoint misbehaves", "alice") {
		t.Fatalf("revision 4 reads %q", got)
	}
	var cfg struct {
		Backends []struct {
			Endpoints []any `json:"endpoints"`
		} `json:"backends"`
		Servers []any `json:"servers"`
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/config", nil, &cfg); code != 200 || len(cfg.Servers) != 0 || len(cfg.Backends) != 1 || len(cfg.Backends[0].Endpoints) != 1 {
		t.Fatalf("config after the rollback = %d %+v, want revision 1's one backend with one endpoint", code, cfg)
	}

	// The overview follows the history without a reload.
	b.click(tid("nav-overview"))
	b.waitVisible(tid("overview"))
	b.waitText(tid("ov-head"), "#4")
	b.waitText(tid("ov-applied"), "#4")
	waitProxy(t, rp, "shop.test", "/", 404, "")
	evalJS[chromedp.Void](b, `window.stillTheSamePage = true`)
	rp.write("POST", "/api/v1/backends", "search pool", obj{"name": "search", "endpoints": []obj{ep("10.0.0.9", 80, 1)}})
	b.waitText(tid("ov-head"), "#5")
	b.waitText(tid("ov-count-backends"), "2")
	if !evalJS[bool](b, `window.stillTheSamePage === true`) {
		t.Fatal("the overview reloaded the page to update")
	}
}

// waitProxy waits until a request through OpenResty answers code with a body containing want.
func waitProxy(t *testing.T, rp *restyplane, host, path string, code int, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, body := rp.proxyGet(host, path)
		if got == code && strings.Contains(body, want) {
			t.Logf("through the proxy: GET http://%s%s = %d %q", host, path, got, strings.TrimSpace(body))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET http://%s%s through the proxy = %d %q, want %d with %q", host, path, got, body, code, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
