package server_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// badCase is one request that must be refused.
type badCase struct {
	name         string
	method, path string
	// token is the editor's unless "admin" or "none"; ctype is application/json unless set
	// ("-": none); header adds headers.
	token, ctype string
	header       map[string]string
	// body is sent as it is when a string, else marshalled.
	body any
	want int
}

// obj is a JSON object under construction.
type obj = map[string]any

// with returns a copy of base with the fields of over.
func with(base, over obj) obj {
	out := maps.Clone(base)
	maps.Copy(out, over)
	return out
}

func validBackend() obj {
	return obj{"name": "fresh", "endpoints": []any{obj{"address": "10.0.0.1", "port": 80}}}
}

// backendWith is a valid backend with one endpoint field replaced.
func endpointWith(field string, v any) obj {
	return with(validBackend(), obj{"endpoints": []any{with(obj{"address": "10.0.0.1", "port": 80}, obj{field: v})}})
}

func validServer() obj {
	return obj{"name": "fresh", "hostnames": []any{"fresh.example.com"}, "locations": []any{validLocation()}}
}

func validLocation() obj { return obj{"path": "/", "backend": "shop"} }

// locationWith is a valid server whose one location has a field replaced.
func locationWith(over obj) obj {
	return with(validServer(), obj{"locations": []any{with(validLocation(), over)}})
}

func settingsWith(over obj) obj {
	j, _ := json.Marshal(api.DefaultSettings())
	var base obj
	_ = json.Unmarshal(j, &base)
	return with(base, over)
}

