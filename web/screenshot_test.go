package web_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var docsDir = flag.String("docs", "", "also write the README's screenshots (overview.png, diff.png, overview-phone.png) into this directory, e.g. ../docs")

// The README shows the overview and a diff. This test draws them from a real restyplane
// with a realistic history; with -docs it writes them where the README links them.
func TestScreenshotsForTheREADME(t *testing.T) {
	rp := startRestyplane(t)
	seedShop(rp)
	dir := *docsDir
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t, rp.API, 1280, 860)
	b.signIn(adminSecret)
	b.waitText(tid("ov-count-backends"), "3")
	// The seed's burst went live as one reload; a scale-out after it goes live as a dynamic
	// update, so the overview shows both kinds of apply.
	b.waitText(tid("ov-applied"), "#6")
	rp.write("PUT", "/api/v1/backends/shop-api/endpoints", "scale out the API", obj{"endpoints": []obj{
		ep("10.0.1.11", 8080, 5), ep("10.0.1.12", 8080, 3), ep("10.0.1.13", 8080, 2), ep("10.0.1.14", 8080, 3)}})
	head := "#7"
	b.waitText(tid("ov-applied"), head)
	b.waitText(tid("ov-sync"), "in sync")
	b.waitText(tid("ov-head"), head)
	b.hideNotices()
	b.screenshot(filepath.Join(dir, "overview.png"), "overview")

	b.route("#/diff?from=5&to=6", tid("diff-view"))
	b.hideNotices()
	b.screenshot(filepath.Join(dir, "diff.png"), "diff of revision 5 to 6")

	phone := newBrowser(t, rp.API, 390, 844)
	phone.signIn(adminSecret)
	phone.waitText(tid("ov-count-backends"), "3")
	phone.hideNotices()
	phone.screenshot(filepath.Join(dir, "overview-phone.png"), "overview on a phone")
}

// hideNotices hides the status messages, which would cover part of a screenshot.
func (b *browser) hideNotices() {
	b.t.Helper()
	evalJS[bool](b, `(document.querySelectorAll('.notice').forEach((n) => { n.hidden = true; }), true)`)
}
