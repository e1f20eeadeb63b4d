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
	b := newBrowser(t, rp.url, 1280, 900)

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
	if rp.proxy != "" {
		waitProxy(t, rp, "shop.test", "/", 200, "hello from shop-api")
	} else {
		t.Log("pending until cmd/restyplane manages OpenResty (--proxy-listen): the request through the proxy")
	}

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
	if rp.proxy != "" {
		b.waitText(tid("ov-applied"), "#4")
		waitProxy(t, rp, "shop.test", "/", 404, "")
	} else {
		t.Log("pending until cmd/restyplane manages OpenResty (--proxy-listen): the applied revision on the overview")
	}
	evalJS[chromedp.Void](b, `window.stillTheSamePage = true`)
	rp.write("POST", "/api/v1/backends", "search pool", obj{"name": "search", "endpoints": []obj{ep("10.0.0.9", 80, 1)}})
	b.waitText(tid("ov-head"), "#5")
	b.waitText(tid("ov-count-backends"), "2")
	if !evalJS[bool](b, `window.stillTheSamePage === true`) {
		t.Fatal("the overview reloaded the page to update")
	}
}

// A viewer sees everything and is offered no action it may not take.
func TestViewerIsOfferedNoWriteActions(t *testing.T) {
	rp := startRestyplane(t)
	seedShop(rp)
	viewer := rp.token("victor", "viewer")
	b := newBrowser(t, rp.url, 1280, 900)
	b.signIn(viewer)
	if got, want := b.text(tid("whoami")), "victor · viewer"; got != want {
		t.Fatalf("whoami = %q, want %q", got, want)
	}
	for _, nav := range []string{"nav-audit", "nav-tokens"} {
		if evalJS[bool](b, fmt.Sprintf(`document.querySelector(%s).getClientRects().length > 0`, js(tid(nav)))) {
			t.Errorf("a viewer is offered %s", nav)
		}
	}
	writes := `[data-testid^="new-"], [data-testid$="-edit"], [data-testid$="-delete"], [data-testid="revision-rollback"], [data-testid="form-submit"], [data-testid="form-preview"]`
	pages := []struct{ hash, ready string }{
		{"#/", "overview"},
		{"#/backends", "backend-list"},
		{"#/backends/shop-api", "backend-detail"},
		{"#/servers", "server-list"},
		{"#/servers/shop", "server-detail"},
		{"#/certificates", "certificate-list"},
		{"#/certificates/shop-tls", "certificate-detail"},
		{"#/history", "history"},
		{"#/history/2", "revision-detail"},
		{"#/diff?from=1&to=6", "diff-view"},
	}
	for _, p := range pages {
		b.route(p.hash, tid(p.ready))
		if n := b.count(writes); n != 0 {
			t.Errorf("%s offers a viewer %d write actions: %s", p.hash, n,
				evalJS[string](b, `[...document.querySelectorAll('`+writes+`')].map((e) => e.dataset.testid).join(', ')`))
		}
	}
	// Reading includes searching.
	b.route("#/backends", tid("backend-list"))
	b.typeInto(tid("backend-search"), "v2")
	b.waitFor("the search narrows the list", `document.querySelectorAll('[data-testid="backend-row"]').length === 1`)
	if got := b.text(tid("backend-row")); !strings.Contains(got, "shop-api-v2") {
		t.Fatalf("the search for v2 shows %q", got)
	}
	if got := b.text(tid("backend-found")); got != "1 backend matches “v2”." {
		t.Fatalf("announced search result = %q", got)
	}

	for _, hash := range []string{"#/backends/new", "#/backends/shop-api/edit", "#/servers/new", "#/certificates/new", "#/audit", "#/tokens"} {
		b.route(hash, tid("error-panel"))
		if got := b.text(tid("error-panel")); !strings.Contains(got, "Not available to your role") {
			t.Errorf("%s shows a viewer %q, want that it is not available", hash, got)
		}
		if n := b.count(`main form`); n != 0 {
			t.Errorf("%s shows a viewer %d forms", hash, n)
		}
	}
}

