package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// TestRoles checks what each role may do, and that every refusal is audited.
func TestRoles(t *testing.T) {
	e := newEnv(t)
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("shop", 8080)})
	n := e.revisions()

	// A viewer reads everything but the audit trail and the tokens, and writes nothing.
	for _, path := range []string{"/api/v1/backends", "/api/v1/backends/shop", "/api/v1/servers", "/api/v1/certificates",
		"/api/v1/settings", "/api/v1/config", "/api/v1/revisions", "/api/v1/revisions/1", "/api/v1/revisions/1/diff",
		"/api/v1/status", "/api/v1/applies", "/api/v1/whoami"} {
		e.must(http.StatusOK, req{method: "GET", path: path, token: e.viewer})
	}
	forbidden := []req{
		{method: "POST", path: "/api/v1/backends", token: e.viewer, body: backend("cart", 1)},
		{method: "PUT", path: "/api/v1/backends/shop", token: e.viewer, body: backend("shop", 1)},
		{method: "PUT", path: "/api/v1/backends/shop/endpoints", token: e.viewer, body: server.EndpointsRequest{Endpoints: []api.Endpoint{}}},
		{method: "DELETE", path: "/api/v1/backends/shop", token: e.viewer},
		{method: "POST", path: "/api/v1/servers", token: e.viewer, body: vhost("web", "a.example.com", "/", "shop")},
		{method: "PUT", path: "/api/v1/config", token: e.viewer, body: api.Config{}},
		{method: "POST", path: "/api/v1/revisions/1/rollback", token: e.viewer, body: server.RollbackRequest{Message: "x"}},
		{method: "GET", path: "/api/v1/audit", token: e.viewer},
		{method: "GET", path: "/api/v1/tokens", token: e.viewer},
		// An editor writes configuration but manages neither tokens nor settings.
		{method: "GET", path: "/api/v1/tokens", token: e.editor},
		{method: "POST", path: "/api/v1/tokens", token: e.editor, body: server.TokenRequest{Name: "mine", Role: api.RoleAdmin}},
		{method: "DELETE", path: "/api/v1/tokens/1", token: e.editor},
		{method: "PUT", path: "/api/v1/settings", token: e.editor, body: api.DefaultSettings()},
		{method: "PUT", path: "/api/v1/config", token: e.editor, body: server.ConfigRequest{Settings: &api.Settings{WorkerConnections: 64}}},
	}
	for _, r := range forbidden {
		res := e.must(http.StatusForbidden, r)
		var er server.ErrorResponse
		res.into(t, &er)
		if got, want := er.Error.Code, api.EForbidden; got != want {
			t.Fatalf("%s %s code = %s, want %s", r.method, r.path, got, want)
		}
	}
	if got := e.revisions(); got != n {
		t.Fatalf("revisions after forbidden writes = %d, want %d", got, n)
	}
	// Each refusal is counted, and those of one token from one address within a minute
	// share one row, as failed logins do: a token cannot fill the disk with 403s.
	var denied server.AuditList
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/audit?action=denied", token: e.admin}).into(t, &denied)
	count := 0
	for _, ev := range denied.Items {
		count += ev.Count
		if ev.Outcome != "failure" || ev.Remote == "" || (ev.Actor != "viewer-token" && ev.Actor != "editor-token") {
			t.Fatalf("denied event = %+v, want a failure with actor and remote", ev)
		}
	}
	if len(denied.Items) < 2 || len(denied.Items) > 4 || count != len(forbidden) {
		t.Fatalf("denied audit events = %d rows counting %d, want 2 rows (one per token) counting %d", len(denied.Items), count, len(forbidden))
	}

	// What an editor and an admin may do.
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/audit", token: e.editor})
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/config", token: e.editor, body: server.ConfigRequest{Backends: []api.Backend{backend("shop", 1)}}})
	e.must(http.StatusOK, req{method: "PUT", path: "/api/v1/settings", token: e.admin, body: api.Settings{
		WorkerConnections: 1024, KeepaliveTimeout: "30s", KeepaliveRequests: 100, ClientMaxBodySize: "8m",
		ProxyConnectTimeout: "2s", ProxyReadTimeout: "30s", ProxySendTimeout: "30s", LogFormat: "combined",
		RollbackMinRequests: 10, RollbackWindow: "10s", MinReloadInterval: "2s"}})
}

// TestTokens creates, uses, lists and revokes tokens; secrets appear once.
func TestTokens(t *testing.T) {
	e := newEnv(t)
	var tok api.Token
	res := e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/tokens", token: e.admin, body: server.TokenRequest{Name: "ci-deploy", Role: api.RoleEditor}})
	res.into(t, &tok)
	if !strings.HasPrefix(tok.Secret, "rp_") || tok.Role != api.RoleEditor || tok.ID == 0 {
		t.Fatalf("created token = %+v, want an editor with an rp_ secret", tok)
	}
	var who server.Identity
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/whoami", token: tok.Secret}).into(t, &who)
	if got, want := who, (server.Identity{Name: "ci-deploy", Role: api.RoleEditor}); got != want {
		t.Fatalf("whoami = %+v, want %+v", got, want)
	}
	e.must(http.StatusConflict, req{method: "POST", path: "/api/v1/tokens", token: e.admin, body: server.TokenRequest{Name: "ci-deploy", Role: api.RoleViewer}})
	e.must(http.StatusBadRequest, req{method: "POST", path: "/api/v1/tokens", token: e.admin, body: server.TokenRequest{Name: "x", Role: "root"}})

	res = e.must(http.StatusOK, req{method: "GET", path: "/api/v1/tokens", token: e.admin})
	if strings.Contains(string(res.body), tok.Secret) || strings.Contains(string(res.body), `"secret"`) {
		t.Fatalf("token list holds a secret: %s", res.body)
	}
	var list server.TokenList
	res.into(t, &list)
	if got, want := len(list.Items), 4; got != want {
		t.Fatalf("tokens = %d, want %d", got, want)
	}

	e.must(http.StatusNoContent, req{method: "DELETE", path: "/api/v1/tokens/" + itoa(int(tok.ID)), token: e.admin})
	e.must(http.StatusUnauthorized, req{method: "GET", path: "/api/v1/whoami", token: tok.Secret})
	e.must(http.StatusNotFound, req{method: "DELETE", path: "/api/v1/tokens/" + itoa(int(tok.ID)), token: e.admin})

	// The last admin token cannot be revoked: nobody could manage tokens any more.
	var admin api.Token
	for _, it := range list.Items {
		if it.Role == api.RoleAdmin {
			admin = it
		}
	}
	e.must(http.StatusConflict, req{method: "DELETE", path: "/api/v1/tokens/" + itoa(int(admin.ID)), token: e.admin})

	var creates, deletes int
	for _, ev := range e.auditEvents() {
		switch {
		case ev.Action == api.AuditTokenCreate && ev.Outcome == "success":
			creates++
		case ev.Action == api.AuditTokenDelete && ev.Outcome == "success":
			deletes++
		}
	}
	if creates != 1 || deletes != 1 {
		t.Fatalf("token audit: %d creates, %d deletes, want 1 and 1", creates, deletes)
	}
}

