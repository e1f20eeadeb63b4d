package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

func TestNestedQuantifierRegexIsRefused(t *testing.T) {
	e := newEnv(t)
	e.must(201, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("shop", 80)})
	srv := vhost("shop", "shop.test", "^/(a+)+$", "shop")
	srv.Locations[0].Match = api.MatchRegex
	res := e.must(400, req{method: "POST", path: "/api/v1/servers", token: e.editor, body: srv})
	if !strings.Contains(string(res.body), "nested") || !strings.Contains(string(res.body), "locations[0].path") {
		t.Fatalf("answer = %s, want a message about nested quantifiers on locations[0].path", res.body)
	}
	srv.Locations[0].Path = "^/(a|b)+/[0-9]+$"
	e.must(201, req{method: "POST", path: "/api/v1/servers", token: e.editor, body: srv})
}

func TestEditorRollbackOverASettingsChangeIsForbidden(t *testing.T) {
	e := newEnv(t)
	e.must(201, req{method: "POST", path: "/api/v1/backends?message=one", token: e.editor, body: backend("one", 80)})
	before := e.revisions()
	set := api.DefaultSettings()
	set.WorkerConnections = 2048
	e.must(200, req{method: "PUT", path: "/api/v1/settings?message=tune", token: e.admin, body: set})
	settingsRev := e.revisions()
	e.must(201, req{method: "POST", path: "/api/v1/backends?message=two", token: e.editor, body: backend("two", 80)})

	for _, dry := range []string{"", "&dryRun=true"} {
		res := e.must(403, req{method: "POST", token: e.editor,
			path: fmt.Sprintf("/api/v1/revisions/%d/rollback?message=undo%s", before, dry)})
		if !strings.Contains(string(res.body), "settings") || !strings.Contains(string(res.body), "admin") {
			t.Fatalf("rollback%s = %s, want a message that settings need the admin role", dry, res.body)
		}
	}
	if got := e.st.Head().Settings.WorkerConnections; got != 2048 {
		t.Fatalf("settings after a forbidden rollback: workerConnections = %d, want 2048", got)
	}
	// A rollback that leaves the settings alone is the editor's to make.
	e.must(200, req{method: "POST", token: e.editor, path: fmt.Sprintf("/api/v1/revisions/%d/rollback?message=undo", settingsRev)})
	e.must(200, req{method: "POST", token: e.admin, path: fmt.Sprintf("/api/v1/revisions/%d/rollback?message=undo", before)})
	if got := e.st.Head().Settings.WorkerConnections; got == 2048 {
		t.Fatal("the admin's rollback did not restore the settings")
	}
}

func TestFailedLoginFloodIsBounded(t *testing.T) {
	e := newEnv(t)
	const n = 10000
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; i < n; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d requests in 2 minutes", i, n)
		}
		res := e.send(req{method: "GET", path: "/api/v1/backends", token: fmt.Sprintf("rp_wrong_%d", i)})
		if res.status != http.StatusUnauthorized {
			t.Fatalf("request %d = %d, want 401", i, res.status)
		}
	}
	// Reading the audit log through the API shows every failure counted.
	var list struct{ Items []api.AuditEvent }
	e.must(200, req{method: "GET", path: "/api/v1/audit?action=login_failed&limit=1000", token: e.editor}).into(t, &list)
	var rows, total int
	for _, ev := range list.Items {
		rows++
		total += max(ev.Count, 1)
	}
	// One row per client address per minute: the loop may straddle a minute or two.
	if rows == 0 || rows > 4 {
		t.Fatalf("%d failed logins made %d audit rows, want 1-4", n, rows)
	}
	if total != n {
		t.Fatalf("audit rows count %d failed logins, want %d", total, n)
	}
}

func TestCertificatesTooLargeForTheirSharedDictAreRefused(t *testing.T) {
	e := newEnv(t)
	cert, key := selfSigned(t, "big.test")
	// A chain of one certificate repeated fills a certificate near its 64 KiB bound.
	chain := strings.Repeat(cert, api.MaxPEM/len(cert))
	var certs []api.Certificate
	for total := 0; total <= api.MaxCertificateBytes; total += len(chain) + len(key) {
		certs = append(certs, api.Certificate{Name: fmt.Sprintf("big-%d", len(certs)), Cert: chain, Key: key})
	}
	res := e.send(req{method: "PUT", path: "/api/v1/config?message=big", token: e.admin,
		body: map[string]any{"certificates": certs}})
	if res.status != 400 || !strings.Contains(string(res.body), "shared") {
		t.Fatalf("%d certificates of %d bytes = %d %.300s, want 400 with a message about the certificates' shared dict",
			len(certs), len(chain)+len(key), res.status, res.body)
	}
	if len(e.st.Head().Certificates) != 0 {
		t.Fatal("a refused write stored certificates")
	}
}