// Signing in keeps the token for this tab only; a wrong token is refused in place.
func TestSignInKeepsTheTokenForTheTabOnly(t *testing.T) {
	rp := startRestyplane(t)
	b := newBrowser(t, rp.url, 1280, 900)

	b.waitVisible(tid("signin-token"))
	b.typeInto(tid("signin-token"), "rp_not_a_token\n") // Enter submits: the form works by keyboard
	b.waitVisible(tid("signin-error"))
	if got := b.text(tid("signin-error")); !strings.Contains(got, "not valid") {
		t.Fatalf("sign-in error = %q", got)
	}
	if got := evalJS[string](b, `document.activeElement.dataset.testid || ''`); got != "signin-token" {
		t.Fatalf("focus after a refused token is on %q, want the token field", got)
	}

	b.typeInto(tid("signin-token"), adminSecret+"\n")
	b.waitVisible(tid("overview"))
	if evalJS[int](b, `localStorage.length`) != 0 {
		t.Fatal("the UI wrote to localStorage; the token must stay in this tab's sessionStorage")
	}
	b.do("reload", chromedp.Reload())
	b.waitVisible(tid("overview"))

	// Another tab has its own sessionStorage, so it asks again.
	other := &browser{t: t, base: b.base}
	var cancel func()
	other.ctx, cancel = chromedp.NewContext(b.ctx)
	defer cancel()
	// The first action on a tab's context opens the tab for the context's whole life, so it
	// runs without the time limit that do() adds.
	if err := chromedp.Do(other.ctx); err != nil {
		t.Fatalf("open a second tab: %v", err)
	}
	other.do("open a second tab", chromedp.Navigate(rp.url+"/"))
	other.waitVisible(tid("signin-token"))

	// The first Tab reaches the skip link, which moves focus to the main content.
	evalJS[chromedp.Void](b, `document.activeElement.blur()`)
	b.do("press Tab", chromedp.KeyEvent(kb.Tab))
	if got := evalJS[string](b, `document.activeElement.id`); got != "skip-link" {
		t.Fatalf("the first Tab focuses #%s, want the skip link", got)
	}
	b.do("press Enter", chromedp.KeyEvent(kb.Enter))
	if got := evalJS[string](b, `document.activeElement.id`); got != "main" {
		t.Fatalf("the skip link moved focus to #%s, want #main", got)
	}

	b.click(tid("signout"))
	b.waitVisible(tid("signin-token"))
	if got := evalJS[int](b, `sessionStorage.length`); got != 0 {
		t.Fatalf("sessionStorage holds %d items after sign-out, want 0", got)
	}
}

// An admin creates a token, sees its secret once, deletes it, and finds both in the audit
// log with its filters.
func TestAdminManagesTokensAndReadsTheAuditLog(t *testing.T) {
	rp := startRestyplane(t)
	b := newBrowser(t, rp.url, 1280, 900)
	b.signIn(adminSecret)

	b.click(tid("nav-tokens"))
	b.waitVisible(tid("tokens"))
	b.typeInto(tid("token-name"), "ci-deploy")
	b.choose(tid("token-role"), "editor")
	b.click(tid("token-create"))
	b.waitVisible(tid("token-secret-dialog"))
	secret := evalJS[string](b, `document.querySelector('[data-testid="token-secret"]').value`)
	if !strings.HasPrefix(secret, "rp_") {
		t.Fatalf("secret shown = %q, want an rp_ token", secret)
	}
	var who struct{ Name, Role string }
	if code := rp.call(secret, "GET", "/api/v1/whoami", nil, &who); code != 200 || who.Name != "ci-deploy" || who.Role != "editor" {
		t.Fatalf("whoami with the new secret = %d %+v", code, who)
	}
	b.click(tid("token-secret-done"))
	row := `[data-testid="token-row"][data-name="ci-deploy"]`
	b.waitVisible(row)
	if strings.Contains(evalJS[string](b, `document.body.innerText + [...document.querySelectorAll('input')].map((i) => i.value).join()`), secret) {
		t.Fatal("the secret is still on the page after its dialog closed")
	}

	b.click(row + ` [data-testid="token-delete"]`)
	b.waitVisible(tid("token-delete-dialog"))
	b.click(tid("token-delete-confirm"))
	b.waitFor("the token row disappears", `!document.querySelector('`+row+`')`)
	if code := rp.call(secret, "GET", "/api/v1/whoami", nil, nil); code != 401 {
		t.Fatalf("whoami with the deleted token = %d, want 401", code)
	}

	b.click(tid("nav-audit"))
	b.waitVisible(tid("audit-table"))
	for _, action := range []string{"token_create", "token_delete"} {
		if b.count(fmt.Sprintf(`[data-testid="audit-row"][data-action=%q]`, action)) == 0 {
			t.Errorf("the audit log shows no %s event", action)
		}
	}
	b.choose(tid("audit-action"), "token_delete")
	before := b.renders()
	b.click(tid("audit-apply"))
	b.waitRendered(before, tid("audit-table"))
	if all, deletes := b.count(tid("audit-row")), b.count(`[data-testid="audit-row"][data-action="token_delete"]`); all == 0 || all != deletes {
		t.Fatalf("filtered by token_delete: %d rows, %d of them token_delete", all, deletes)
	}
	b.typeInto(tid("audit-actor"), "nobody")
	before = b.renders()
	b.click(tid("audit-apply"))
	b.waitRendered(before, tid("audit-empty"))
	b.route("#/audit", tid("audit-table"))
	evalJS[chromedp.Void](b, `document.querySelector('[data-testid="audit-since"]').value = '2099-01-01T00:00'`)
	before = b.renders()
	b.click(tid("audit-apply"))
	b.waitRendered(before, tid("audit-empty"))
}

