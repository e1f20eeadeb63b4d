package e2e

import "testing"

// TestCORSRedirectsAndWebSocketThroughREST: CORS, the location and server redirects and a
// WebSocket, set through REST, behave as ingress-nginx's annotations do (policies, issue
// 11); TestKubernetesCORSRedirectsAndWebSocket shows the same through annotations.
func TestCORSRedirectsAndWebSocketThroughREST(t *testing.T) {
	in := start(t)
	in.must("POST", "/api/v1/backends", backend("web", serveLoopback(t, policyUpstream("web"))))
	api := location("/api", "web")
	api["cors"] = map[string]any{"allowOrigins": []string{"https://app.test", "https://*.apps.test"},
		"exposeHeaders": []string{"X-Request-Id"}}
	old := map[string]any{"path": "/old", "redirect": map[string]any{"url": "https://new.test/x", "code": 301}}
	tmp := map[string]any{"path": "/tmp", "redirect": map[string]any{"url": "/new?a=1", "code": 307}}
	shop := server("shop", "shop.test", api, old, tmp, location("/app", "web"), location("/ws", "web"))
	shop["appRoot"] = "/app"
	shop["wwwRedirect"] = true
	in.must("POST", "/api/v1/servers", shop)

	cert, key := selfSigned(t, "secure.test", 1)
	in.must("POST", "/api/v1/certificates", map[string]any{"name": "secure", "cert": cert, "key": key})
	secure := server("secure", "secure.test", location("/", "web"))
	secure["tls"] = map[string]any{"certificate": "secure"}
	secure["forceSSLRedirect"] = true
	in.must("POST", "/api/v1/servers", secure)
	in.waitSynced()

	checkCORS(t, in, "shop.test")
	checkRedirects(t, in, "shop.test")
	checkForceSSL(t, in, "secure.test")
	checkWebSocket(t, in, "shop.test", "/ws")

	// Bad values are refused with the field named, and nothing changes.
	for field, loc := range map[string]map[string]any{
		"locations[0].cors.allowOrigins[0]": {"path": "/x", "backend": "web", "cors": map[string]any{"allowOrigins": []string{"https://a.test/p"}}},
		"locations[0].cors.allowOrigins[1]": {"path": "/x", "backend": "web", "cors": map[string]any{"allowOrigins": []string{"https://a.test", "https://.*"}}},
		"locations[0].redirect.code":        {"path": "/x", "redirect": map[string]any{"url": "https://a.test", "code": 200}},
		"locations[0].redirect.url":         {"path": "/x", "redirect": map[string]any{"url": "https://a.test$request_uri"}},
		"locations[0].backend":              {"path": "/x"},
		"locations[0].auth":                 {"path": "/x", "redirect": map[string]any{"url": "/y"}, "auth": map[string]any{"external": map[string]any{"url": "http://a.test"}}},
	} {
		var out struct {
			Error struct{ Field, Message string }
		}
		if code := in.call("POST", "/api/v1/servers", server("bad", "bad.test", loc), &out); code != 400 || out.Error.Field != field {
			t.Fatalf("%v: %d %+v, want 400 naming %s", loc, code, out, field)
		}
		t.Logf("%s: %s", field, out.Error.Message)
	}
	var out struct {
		Error struct{ Field, Message string }
	}
	bad := server("bad", "bad.test", location("/", "web"))
	bad["appRoot"] = "/a b"
	if code := in.call("POST", "/api/v1/servers", bad, &out); code != 400 || out.Error.Field != "appRoot" {
		t.Fatalf("bad appRoot: %d %+v", code, out)
	}
	// The www partner of a server's hostname may not be another server's.
	in.must("POST", "/api/v1/servers", server("www-blog", "www.blog.test", location("/", "web")))
	blog := server("blog", "blog.test", location("/", "web"))
	blog["wwwRedirect"] = true
	if code := in.call("POST", "/api/v1/servers", blog, &out); code != 409 || out.Error.Field != "wwwRedirect" {
		t.Fatalf("www redirect onto another server's name: %d %+v, want 409", code, out)
	}
	t.Logf("wwwRedirect: %s", out.Error.Message)
}