// TestBadInput sends what an attacker or a confused client would: values aimed at
// nginx.conf, control characters, invalid UTF-8, numbers out of range, huge and deeply
// nested bodies, unknown fields, wrong content types and references that do not hold.
// Each must be answered with a 4xx and a JSON error of the documented shape, and none may
// make a revision.
func TestBadInput(t *testing.T) {
	e := newEnv(t)
	cert, key := selfSigned(t, "shop.example.com")
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("shop", 8080)})
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("cart", 8080)})
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/servers", token: e.editor, body: vhost("web", "shop.example.com", "/api", "shop")})

	// The bases the cases start from are valid, so each case fails for its own reason.
	for _, r := range []req{
		{method: "POST", path: "/api/v1/backends?dryRun=true", token: e.editor, body: validBackend()},
		{method: "POST", path: "/api/v1/backends?dryRun=true", token: e.editor, body: endpointWith("weight", 5)},
		{method: "POST", path: "/api/v1/servers?dryRun=true", token: e.editor, body: validServer()},
		{method: "POST", path: "/api/v1/servers?dryRun=true", token: e.editor, body: locationWith(obj{"setHeaders": []any{obj{"name": "X-A", "value": "a b"}}})},
		{method: "PUT", path: "/api/v1/settings?dryRun=true", token: e.admin, body: settingsWith(obj{"workerConnections": 1024})},
		{method: "POST", path: "/api/v1/certificates?dryRun=true", token: e.editor, body: obj{"name": "tls", "cert": cert, "key": key}},
	} {
		e.must(http.StatusOK, r)
	}

	huge := strings.Repeat("a", 2<<20)
	deep := `{"name":"fresh","endpoints":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`
	const B, S = "/api/v1/backends", "/api/v1/servers"
	cases := []badCase{
		// Names aimed at nginx.conf.
		{name: "name with semicolon", method: "POST", path: B, body: with(validBackend(), obj{"name": "a;b"}), want: 400},
		{name: "name with brace", method: "POST", path: B, body: with(validBackend(), obj{"name": "a}"}), want: 400},
		{name: "name with hash", method: "POST", path: B, body: with(validBackend(), obj{"name": "a#b"}), want: 400},
		{name: "name with newline", method: "POST", path: B, body: with(validBackend(), obj{"name": "a\nb"}), want: 400},
		{name: "name with dollar", method: "POST", path: B, body: with(validBackend(), obj{"name": "$host"}), want: 400},
		{name: "name with double quote", method: "POST", path: B, body: with(validBackend(), obj{"name": `a"b`}), want: 400},
		{name: "name with single quote", method: "POST", path: B, body: with(validBackend(), obj{"name": "a'b"}), want: 400},
		{name: "name with include", method: "POST", path: B, body: with(validBackend(), obj{"name": "x;include /etc/passwd"}), want: 400},
		{name: "name with NUL", method: "POST", path: B, body: with(validBackend(), obj{"name": "a\x00b"}), want: 400},
		{name: "name with bell", method: "POST", path: B, body: with(validBackend(), obj{"name": "a\x07b"}), want: 400},
		{name: "name of 2 MB", method: "POST", path: B, body: with(validBackend(), obj{"name": huge}), want: 413},
		// Endpoints.
		{name: "address with semicolon", method: "POST", path: B, body: endpointWith("address", "10.0.0.1;"), want: 400},
		{name: "address with include", method: "POST", path: B, body: endpointWith("address", "10.0.0.1 include /etc/nginx/evil.conf"), want: 400},
		{name: "address with brace", method: "POST", path: B, body: endpointWith("address", "evil.example.com}"), want: 400},
		{name: "address variable", method: "POST", path: B, body: endpointWith("address", "$upstream_addr"), want: 400},
		{name: "address with newline", method: "POST", path: B, body: endpointWith("address", "a.example.com\nb"), want: 400},
		{name: "address quoted", method: "POST", path: B, body: endpointWith("address", `"a.example.com"`), want: 400},
		{name: "address with IPv6 zone", method: "POST", path: B, body: endpointWith("address", "fe80::1%eth0"), want: 400},
		{name: "port 0", method: "POST", path: B, body: endpointWith("port", 0), want: 400},
		{name: "port 70000", method: "POST", path: B, body: endpointWith("port", 70000), want: 400},
		{name: "port negative", method: "POST", path: B, body: endpointWith("port", -1), want: 400},
		{name: "port beyond int64", method: "POST", path: B, body: `{"name":"fresh","endpoints":[{"address":"10.0.0.1","port":99999999999999999999}]}`, want: 400},
		{name: "port as string", method: "POST", path: B, body: endpointWith("port", "80"), want: 400},
		{name: "port fractional", method: "POST", path: B, body: endpointWith("port", 80.5), want: 400},
		{name: "weight -1", method: "POST", path: B, body: endpointWith("weight", -1), want: 400},
		{name: "weight 1001", method: "POST", path: B, body: endpointWith("weight", 1001), want: 400},
		// Other backend fields.
		{name: "loadBalance with semicolon", method: "POST", path: B, body: with(validBackend(), obj{"loadBalance": "round_robin;"}), want: 400},
		{name: "hashBy with semicolon", method: "POST", path: B, body: with(validBackend(), obj{"loadBalance": "chash", "hashBy": "$remote_addr;"}), want: 400},
		{name: "hashBy with brace", method: "POST", path: B, body: with(validBackend(), obj{"loadBalance": "chash", "hashBy": "$host}"}), want: 400},
		{name: "timeout with semicolon", method: "POST", path: B, body: with(validBackend(), obj{"timeouts": obj{"connect": "5s;"}}), want: 400},
		{name: "timeout with directive", method: "POST", path: B, body: with(validBackend(), obj{"timeouts": obj{"read": "60s\ninclude /etc/passwd"}}), want: 400},
		{name: "timeout negative", method: "POST", path: B, body: with(validBackend(), obj{"timeouts": obj{"send": "-1s"}}), want: 400},
		{name: "retries 11", method: "POST", path: B, body: with(validBackend(), obj{"retries": 11}), want: 400},
		{name: "canary header value with semicolon", method: "POST", path: B, body: with(validBackend(), obj{"canary": obj{"backend": "cart", "header": "X-Canary", "headerValue": "on; return 200"}}), want: 400},
		{name: "canary header value with dollar", method: "POST", path: B, body: with(validBackend(), obj{"canary": obj{"backend": "cart", "header": "X-Canary", "headerValue": "$http_x"}}), want: 400},
		{name: "affinity cookie with semicolon", method: "POST", path: B, body: with(validBackend(), obj{"affinity": obj{"cookie": "a;b"}}), want: 400},
		{name: "dangling canary backend", method: "POST", path: B, body: with(validBackend(), obj{"canary": obj{"backend": "ghost", "weight": 10}}), want: 400},
		// Shapes of the body.
		{name: "unknown field", method: "POST", path: B, body: with(validBackend(), obj{"snippet": "return 200;"}), want: 400},
		{name: "unknown nested field", method: "POST", path: B, body: endpointWith("max_fails", 3), want: 400},
		{name: "duplicate key", method: "POST", path: B, body: `{"name":"fresh","name":"other","endpoints":[]}`, want: 400},
		{name: "invalid UTF-8", method: "POST", path: B, body: "{\"name\":\"fr\xffesh\",\"endpoints\":[]}", want: 400},
		{name: "byte order mark", method: "POST", path: B, body: "\ufeff{\"name\":\"fresh\",\"endpoints\":[]}", want: 400},
		{name: "deeply nested", method: "POST", path: B, body: deep, want: 400},
		{name: "two values", method: "POST", path: B, body: `{"name":"fresh","endpoints":[]}{"name":"other","endpoints":[]}`, want: 400},
		{name: "array at top", method: "POST", path: B, body: `[{"name":"fresh","endpoints":[]}]`, want: 400},
		{name: "null at top", method: "POST", path: B, body: `null`, want: 400},
		{name: "empty body", method: "POST", path: B, body: ``, want: 400},
		{name: "truncated", method: "POST", path: B, body: `{"name":"fresh","endpoints":[`, want: 400},
		{name: "text/plain", method: "POST", path: B, ctype: "text/plain", body: validBackend(), want: 415},
		{name: "no content type", method: "POST", path: B, ctype: "-", body: validBackend(), want: 415},
		{name: "latin1 charset", method: "POST", path: B, ctype: "application/json; charset=latin1", body: validBackend(), want: 415},
		{name: "form", method: "POST", path: B, ctype: "application/x-www-form-urlencoded", body: `name=fresh`, want: 415},
		// Conflicts and references.
		{name: "create existing", method: "POST", path: B, body: with(validBackend(), obj{"name": "shop"}), want: 409},
		{name: "name differs from path", method: "PUT", path: B + "/shop", body: with(validBackend(), obj{"name": "cart"}), want: 400},
		{name: "kubernetes source", method: "POST", path: B, body: with(validBackend(), obj{"source": obj{"kind": "kubernetes", "namespace": "a", "name": "b", "uid": "c"}}), want: 409},
		{name: "delete backend in use", method: "DELETE", path: B + "/shop", want: 409},
		{name: "delete missing backend", method: "DELETE", path: B + "/ghost", want: 404},
		// The hot path.
		{name: "endpoints port 0", method: "PUT", path: B + "/shop/endpoints", body: obj{"endpoints": []any{obj{"address": "10.0.0.1", "port": 0}}}, want: 400},
		{name: "endpoints address injection", method: "PUT", path: B + "/shop/endpoints", body: obj{"endpoints": []any{obj{"address": "10.0.0.1;}", "port": 80}}}, want: 400},
		{name: "endpoints missing", method: "PUT", path: B + "/shop/endpoints", body: obj{"message": "x"}, want: 400},
		{name: "endpoints of missing backend", method: "PUT", path: B + "/ghost/endpoints", body: obj{"endpoints": []any{}}, want: 404},
		// Request metadata.
		{name: "If-Match garbage", method: "PUT", path: B + "/shop", body: with(validBackend(), obj{"name": "shop"}), want: 400, header: map[string]string{"If-Match": "garbage"}},
		{name: "dryRun not a bool", method: "POST", path: B + "?dryRun=maybe", body: validBackend(), want: 400},
		{name: "message with control character", method: "POST", path: B + "?message=%07", body: validBackend(), want: 400},
		{name: "message with invalid UTF-8", method: "POST", path: B + "?message=%ff", body: validBackend(), want: 400},
		{name: "message too long", method: "POST", path: B + "?message=" + strings.Repeat("x", 2000), body: validBackend(), want: 400},
		// Servers.
		{name: "hostname with semicolon", method: "POST", path: S, body: with(validServer(), obj{"hostnames": []any{"fresh.example.com;"}}), want: 400},
		{name: "hostname with directive", method: "POST", path: S, body: with(validServer(), obj{"hostnames": []any{"a.example.com\nserver_name evil.com"}}), want: 400},
		{name: "hostname with hash", method: "POST", path: S, body: with(validServer(), obj{"hostnames": []any{"a.example.com#"}}), want: 400},
		{name: "hostname with two wildcards", method: "POST", path: S, body: with(validServer(), obj{"hostnames": []any{"*.*.example.com"}}), want: 400},
		{name: "hostname variable", method: "POST", path: S, body: with(validServer(), obj{"hostnames": []any{"$host"}}), want: 400},
		{name: "hostname with include", method: "POST", path: S, body: with(validServer(), obj{"hostnames": []any{"a.com include /etc/passwd"}}), want: 400},
		{name: "no hostnames", method: "POST", path: S, body: with(validServer(), obj{"hostnames": []any{}}), want: 400},
		{name: "path with semicolon", method: "POST", path: S, body: locationWith(obj{"path": "/api;"}), want: 400},
		{name: "path with open brace", method: "POST", path: S, body: locationWith(obj{"path": "/api {"}), want: 400},
		{name: "path with close brace", method: "POST", path: S, body: locationWith(obj{"path": "/api}"}), want: 400},
		{name: "path variable", method: "POST", path: S, body: locationWith(obj{"path": "/$uri"}), want: 400},
		{name: "path with space", method: "POST", path: S, body: locationWith(obj{"path": "/a b"}), want: 400},
		{name: "path with NUL", method: "POST", path: S, body: locationWith(obj{"path": "/a\x00"}), want: 400},
		{name: "path with hash", method: "POST", path: S, body: locationWith(obj{"path": "/a#b"}), want: 400},
		{name: "path quoted", method: "POST", path: S, body: locationWith(obj{"path": `/a"b`}), want: 400},
		{name: "path relative", method: "POST", path: S, body: locationWith(obj{"path": "api"}), want: 400},
		{name: "regex with quote", method: "POST", path: S, body: locationWith(obj{"path": `^/a"b`, "match": "regex"}), want: 400},
		{name: "regex with semicolon", method: "POST", path: S, body: locationWith(obj{"path": "^/a;b", "match": "regex"}), want: 400},
		{name: "regex with escaped newline", method: "POST", path: S, body: locationWith(obj{"path": `^/a\n`, "match": "regex"}), want: 400},
		{name: "regex that does not compile", method: "POST", path: S, body: locationWith(obj{"path": "^/(", "match": "regex"}), want: 400},
		{name: "match with semicolon", method: "POST", path: S, body: locationWith(obj{"match": "prefix;"}), want: 400},
		{name: "header value with CRLF", method: "POST", path: S, body: locationWith(obj{"setHeaders": []any{obj{"name": "X-A", "value": "x\r\nX-Evil: 1"}}}), want: 400},
		{name: "header value with semicolon", method: "POST", path: S, body: locationWith(obj{"setHeaders": []any{obj{"name": "X-A", "value": "a; proxy_pass http://evil"}}}), want: 400},
		{name: "header value quoted", method: "POST", path: S, body: locationWith(obj{"setHeaders": []any{obj{"name": "X-A", "value": `"a"`}}}), want: 400},
		{name: "header name with semicolon", method: "POST", path: S, body: locationWith(obj{"setHeaders": []any{obj{"name": "X-A;", "value": "a"}}}), want: 400},
		{name: "header name with space", method: "POST", path: S, body: locationWith(obj{"setHeaders": []any{obj{"name": "X A", "value": "a"}}}), want: 400},
		{name: "rewrite with directive", method: "POST", path: S, body: locationWith(obj{"rewrite": "/x;return 200"}), want: 400},
		{name: "rewrite variable", method: "POST", path: S, body: locationWith(obj{"rewrite": "/$1"}), want: 400},
		{name: "location timeout injection", method: "POST", path: S, body: locationWith(obj{"timeouts": obj{"read": "60s;"}}), want: 400},
		{name: "duplicate host and path", method: "POST", path: S, body: with(validServer(), obj{"hostnames": []any{"shop.example.com"}, "locations": []any{obj{"path": "/api/", "backend": "cart"}}}), want: 409},
		{name: "duplicate path in one server", method: "POST", path: S, body: with(validServer(), obj{"locations": []any{validLocation(), validLocation()}}), want: 400},
		{name: "dangling backend", method: "POST", path: S, body: locationWith(obj{"backend": "ghost"}), want: 400},
		{name: "dangling certificate", method: "POST", path: S, body: with(validServer(), obj{"tls": obj{"certificate": "ghost"}}), want: 400},
		// Settings.
		{name: "body size injection", method: "PUT", path: "/api/v1/settings", token: "admin", body: settingsWith(obj{"clientMaxBodySize": "1m; include /etc/passwd"}), want: 400},
		{name: "keepalive with newline", method: "PUT", path: "/api/v1/settings", token: "admin", body: settingsWith(obj{"keepaliveTimeout": "75s\n"}), want: 400},
		{name: "gzip type with semicolon", method: "PUT", path: "/api/v1/settings", token: "admin", body: settingsWith(obj{"gzipTypes": []any{"text/html;"}}), want: 400},
		{name: "log format free text", method: "PUT", path: "/api/v1/settings", token: "admin", body: settingsWith(obj{"logFormat": "json escape=none"}), want: 400},
		{name: "worker connections 10", method: "PUT", path: "/api/v1/settings", token: "admin", body: settingsWith(obj{"workerConnections": 10}), want: 400},
		{name: "worker processes 1e10", method: "PUT", path: "/api/v1/settings", token: "admin", body: settingsWith(obj{"workerProcesses": 1e10}), want: 400},
		{name: "error ratio 2", method: "PUT", path: "/api/v1/settings", token: "admin", body: settingsWith(obj{"rollbackErrorRatio": 2}), want: 400},
		// Whole configs.
		{name: "config with a 2 MB name", method: "PUT", path: "/api/v1/config", body: obj{"backends": []any{with(validBackend(), obj{"name": huge})}}, want: 400},
		{name: "config naming a backend twice", method: "PUT", path: "/api/v1/config", body: obj{"backends": []any{validBackend(), validBackend()}}, want: 400},
		{name: "config with dangling backend", method: "PUT", path: "/api/v1/config", body: obj{"backends": []any{validBackend()}, "servers": []any{locationWith(obj{"backend": "shop"})}}, want: 400},
		{name: "config unknown field", method: "PUT", path: "/api/v1/config", body: obj{"backends": []any{}, "snippets": []any{"x"}}, want: 400},
		// Certificates.
		{name: "certificate not PEM", method: "POST", path: "/api/v1/certificates", body: obj{"name": "tls", "cert": "not a pem", "key": key}, want: 400},
		{name: "certificate without key", method: "POST", path: "/api/v1/certificates", body: obj{"name": "tls", "cert": cert}, want: 400},
		{name: "certificate with garbage key", method: "POST", path: "/api/v1/certificates", body: obj{"name": "tls", "cert": cert, "key": "-----BEGIN PRIVATE KEY-----\nZ2FyYmFnZQ==\n-----END PRIVATE KEY-----\n"}, want: 400},
		{name: "certificate with a directive after it", method: "POST", path: "/api/v1/certificates", body: obj{"name": "tls", "cert": cert + "ssl_certificate_key /etc/passwd;", "key": key}, want: 400},
		// Rollbacks.
		{name: "rollback to 0", method: "POST", path: "/api/v1/revisions/0/rollback?message=x", want: 400},
		{name: "rollback to a future revision", method: "POST", path: "/api/v1/revisions/99999/rollback?message=x", want: 404},
		{name: "rollback id not a number", method: "POST", path: "/api/v1/revisions/abc/rollback?message=x", want: 400},
		{name: "rollback with unknown field", method: "POST", path: "/api/v1/revisions/1/rollback", body: obj{"message": "x", "force": true}, want: 400},
		// Tokens.
		{name: "token name with semicolon", method: "POST", path: "/api/v1/tokens", token: "admin", body: obj{"name": "a;b", "role": "viewer"}, want: 400},
		{name: "token role unknown", method: "POST", path: "/api/v1/tokens", token: "admin", body: obj{"name": "x", "role": "root"}, want: 400},
		// Authentication.
		{name: "no token", method: "POST", path: B, token: "none", body: validBackend(), want: 401},
		{name: "token too long", method: "POST", path: B, header: map[string]string{"Authorization": "Bearer rp_" + strings.Repeat("x", 300)}, body: validBackend(), want: 401},
		{name: "token with a space", method: "POST", path: B, header: map[string]string{"Authorization": "Bearer rp_a b"}, body: validBackend(), want: 401},
		{name: "unknown method", method: "PATCH", path: B + "/shop", body: validBackend(), want: 405},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	before := e.revisions()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := req{method: c.method, path: c.path, token: e.editor, body: c.body, header: maps.Clone(c.header)}
			if r.header == nil {
				r.header = map[string]string{}
			}
			switch c.token {
			case "admin":
				r.token = e.admin
			case "none":
				r.token = ""
			}
			switch c.ctype {
			case "":
			case "-":
				r.header["Content-Type"] = ""
			default:
				r.header["Content-Type"] = c.ctype
			}
			if c.body == nil {
				r.body = nil
			}
			res := e.send(r)
			if res.status != c.want {
				t.Fatalf("%s %s = %d, want %d: %.300s", c.method, c.path, res.status, c.want, res.body)
			}
			checkErrorBody(t, res)
			if got := e.revisions(); got != before {
				t.Fatalf("revisions = %d after a refused request, want %d", got, before)
			}
		})
	}
}