// On a 390-pixel phone every page fits the width and the menu works.
func TestPhoneLayoutFitsTheWidth(t *testing.T) {
	rp := startRestyplane(t)
	seedShop(rp)
	b := newBrowser(t, rp.url, 390, 844)
	b.signIn(adminSecret)
	if evalJS[bool](b, `document.getElementById('main-nav').getClientRects().length > 0`) {
		t.Fatal("the menu is open on a phone before it was asked for")
	}
	b.click(tid("nav-toggle"))
	b.waitVisible(tid("nav-backends"))
	if got := evalJS[string](b, `document.getElementById('nav-toggle').getAttribute('aria-expanded')`); got != "true" {
		t.Fatalf("menu button aria-expanded = %q after opening", got)
	}
	b.click(tid("nav-backends"))
	b.waitVisible(tid("backend-list"))
	pages := []struct{ hash, ready string }{
		{"#/", "overview"},
		{"#/backends", "backend-list"},
		{"#/backends/shop-api", "backend-detail"},
		{"#/backends/shop-api/edit", "backend-form"},
		{"#/servers", "server-list"},
		{"#/servers/shop", "server-detail"},
		{"#/servers/shop/edit", "server-form"},
		{"#/certificates", "certificate-list"},
		{"#/certificates/shop-tls", "certificate-detail"},
		{"#/history", "history"},
		{"#/history/6", "revision-detail"},
		{"#/diff?from=1&to=6", "diff-view"},
		{"#/audit", "audit-table"},
		{"#/tokens", "tokens"},
	}
	for _, p := range pages {
		b.route(p.hash, tid(p.ready))
		b.noHorizontalScroll(p.hash)
	}
	b.route("#/history", tid("history-list"))
	b.click(`[data-testid="revision"][data-revision="2"] [data-testid="revision-rollback"]`)
	b.waitVisible(tid("rollback-diff"))
	b.noHorizontalScroll("rollback dialog")
}

// waitProxy waits until a request through OpenResty answers code with a body containing want.
func waitProxy(t *testing.T, rp *restyplane, host, path string, code int, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, body := rp.proxyGet(host, path)
		if got == code && strings.Contains(body, want) {
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


// A certificate uploaded through the form shows its subject, names and expiry, and the key
// appears nowhere afterwards.
func TestCertificateUploadNeverShowsTheKey(t *testing.T) {
	rp := startRestyplane(t)
	cert, key := selfSigned(t, "shop.test", "www.shop.test")
	b := newBrowser(t, rp.url, 1280, 900)
	b.signIn(adminSecret)
	b.route("#/certificates", tid("certificate-list"))
	b.click(tid("new-certificate"))
	b.waitVisible(tid("certificate-form"))
	b.typeInto(tid("certificate-name"), "shop-tls")
	// Pasting a PEM block is one input event, as a paste is.
	for sel, v := range map[string]string{tid("certificate-cert"): cert, tid("certificate-key"): key} {
		evalJS[chromedp.Void](b, fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = %s; e.dispatchEvent(new Event('input', { bubbles: true })); })()`, js(sel), js(v)))
	}
	b.typeInto(tid("certificate-reason"), "certificate for shop.test")
	b.click(tid("form-submit"))
	b.waitVisible(tid("certificate-detail"))
	if got := b.text(tid("certificate-subject")); !strings.Contains(got, "CN=shop.test") {
		t.Fatalf("subject = %q", got)
	}
	if got := b.text(tid("certificate-names")); !containsAll(got, "shop.test", "www.shop.test") {
		t.Fatalf("names = %q", got)
	}
	if got := b.text(tid("certificate-expiry")); !strings.Contains(got, "valid") {
		t.Fatalf("expiry badge = %q", got)
	}
	keyBody := strings.Split(strings.TrimSpace(key), "\n")[1]
	for _, p := range []struct{ hash, ready string }{
		{"", "certificate-detail"}, // where the upload landed
		{"#/certificates", "certificate-list"},
		{"#/certificates/shop-tls/edit", "certificate-form"},
		{"#/history/1", "revision-detail"},
		{"#/diff?from=0&to=1", "diff-view"},
	} {
		if p.hash != "" {
			b.route(p.hash, tid(p.ready))
		}
		hash := p.hash
		page := evalJS[string](b, `document.body.innerText + [...document.querySelectorAll('input, textarea')].map((e) => e.value).join()`)
		if strings.Contains(page, "PRIVATE KEY") || strings.Contains(page, keyBody) {
			t.Fatalf("%s shows the private key", hash)
		}
	}
}