// TestCORSWildcardsThroughREST: "*" methods and headers allow whatever a preflight asks
// for, answered as asked; with credentials, where the Fetch standard takes "*" literally,
// Gateway API's rules echo the origin, while ingress-nginx's (the default) answer "*",
// which a browser refuses for a credentialed request.
func TestCORSWildcardsThroughREST(t *testing.T) {
	in := start(t)
	in.must("POST", "/api/v1/backends", backend("web", serveLoopback(t, policyUpstream("web"))))
	open := location("/open", "web")
	open["cors"] = map[string]any{"allowOrigins": []string{"*"}, "allowMethods": []string{"*"},
		"allowHeaders": []string{"*"}, "allowCredentials": true, "rules": "gateway-api"}
	plain := location("/plain", "web")
	plain["cors"] = map[string]any{"allowOrigins": []string{"*"}, "allowCredentials": true}
	in.must("POST", "/api/v1/servers", server("wild", "wild.test", open, plain))
	in.waitSynced()
	if resp, _ := in.send("GET", "wild.test", "/plain", "Origin", "https://evil.test"); resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("ingress-nginx's rules, any origin with credentials: Access-Control-Allow-Origin = %q, want *", resp.Header.Get("Access-Control-Allow-Origin"))
	}
	resp, _ := in.send("OPTIONS", "wild.test", "/open", "Origin", "https://other.foo.com",
		"Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "x-header-1, x-header-2")
	for h, want := range map[string]string{"Access-Control-Allow-Origin": "https://other.foo.com",
		"Access-Control-Allow-Methods": "PUT", "Access-Control-Allow-Headers": "x-header-1, x-header-2",
		"Access-Control-Allow-Credentials": "true"} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("preflight %s = %q, want %q", h, got, want)
		}
	}
	if resp.StatusCode != 204 {
		t.Errorf("preflight = %d, want 204", resp.StatusCode)
	}
}

// TestCORSGatewayRulesThroughREST: with rules "gateway-api" a wildcard origin's "*."
// takes any number of labels, and a preflight from an origin not allowed is answered 403
// by the proxy, without CORS headers and without reaching the upstream; with
// ingress-nginx's rules (the default) the wildcard takes one label.
func TestCORSGatewayRulesThroughREST(t *testing.T) {
	in := start(t)
	in.must("POST", "/api/v1/backends", backend("web", serveLoopback(t, policyUpstream("web"))))
	gw := location("/gw", "web")
	gw["cors"] = map[string]any{"allowOrigins": []string{"https://*.bar.com"}, "rules": "gateway-api"}
	ing := location("/ing", "web")
	ing["cors"] = map[string]any{"allowOrigins": []string{"https://*.bar.com"}}
	in.must("POST", "/api/v1/servers", server("rules", "rules.test", gw, ing))
	in.waitSynced()
	preflight := func(path, origin string) (int, string) {
		resp, _ := in.send("OPTIONS", "rules.test", path, "Origin", origin, "Access-Control-Request-Method", "GET")
		return resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin")
	}
	if code, allow := preflight("/gw", "https://a.b.bar.com"); code != 204 || allow != "https://a.b.bar.com" {
		t.Errorf("gateway-api, two labels: %d %q, want 204 allowing the origin", code, allow)
	}
	if code, allow := preflight("/gw", "https://foobar.com"); code != 403 || allow != "" {
		t.Errorf("gateway-api, origin not allowed: %d %q, want 403 without CORS headers", code, allow)
	}
	if code, allow := preflight("/ing", "https://a.b.bar.com"); code == 204 || allow != "" {
		t.Errorf("ingress-nginx, two labels: %d %q, want it not allowed", code, allow)
	}
}
