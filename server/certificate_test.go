package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// TestCertificateKeyNeverLeaves writes a certificate with its key and reads every answer
// that could hold it: the key is in none of them, nor in the diffs or the audit trail.
func TestCertificateKeyNeverLeaves(t *testing.T) {
	e := newEnv(t)
	cert, key := selfSigned(t, "shop.example.com")
	// Any line of the key's base64 body is distinctive; the JSON encoding leaves it intact.
	lines := strings.Split(strings.TrimSpace(key), "\n")
	secret := lines[1]
	var seen []string
	record := func(res *resp) *resp {
		seen = append(seen, string(res.body))
		return res
	}

	record(e.must(http.StatusOK, req{method: "POST", path: "/api/v1/certificates?dryRun=true", token: e.editor,
		body: api.Certificate{Name: "shop-tls", Cert: cert, Key: key}}))
	record(e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/certificates", token: e.editor,
		body: api.Certificate{Name: "shop-tls", Cert: cert, Key: key}}))
	// An update without the key keeps the stored one.
	record(e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/certificates/shop-tls", token: e.editor,
		body: api.Certificate{Cert: cert}}))
	cert2, key2 := selfSigned(t, "shop.example.com")
	record(e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/certificates/shop-tls", token: e.editor,
		body: api.Certificate{Cert: cert2, Key: key2}}))
	record(e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("shop", 8080)}))
	var withServer api.WriteResult
	record(e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/servers", token: e.editor, body: api.Server{
		Name: "web", Hostnames: []string{"shop.example.com"}, TLS: &api.ServerTLS{Certificate: "shop-tls"},
		Locations: []api.Location{{Path: "/", Backend: "shop"}}}})).into(t, &withServer)
	head := withServer.Revision.ID
	record(e.must(http.StatusOK, req{method: "POST", path: "/api/v1/revisions/1/rollback?dryRun=true&message=x", token: e.editor}))

	var c api.Certificate
	record(e.must(http.StatusOK, req{method: "GET", path: "/api/v1/certificates/shop-tls", token: e.viewer})).into(t, &c)
	if c.Key != "" || !c.KeyMatches || c.Fingerprint == "" || c.Subject == "" {
		t.Fatalf("certificate = key %q, keyMatches %v, fingerprint %q, subject %q; want no key, a matching key and derived fields",
			c.Key, c.KeyMatches, c.Fingerprint, c.Subject)
	}
	paths := []string{"/api/v1/certificates", "/api/v1/config", "/api/v1/revisions", "/api/v1/audit",
		"/api/v1/revisions/" + itoa(int(head)) + "/diff?against=0"}
	for rev := 1; rev <= int(head); rev++ {
		paths = append(paths, "/api/v1/config?revision="+itoa(rev), "/api/v1/revisions/"+itoa(rev), "/api/v1/revisions/"+itoa(rev)+"/diff")
	}
	for _, path := range paths {
		record(e.must(http.StatusOK, req{method: "GET", path: path, token: e.admin}))
	}
	// Deleting and rolling back carry the key through the history without showing it.
	var wr api.WriteResult
	record(e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/config", token: e.editor, body: server.ConfigRequest{}})).into(t, &wr)
	if got, want := len(wr.Diff.Entries), 3; got != want {
		t.Fatalf("emptying the config changed %d objects, want %d", got, want)
	}
	record(e.must(http.StatusOK, req{method: "POST", path: "/api/v1/revisions/" + itoa(int(head)) + "/rollback", token: e.editor,
		body: server.RollbackRequest{Message: "restore"}})).into(t, &wr)
	record(e.must(http.StatusOK, req{method: "GET", path: "/api/v1/revisions/" + itoa(int(wr.Revision.ID)) + "/diff", token: e.viewer}))
	record(e.must(http.StatusOK, req{method: "GET", path: "/api/v1/audit", token: e.admin}))

	for i, body := range seen {
		for _, k := range []string{secret, strings.Split(strings.TrimSpace(key2), "\n")[1], "PRIVATE KEY"} {
			if strings.Contains(body, k) {
				t.Fatalf("answer %d holds the private key: %s", i, body)
			}
		}
	}
	// The applier still gets the key of the restored certificate.
	full, err := e.st.State(t.Context(), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := full.Certificates["shop-tls"].Key, key2; got != want {
		t.Fatalf("stored key after rollback differs from the last written one")
	}
}