// statusOfCode is the documented code→status table, written out again so that the test
// does not trust the code it checks.
var statusOfCode = map[string]int{
	"invalid": 400, "unauthorized": 401, "forbidden": 403, "not_found": 404, "method_not_allowed": 405,
	"conflict": 409, "precondition_failed": 412, "too_large": 413, "unsupported_media_type": 415,
	"internal": 500, "unavailable": 503,
}

// checkErrorBody checks that an error answer is exactly {"error": {"code", "message",
// "field"?}} with the code that matches its status.
func checkErrorBody(t *testing.T, res *resp) {
	t.Helper()
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
	dec := json.NewDecoder(bytes.NewReader(res.body))
	dec.DisallowUnknownFields()
	var er server.ErrorResponse
	if err := dec.Decode(&er); err != nil {
		t.Fatalf("error body %q does not decode strictly: %v", res.body, err)
	}
	if er.Error.Code == "" || er.Error.Message == "" {
		t.Fatalf("error body %s lacks a code or a message", res.body)
	}
	if got, want := statusOfCode[er.Error.Code], res.status; got != want {
		t.Fatalf("code %q goes with status %d, got %d", er.Error.Code, got, want)
	}
	if len(res.body) > 2048 {
		t.Fatalf("error body is %d bytes; it must not echo the input", len(res.body))
	}
}
