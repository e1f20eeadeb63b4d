package web_test

import (
	"strings"
	"testing"
)

// Deleting asks for a reason; a delete the API refuses (the backend is still in use) keeps
// the dialog open with the API's explanation, and one it accepts returns to the list.
func TestDeleteAsksForAReasonAndExplainsRefusals(t *testing.T) {
	rp := startRestyplane(t)
	seedShop(rp)
	editor := rp.token("erin", "editor")
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(editor)

	b.route("#/backends/static", tid("backend-detail"))
	b.click(tid("backend-delete"))
	b.waitVisible(tid("delete-dialog"))
	b.typeInto(tid("delete-dialog-reason"), "assets move to the CDN")
	b.click(tid("delete-dialog-confirm"))
	b.waitVisible(`dialog [data-testid="form-error"]:not([hidden])`)
	if got := b.text(`dialog [data-testid="form-error"]`); !containsAll(got, "static", "used by server", "shop") {
		t.Fatalf("refused delete explains %q, want that server shop uses it", got)
	}
	if got, want := rp.head(), int64(6); got != want {
		t.Fatalf("head after a refused delete = %d, want %d", got, want)
	}
	b.click(tid("delete-dialog-cancel"))
	b.waitFor("the dialog closes", `!document.querySelector('dialog')`)

	b.route("#/servers/shop", tid("server-detail"))
	b.click(tid("server-delete"))
	b.waitVisible(tid("delete-dialog"))
	b.click(tid("delete-dialog-confirm"))
	b.waitVisible(`dialog .field-error[data-error-for="message"]`)
	b.typeInto(tid("delete-dialog-reason"), "the shop moves to the new platform")
	b.click(tid("delete-dialog-confirm"))
	b.waitVisible(tid("server-list"))
	b.waitText(tid("status"), "Deleted server shop in revision #7")
	if n := b.count(`[data-testid="server-row"][data-name="shop"]`); n != 0 {
		t.Fatalf("the deleted server is still listed")
	}
	var rev struct{ Message, Actor string }
	if code := rp.call(adminSecret, "GET", "/api/v1/revisions/7", nil, &rev); code != 200 || rev.Actor != "erin" || !strings.Contains(rev.Message, "new platform") {
		t.Fatalf("revision 7 = %d %+v, want erin's reason", code, rev)
	}
}
