package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The backend form sets a session affinity with its cookie attributes, which the API
// stores and the backend's page shows; a domain that is a variable is refused at its field.
// The settings form sets the headers sent upstream, useForwardedHeaders and the upstream
// keepalive, and a header value naming a variable outside the list is refused at its
// field.
func TestAffinityAndForwardingForms(t *testing.T) {
	rp := startRestyplane(t)
	_, port := upstream(t, "web")
	rp.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{map[string]any{"address": "127.0.0.1", "port": port}}})
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	setText := func(sel, v string) {
		evalJS[chromedp.Void](b, fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = %s; e.dispatchEvent(new Event('input', { bubbles: true })); })()`, js(sel), js(v)))
	}

	b.route("#/backends/web/edit", tid("backend-form"))
	b.typeInto(tid("backend-affinity"), "route")
	b.choose(tid("affinity-mode"), "balanced")
	b.typeInto(tid("affinity-path"), "/shop")
	b.typeInto(tid("affinity-domain"), "$host")
	b.choose(tid("affinity-samesite"), "None")
	b.click(tid("affinity-conditional"))
	b.typeInto(tid("affinity-max-age"), "3600")
	b.click(tid("affinity-secure"))
	b.click(tid("affinity-change"))
	b.typeInto(tid("backend-reason"), "sticky sessions")
	b.click(tid("form-submit"))
	b.waitVisible(tid("form-error"))
	if got := b.text(`.field-error:not([hidden])`); !strings.Contains(got, "$host") {
		t.Fatalf("field error = %q, want the API's message about the domain $host", got)
	}
	setText(tid("affinity-domain"), "shop.test")
	b.click(tid("form-submit"))
	b.waitVisible(tid("backend-detail"))
	var be struct {
		Affinity struct {
			Cookie, Mode, Path, Domain, SameSite             string
			MaxAge                                           int
			ConditionalSameSiteNone, Secure, ChangeOnFailure bool
		}
	}
	a := &be.Affinity
	if code := rp.call(adminSecret, "GET", "/api/v1/backends/web", nil, &be); code != 200 || a.Cookie != "route" || a.Mode != "balanced" ||
		a.Path != "/shop" || a.Domain != "shop.test" || a.SameSite != "None" || a.MaxAge != 3600 || !a.ConditionalSameSiteNone || !a.Secure || !a.ChangeOnFailure {
		t.Fatalf("GET backend = %d %+v", code, be)
	}
	if got := b.text(tid("backend-detail")); !strings.Contains(got, "cookie route, balanced, path /shop") {
		t.Fatalf("backend page = %q, want the affinity spelled out", got)
	}

	b.click(tid("nav-settings"))
	b.waitVisible(tid("settings-form"))
	setText(tid("setting-proxySetHeaders"), "X-Request-ID: $request_id\nX-Auth: $http_authorization")
	b.typeInto(tid("settings-reason"), "headers upstream")
	b.click(tid("form-submit"))
	b.waitVisible(tid("form-error"))
	if got := b.text(`.field-error:not([hidden])`); !strings.Contains(got, "$http_authorization") {
		t.Fatalf("field error = %q, want the API's message about $http_authorization", got)
	}
	setText(tid("setting-proxySetHeaders"), "X-Request-ID: $request_id\nX-Team: checkout {eu}")
	setText(tid("setting-upstreamKeepaliveTimeout"), "30s")
	setText(tid("setting-upstreamKeepaliveRequests"), "10000")
	b.click(tid("setting-useForwardedHeaders"))
	head := rp.head()
	b.click(tid("form-submit"))
	b.waitText(tid("status"), fmt.Sprintf("Settings: saved as revision #%d", head+1))
	var s struct {
		UseForwardedHeaders       bool
		ProxySetHeaders           []struct{ Name, Value string }
		UpstreamKeepaliveTimeout  string
		UpstreamKeepaliveRequests int
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/settings", nil, &s); code != 200 {
		t.Fatalf("GET settings = %d", code)
	}
	if !s.UseForwardedHeaders || len(s.ProxySetHeaders) != 2 || s.ProxySetHeaders[1].Name != "X-Team" || s.ProxySetHeaders[1].Value != "checkout {eu}" ||
		s.UpstreamKeepaliveTimeout != "30s" || s.UpstreamKeepaliveRequests != 10000 {
		t.Fatalf("GET settings = %+v", s)
	}
	b.click(tid("nav-settings"))
	b.waitVisible(tid("settings-form"))
	if got := evalJS[string](b, fmt.Sprintf(`document.querySelector(%s).value`, js(tid("setting-proxySetHeaders")))); got != "X-Request-ID: $request_id\nX-Team: checkout {eu}" {
		t.Fatalf("headers field = %q, want the stored headers a line each", got)
	}
}
