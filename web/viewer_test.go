package web_test

import (
	"fmt"
	"strings"
	"testing"
)

// A viewer sees everything and is offered no action it may not take.
func TestViewerIsOfferedNoWriteActions(t *testing.T) {
	rp := startRestyplane(t)
	seedShop(rp)
	viewer := rp.token("victor", "viewer")
	b := newBrowser(t, rp.API, 1280, 900)
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
		{"#/settings", "settings-read-only"},
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
