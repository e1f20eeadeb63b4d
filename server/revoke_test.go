package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestRevokedTokenRefusedOnNextRequest: a token that was just used (and so is in the
// store's token cache) is refused on the very next request after its revocation was
// answered: a ladder token on the API, a join token on the join, and an instance's
// credential on the feed and the report.
func TestRevokedTokenRefusedOnNextRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ed, err := e.st.CreateToken(ctx, "ci", api.RoleEditor, "")
	if err != nil {
		t.Fatal(err)
	}
	dp, err := e.st.CreateToken(ctx, "edge-dp", api.RoleDataplane, "")
	if err != nil {
		t.Fatal(err)
	}
	var c api.Credential
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/instances/edge/join", token: dp.Secret}).into(t, &c)
	for i := 0; i < 3; i++ {
		e.must(http.StatusOK, req{method: "GET", path: "/api/v1/whoami", token: ed.Secret})
		feed, code := e.openFeed(c.Secret, "")
		if code != http.StatusOK {
			t.Fatalf("feed with the instance's credential = %d, want 200", code)
		}
		feed.resp.Body.Close()
	}
	e.must(http.StatusNoContent, req{method: "DELETE", path: "/api/v1/tokens/" + itoa(int(ed.ID)), token: e.admin})
	e.must(http.StatusUnauthorized, req{method: "GET", path: "/api/v1/whoami", token: ed.Secret})
	e.must(http.StatusNoContent, req{method: "DELETE", path: "/api/v1/tokens/" + itoa(int(dp.ID)), token: e.admin})
	e.must(http.StatusUnauthorized, req{method: "POST", path: "/api/v1/instances/edge-2/join", token: dp.Secret})
	e.must(http.StatusNoContent, req{method: "DELETE", path: "/api/v1/instances/edge/credential", token: e.admin})
	if _, code := e.openFeed(c.Secret, ""); code != http.StatusUnauthorized {
		t.Fatalf("feed with the revoked credential = %d, want 401", code)
	}
	e.must(http.StatusUnauthorized, req{method: "POST", path: "/api/v1/instances/edge/report", token: c.Secret, body: "{}",
		header: map[string]string{"Content-Type": "application/json"}})
}
