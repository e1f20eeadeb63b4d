package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestSwaggerUIShowsTheSpecUnderAStrictPolicy: the swagger UI at /swagger/ loads the
// committed spec and lists its operations, under a Content-Security-Policy that allows
// no inline script (the harness fails the test on any violation it reports).
func TestSwaggerUIShowsTheSpecUnderAStrictPolicy(t *testing.T) {
	rp := startRestyplane(t)
	resp, err := http.Get(rp.API + "/swagger/index.html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, d := range strings.Split(csp, ";") {
		if f := strings.Fields(d); len(f) > 0 && f[0] == "script-src" && strings.Contains(d, "'unsafe-inline'") {
			t.Errorf("swagger UI policy %q allows inline script", csp)
		}
	}
	b := newBrowser(t, rp.API+"/swagger/index.html#", 1280, 900)
	b.waitText(".swagger-ui .info .title", "restyplane API")
	// The spec has 55 operations; every one is listed, collapsed, under its tag.
	b.waitFor("the spec's operations", `document.querySelectorAll(".swagger-ui .opblock").length >= 55`)
	if got := b.text(".swagger-ui .opblock-post .opblock-summary-path"); !strings.HasPrefix(got, "/api/v1/") {
		t.Fatalf("first POST operation's path = %q", got)
	}
}