// TestAudit checks that every write and every failed login is an audit event that names
// the actor, the target and the outcome.
func TestAudit(t *testing.T) {
	e := newEnv(t)
	cert, key := selfSigned(t, "shop.example.com")
	writes := []req{
		{method: "POST", path: "/api/v1/backends?message=create", body: backend("shop", 8080)},
		{method: "PUT", path: "/api/v1/backends/shop?message=update", body: backend("shop", 8081)},
		{method: "PUT", path: "/api/v1/backends/shop?message=same", body: backend("shop", 8081)}, // no-op
		{method: "PUT", path: "/api/v1/backends/shop/endpoints", body: server.EndpointsRequest{Endpoints: []api.Endpoint{{Address: "10.9.9.9", Port: 1}}, Message: "hot"}},
		{method: "POST", path: "/api/v1/certificates", body: api.Certificate{Name: "shop-tls", Cert: cert, Key: key}},
		{method: "POST", path: "/api/v1/servers", body: api.Server{Name: "web", Hostnames: []string{"shop.example.com"},
			TLS: &api.ServerTLS{Certificate: "shop-tls"}, Locations: []api.Location{{Path: "/", Backend: "shop"}}}},
		{method: "PUT", path: "/api/v1/config?message=declarative", body: server.ConfigRequest{Backends: []api.Backend{backend("shop", 1)}}},
		{method: "POST", path: "/api/v1/revisions/2/rollback", body: server.RollbackRequest{Message: "undo"}},
		{method: "DELETE", path: "/api/v1/backends/shop?message=bye", header: map[string]string{"If-Match": `"1"`}}, // 412
		{method: "PUT", path: "/api/v1/settings", body: api.DefaultSettings(), token: e.admin},
	}
	for _, w := range writes {
		if w.token == "" {
			w.token = e.editor
		}
		if res := e.send(w); res.status >= 500 {
			t.Fatalf("%s %s = %d: %s", w.method, w.path, res.status, res.body)
		}
	}
	e.must(http.StatusUnauthorized, req{method: "GET", path: "/api/v1/backends", token: "rp_not-a-token"})
	e.must(http.StatusUnauthorized, req{method: "GET", path: "/api/v1/backends"})
	e.must(http.StatusUnauthorized, req{method: "GET", path: "/api/v1/backends", header: map[string]string{"Authorization": "Basic YWRtaW46YWRtaW4="}})

	// Reading the audit log through the API writes the counts of aggregated failed logins.
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/audit?limit=1", token: e.editor})
	evs := e.auditEvents()
	var writeEvents, failedLogins int
	for _, ev := range evs {
		switch ev.Action {
		case api.AuditWrite, api.AuditRollback:
			writeEvents++
			if ev.Actor != "editor-token" && ev.Actor != "admin-token" || ev.Target == "" || ev.Remote == "" {
				t.Errorf("write event = %+v, want actor, target and remote", ev)
			}
		case api.AuditLoginFailed:
			// Failures from one address within a minute share a row that counts them.
			failedLogins += ev.Count
			if ev.Actor != "anonymous" || ev.Outcome != "failure" || ev.Remote == "" {
				t.Errorf("failed login event = %+v, want an anonymous failure with remote", ev)
			}
		}
	}
	if got, want := writeEvents, len(writes); got != want {
		t.Fatalf("write audit events = %d, want %d: %+v", got, want, evs)
	}
	if got, want := failedLogins, 3; got != want {
		t.Fatalf("failed login events = %d, want %d", got, want)
	}
	// The audit trail is readable through the API, with filters.
	var list server.AuditList
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/audit?action=login_failed", token: e.editor}).into(t, &list)
	sum := 0
	for _, ev := range list.Items {
		sum += ev.Count
	}
	if got := len(list.Items); got < 1 || got > 2 || sum != 3 {
		t.Fatalf("GET /audit?action=login_failed = %d rows counting %d, want the 3 failures on 1 row (2 across a minute)", got, sum)
	}
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/audit?actor=editor-token&limit=2", token: e.editor}).into(t, &list)
	if got, want := len(list.Items), 2; got != want {
		t.Fatalf("GET /audit?actor=editor-token&limit=2 = %d events, want %d", got, want)
	}
	e.must(http.StatusBadRequest, req{method: "GET", path: "/api/v1/audit?since=yesterday", token: e.editor})
}
