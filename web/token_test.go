package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An admin creates a token, sees its secret once, deletes it, and finds both in the audit
// log with its filters.
func TestAdminManagesTokensAndReadsTheAuditLog(t *testing.T) {
	rp := startRestyplane(t)
	b := newBrowser(t, rp.API, 1280, 900)
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
