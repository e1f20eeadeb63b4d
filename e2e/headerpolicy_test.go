package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestHeaderFiltersAndFixedAnswers: a location sets, adds to and removes request headers
// on their way to the backend and response headers on their way back, as Gateway API's
// header modifiers do; other locations answer a fixed status and body, or deny, without a
// backend; values may name the variables of api.HeaderVariables, which the proxy fills
// in, and any other variable is a 400.
func TestHeaderFiltersAndFixedAnswers(t *testing.T) {
	in := start(t)
	up := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Powered-By", "php")
		w.Header().Set("Cache-Control", "public")
		fmt.Fprintf(w, "web %s team=%q tags=%q cookie=%q\n", r.URL.Path, r.Header.Get("X-Team"), strings.Join(r.Header.Values("X-Tags"), "|"), r.Header.Get("Cookie"))
	}))
	in.must("POST", "/api/v1/backends", backend("web", up))
	hdr := func(n, v string) map[string]any { return map[string]any{"name": n, "value": v} }
	in.must("POST", "/api/v1/servers", server("hp", "hp.test",
		map[string]any{"path": "/", "backend": "web",
			"requestHeaders": map[string]any{"set": []any{hdr("X-Team", "checkout")}, "add": []any{hdr("X-Tags", "edge")}, "remove": []any{"Cookie"}},
			"responseHeaders": map[string]any{"set": []any{hdr("Cache-Control", "no-store")},
				"add": []any{hdr("Strict-Transport-Security", "max-age=31536000; includeSubDomains")}, "remove": []any{"X-Powered-By"}}},
		map[string]any{"path": "/healthz", "match": "exact", "return": map[string]any{"code": 200, "body": "ok {up}; #1"},
			"responseHeaders": map[string]any{"add": []any{hdr("X-Probe", "yes")}}},
		map[string]any{"path": "/vars", "backend": "web",
			"requestHeaders":  map[string]any{"set": []any{hdr("X-Team", "via $host")}},
			"responseHeaders": map[string]any{"set": []any{hdr("Request-Id", "$req_id")}}},
		map[string]any{"path": "/internal", "deny": true},
		map[string]any{"path": `^/(metrics|ready)$`, "match": "regex", "return": map[string]any{"code": 404}}))
	in.waitSynced()

	resp, body := in.do("hp.test", "/a", "X-Team", "spoofed", "X-Tags", "client", "Cookie", "session=1")
	if want := `web /a team="checkout" tags="client,edge" cookie=""`; resp.StatusCode != 200 || body != want {
		t.Errorf("GET /a = %d %q, want %q", resp.StatusCode, body, want)
	}
	if got := resp.Header.Values("Cache-Control"); len(got) != 1 || got[0] != "no-store" {
		t.Errorf("Cache-Control = %q, want only no-store", got)
	}
	if got := resp.Header.Get("Strict-Transport-Security"); got != "max-age=31536000; includeSubDomains" {
		t.Errorf("Strict-Transport-Security = %q", got)
	}
	if got := resp.Header.Get("X-Powered-By"); got != "" {
		t.Errorf("X-Powered-By = %q, want it removed", got)
	}
	if _, body := in.do("hp.test", "/b"); body != `web /b team="checkout" tags="edge" cookie=""` {
		t.Errorf("GET /b without X-Tags: %q, want the added value alone", body)
	}
	resp, body = in.do("hp.test", "/vars/x", "X-Request-ID", "req-42")
	if want := `web /vars/x team="via hp.test" tags="" cookie=""`; resp.StatusCode != 200 || body != want || resp.Header.Get("Request-Id") != "req-42" {
		t.Errorf("GET /vars/x = %d %q Request-Id %q, want %q and req-42 (the variables filled in)", resp.StatusCode, body, resp.Header.Get("Request-Id"), want)
	}
	if resp, _ = in.do("hp.test", "/vars/x"); len(resp.Header.Get("Request-Id")) != 32 {
		t.Errorf("GET /vars/x without X-Request-ID: Request-Id %q, want nginx's own 32 hex digits", resp.Header.Get("Request-Id"))
	}
	resp, body = in.do("hp.test", "/healthz")
	if resp.StatusCode != 200 || body != "ok {up}; #1" || resp.Header.Get("X-Probe") != "yes" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("GET /healthz = %d %q %v, want 200 ok {up}; #1 as text/plain with X-Probe", resp.StatusCode, body, resp.Header)
	}
	for path, code := range map[string]int{"/internal": 403, "/internal/x": 403, "/metrics": 404, "/ready": 404, "/readyz": 200} {
		if resp, body := in.do("hp.test", path); resp.StatusCode != code {
			t.Errorf("GET %s = %d %q, want %d", path, resp.StatusCode, body, code)
		}
	}
	for _, c := range []struct {
		loc   map[string]any
		field string
	}{
		{map[string]any{"path": "/", "backend": "web", "requestHeaders": map[string]any{"set": []any{hdr("X-A", "$cookie_session")}}}, "locations[0].requestHeaders.set[0].value"},
		{map[string]any{"path": "/", "backend": "web", "requestHeaders": map[string]any{"add": []any{hdr("X-A", "$host")}}}, "locations[0].requestHeaders.add[0].value"},
		{map[string]any{"path": "/", "backend": "web", "responseHeaders": map[string]any{"add": []any{hdr("X A", "v")}}}, "locations[0].responseHeaders.add[0].name"},
		{map[string]any{"path": "/", "backend": "web", "responseHeaders": map[string]any{"remove": []any{"Content-Length"}}}, "locations[0].responseHeaders.remove[0]"},
		{map[string]any{"path": "/", "return": map[string]any{"code": 302}}, "locations[0].return.code"},
		{map[string]any{"path": "/", "return": map[string]any{"code": 200, "body": "$remote_addr"}}, "locations[0].return.body"},
		{map[string]any{"path": "/"}, "locations[0].backend"},
	} {
		var out struct{ Error struct{ Field string } }
		if code := in.call("POST", "/api/v1/servers", server("bad", "bad.test", c.loc), &out); code != 400 || out.Error.Field != c.field {
			t.Errorf("POST %v = %d %+v, want 400 naming %s", c.loc, code, out, c.field)
		}
	}
}
