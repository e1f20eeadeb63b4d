package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestHostnameGrants: an admin grants and releases a hostname, a viewer lists the claims
// and may not grant, a REST server naming a granted hostname is a 409 that says so, both
// changes are audited, and without a cluster the Ingress verdicts are unavailable.
func TestHostnameGrants(t *testing.T) {
	e := newEnv(t)
	const path = "/api/v1/kubernetes/hostnames/shop.example.com"
	e.must(http.StatusForbidden, req{method: "PUT", path: path, token: e.viewer, body: map[string]string{"namespace": "shop"}})
	e.must(http.StatusBadRequest, req{method: "PUT", path: path, token: e.admin, body: map[string]string{"namespace": "Not_A_Namespace"}})
	var c api.HostnameClaim
	e.must(http.StatusOK, req{method: "PUT", path: path, token: e.admin, body: map[string]string{"namespace": "shop"}}).into(t, &c)
	if c.Namespace != "shop" || c.How != api.HostnameGranted {
		t.Fatalf("grant = %+v", c)
	}
	var list struct{ Items []api.HostnameClaim }
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/kubernetes/hostnames", token: e.viewer}).into(t, &list)
	if len(list.Items) != 1 || list.Items[0].Hostname != "shop.example.com" || list.Items[0].Namespace != "shop" {
		t.Fatalf("claims = %+v", list.Items)
	}

	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("pool", 80)})
	res := e.must(http.StatusConflict, req{method: "POST", path: "/api/v1/servers", token: e.editor, body: vhost("shop", "shop.example.com", "/", "pool")})
	if !strings.Contains(string(res.body), `Kubernetes namespace \"shop\"`) {
		t.Fatalf("409 body %s does not name the namespace", res.body)
	}
	e.must(http.StatusNoContent, req{method: "DELETE", path: path, token: e.admin})
	e.must(http.StatusNotFound, req{method: "DELETE", path: path, token: e.admin})
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/servers", token: e.editor, body: vhost("shop", "shop.example.com", "/", "pool")})

	var grants, releases int
	for _, ev := range e.auditEvents() {
		switch ev.Action {
		case api.AuditHostnameGrant:
			grants++
		case api.AuditHostnameRelease:
			releases++
		}
	}
	if grants != 1 || releases != 1 {
		t.Fatalf("audit: %d grants, %d releases; want 1 each", grants, releases)
	}
	e.must(http.StatusServiceUnavailable, req{method: "GET", path: "/api/v1/kubernetes/ingresses", token: e.viewer})
}
