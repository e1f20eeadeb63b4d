package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Signing in keeps the token for this tab only; a wrong token is refused in place.
func TestSignInKeepsTheTokenForTheTabOnly(t *testing.T) {
	rp := startRestyplane(t)
	b := newBrowser(t, rp.API, 1280, 900)

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
	other.do("open a second tab", chromedp.Navigate(rp.API+"/"))
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
