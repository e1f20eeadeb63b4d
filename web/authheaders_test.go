package web_test

import (
	"testing"
)

// Editing a location's auth in the server form keeps the auth subrequest's request headers,
// which the form has no field for (a translated auth-snippet's, or a REST client's).
func TestLocationAuthKeepsRequestHeaders(t *testing.T) {
	rp := startRestyplane(t)
	_, port := upstream(t, "web")
	rp.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{map[string]any{"address": "127.0.0.1", "port": port}}})
	headers := []any{map[string]any{"name": "X-Forwarded-Uri", "value": "$request_uri"}}
	rp.must("POST", "/api/v1/servers", map[string]any{"name": "shop", "hostnames": []string{"shop.test"},
		"locations": []any{map[string]any{"path": "/", "backend": "web",
			"auth": map[string]any{"external": map[string]any{"url": "http://127.0.0.1:9/verify", "requestHeaders": headers}}}}})
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	b.route("#/servers/shop/edit", tid("server-form"))
	b.typeInto(tid("location-auth-headers"), "X-User")
	b.typeInto(tid("server-reason"), "pass the user upstream")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))
	var srv struct {
		Locations []struct {
			Auth struct {
				External struct {
					ResponseHeaders []string
					RequestHeaders  []struct{ Name, Value string }
				}
			}
		}
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/servers/shop", nil, &srv); code != 200 || len(srv.Locations) != 1 {
		t.Fatalf("GET server = %d %+v", code, srv)
	}
	e := srv.Locations[0].Auth.External
	if len(e.ResponseHeaders) != 1 || len(e.RequestHeaders) != 1 || e.RequestHeaders[0].Name != "X-Forwarded-Uri" || e.RequestHeaders[0].Value != "$request_uri" {
		t.Fatalf("external auth after the edit = %+v, want X-User passed and the request header kept", e)
	}
}
