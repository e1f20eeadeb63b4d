package e2e

import (
	"regexp"
	"strconv"
	"testing"
)

// TestForwardedHeadersThroughREST: without useForwardedHeaders the upstream sees the
// X-Forwarded-* of what the proxy saw, whatever the client sent; with it, what the client
// sent is passed on, the connection's address appended to X-Forwarded-For.
func TestForwardedHeadersThroughREST(t *testing.T) {
	in := start(t)
	up := newHeaderUpstream(t)
	in.must("POST", "/api/v1/backends", backend("echo", up.ep))
	in.must("POST", "/api/v1/servers", server("fwd", "fwd.test", location("/", "echo")))
	in.waitSynced()
	spoof := []string{"X-Forwarded-For", "203.0.113.7", "X-Forwarded-Proto", "https", "X-Forwarded-Host", "shop.example", "X-Forwarded-Port", "443"}
	_, port, _ := splitProxy(in.Proxy)

	check := func(what string, h map[string]string, hdr ...string) {
		t.Helper()
		got := in.seen("fwd.test", "/", hdr...)
		for k, want := range h {
			if v := got.Get(k); v != want {
				t.Errorf("%s: the upstream saw %s %q, want %q", what, k, v, want)
			}
		}
	}
	check("off, spoofed", map[string]string{"X-Forwarded-For": "127.0.0.1", "X-Forwarded-Proto": "http",
		"X-Forwarded-Host": "fwd.test", "X-Forwarded-Port": port, "X-Real-IP": "127.0.0.1"}, spoof...)

	in.putSettings(map[string]any{"useForwardedHeaders": true})
	check("on, from a proxy", map[string]string{"X-Forwarded-For": "203.0.113.7, 127.0.0.1", "X-Forwarded-Proto": "https",
		"X-Forwarded-Host": "shop.example", "X-Forwarded-Port": "443"}, spoof...)
	check("on, none sent", map[string]string{"X-Forwarded-For": "127.0.0.1", "X-Forwarded-Proto": "http",
		"X-Forwarded-Host": "fwd.test", "X-Forwarded-Port": port})

	in.putSettings(map[string]any{"useForwardedHeaders": false})
	check("off again", map[string]string{"X-Forwarded-For": "127.0.0.1", "X-Forwarded-Proto": "http"}, spoof...)
}

// TestHostWithPortThroughREST: the upstream gets the Host header as the client sent it,
// port included, as ingress-nginx and Gateway API pass it; a request without a Host
// (HTTP/1.0) gets the server's name.
func TestHostWithPortThroughREST(t *testing.T) {
	in := start(t)
	up := newHeaderUpstream(t)
	in.must("POST", "/api/v1/backends", backend("echo", up.ep))
	in.must("POST", "/api/v1/servers", server("hostport", "hostport.test", location("/", "echo")))
	in.waitSynced()
	for _, host := range []string{"hostport.test:1234", "hostport.test"} {
		if got := in.seen(host, "/").Get("Host"); got != host {
			t.Errorf("Host %s: the upstream saw Host %q, want it as sent", host, got)
		}
	}
}

// TestProxySetHeadersAndKeepaliveThroughREST: settings' proxySetHeaders reach the
// upstream on every request, their variables expanded and a location's own header
// winning; the upstream keepalive's requests bound what one connection carries.
func TestProxySetHeadersAndKeepaliveThroughREST(t *testing.T) {
	in := start(t)
	up := newHeaderUpstream(t)
	in.must("POST", "/api/v1/backends", backend("echo", up.ep))
	own := location("/own", "echo")
	own["setHeaders"] = []map[string]any{{"name": "X-Team", "value": "platform"}}
	in.must("POST", "/api/v1/servers", server("hdr", "hdr.test", location("/", "echo"), own))
	in.waitSynced()

	// Defaults: one kept connection carries every request of a client.
	up.reset()
	for i := 0; i < 10; i++ {
		in.seen("hdr.test", "/")
	}
	if most, conns := up.perConn(); most < 3 {
		t.Fatalf("with the default keepalive the busiest upstream connection carried %d of 10 requests (%d connections), want them kept", most, conns)
	}

	in.putSettings(map[string]any{"upstreamKeepaliveTimeout": "30s", "upstreamKeepaliveRequests": 2,
		"proxySetHeaders": []map[string]any{
			{"name": "X-Team", "value": "checkout {eu}"},
			{"name": "X-Request-ID", "value": "$request_id"},
			{"name": "X-Origin", "value": "$scheme://$host:$server_port"},
			{"name": "X-Real-IP", "value": "conn=$realip_remote_addr"},
		}})
	_, port, _ := splitProxy(in.Proxy)
	h := in.seen("hdr.test", "/")
	if got := h.Get("X-Team"); got != "checkout {eu}" {
		t.Errorf("X-Team = %q, want the literal value", got)
	}
	if got := h.Get("X-Request-ID"); !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(got) {
		t.Errorf("X-Request-ID = %q, want nginx's 32 hex digits", got)
	}
	if got, want := h.Get("X-Origin"), "http://hdr.test:"+port; got != want {
		t.Errorf("X-Origin = %q, want %q", got, want)
	}
	if got := h.Values("X-Real-IP"); len(got) != 1 || got[0] != "conn=127.0.0.1" {
		t.Errorf("X-Real-IP = %q, want the setting's value alone, in place of the default", got)
	}
	if got := in.seen("hdr.test", "/own").Get("X-Team"); got != "platform" {
		t.Errorf("the location's own X-Team: %q, want platform", got)
	}

	up.reset()
	for i := 0; i < 10; i++ {
		in.seen("hdr.test", "/")
	}
	if most, conns := up.perConn(); most != 2 {
		t.Fatalf("with upstreamKeepaliveRequests 2 the busiest upstream connection carried %d of 10 requests (%d connections), want 2", most, conns)
	}
}

// TestForwardingRefusedThroughREST: bad forwarding settings are refused with a 400 that
// names the field, and the settings stay as they were.
func TestForwardingRefusedThroughREST(t *testing.T) {
	in := start(t)
	before := map[string]any{}
	in.call("GET", "/api/v1/settings", nil, &before)
	for field, over := range map[string]map[string]any{
		"proxySetHeaders[0].value":  {"proxySetHeaders": []map[string]any{{"name": "X-A", "value": "$http_authorization"}}},
		"proxySetHeaders[1].value":  {"proxySetHeaders": []map[string]any{{"name": "X-A", "value": "a"}, {"name": "X-B", "value": "x\"; more"}}},
		"proxySetHeaders[0].name":   {"proxySetHeaders": []map[string]any{{"name": "X A", "value": "v"}}},
		"realIPFrom[0]":             {"realIPFrom": []string{"10.0.0.0/33"}},
		"upstreamKeepaliveTimeout":  {"upstreamKeepaliveTimeout": "60"},
		"upstreamKeepaliveRequests": {"upstreamKeepaliveRequests": -1},
	} {
		set := map[string]any{}
		for k, v := range before {
			set[k] = v
		}
		delete(set, "version")
		for k, v := range over {
			set[k] = v
		}
		var out struct{ Error map[string]any }
		if code := in.call("PUT", "/api/v1/settings", set, &out); code != 400 || out.Error["field"] != field {
			t.Errorf("settings %v: %d %v, want 400 naming %s", over, code, out, field)
		}
	}
	after := map[string]any{}
	in.call("GET", "/api/v1/settings", nil, &after)
	if after["version"] != before["version"] {
		t.Fatalf("settings version %v after refused writes, want %v", after["version"], before["version"])
	}
}

// splitProxy returns the host and port of the proxy's URL.
func splitProxy(u string) (host, port string, err error) {
	m := regexp.MustCompile(`^https?://(.*):(\d+)$`).FindStringSubmatch(u)
	if m == nil {
		return "", "", strconv.ErrSyntax
	}
	return m[1], m[2], nil
}

// TestRealIPHeaderFromTrustedProxiesThroughREST: with trusted proxies and the header they
// name the client in (ingress-nginx's proxy-real-ip-cidr and forwarded-for-header), an
// allow list admits or denies by the header's address on connections from a trusted
// proxy only, and the upstream's X-Forwarded-For names that client.
func TestRealIPHeaderFromTrustedProxiesThroughREST(t *testing.T) {
	in := start(t)
	up := newHeaderUpstream(t)
	in.must("POST", "/api/v1/backends", backend("echo", up.ep))
	acl := location("/", "echo")
	acl["access"] = map[string]any{"allow": []string{"192.0.2.0/24"}}
	in.must("POST", "/api/v1/servers", server("rip", "rip.test", acl))
	in.putSettings(map[string]any{"realIPFrom": []string{"127.0.0.4/31"}, "realIPHeader": "X-Client-Address"})

	for _, c := range []struct {
		local, client string
		want          int
	}{
		{"127.0.0.5", "192.0.2.9", 200},    // a trusted proxy names an allowed client
		{"127.0.0.4", "198.51.100.1", 403}, // a trusted proxy names another client
		{"127.0.0.5", "", 403},             // a trusted proxy names none: its own address
		{"127.0.0.1", "192.0.2.9", 403},    // an untrusted client names an allowed one
	} {
		var hdr []string
		if c.client != "" {
			hdr = []string{"X-Client-Address", c.client}
		}
		code, body := from(in.Proxy, c.local, "rip.test", "/", hdr...)
		if code != c.want {
			t.Fatalf("from %s naming %q: %d %q, want %d", c.local, c.client, code, body, c.want)
		}
		if code == 200 && !regexp.MustCompile(`"X-Forwarded-For":\["`+regexp.QuoteMeta(c.client)+`"\]`).MatchString(body) {
			t.Fatalf("from %s naming %q: the upstream saw %s, want X-Forwarded-For %s", c.local, c.client, body, c.client)
		}
	}
}
